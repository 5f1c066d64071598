"""The inference service as the bot uses it: which key, rotation, and the expiry warning."""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import redis.asyncio as aioredis

from bot import operator_advice as advice
from bot.config import Settings
from clients.inference.api_keys import ApiKey
from clients.inference.errors import InferenceError, InferenceRefused
from clients.inference.key_store import ActiveKey, KeyStore
from clients.inference.service import InferenceService
from clients.retry import RetryPolicy

log = logging.getLogger(__name__)

WARN_DAYS = 7


@dataclass
class Inference:
    service: InferenceService
    keys: KeyStore


def joined(keys: KeyStore, url: str, model: str, policy: RetryPolicy | None = None) -> Inference:
    """The service and the key store, each told about the other: the service asks the store for its
    key and tells it of a refusal; the store asks the service whether the bootstrap key still works."""
    service = InferenceService(url, keys.current, model=model, on_refused=keys.refused, policy=policy)
    keys.probe = service.key_works
    return Inference(service, keys)


@contextlib.asynccontextmanager
async def inference(settings: Settings, redis: aioredis.Redis) -> AsyncIterator[Inference]:
    ai = joined(KeyStore(redis, settings.albert_api_key, settings.secret_box), str(settings.albert_api_url), settings.albert_model)
    ai.service.advise = lambda error: advice.inference(error, settings)
    try:
        yield ai
    finally:
        await ai.service.aclose()


@dataclass(frozen=True)
class Rotation:
    new: ApiKey
    previous: ActiveKey | None  # the bot's key it replaced (revoked), never the bootstrap key
    capped_days: int | None = None  # the gateway's longest key lifetime, when it refused the one asked for
    revoked_forgotten: tuple[str, ...] = ()  # ids of keys the bot had given up on, revoked now


async def rotate(ai: Inference, *, expires_in_days: int, today: dt.date | None = None) -> Rotation:
    """Creates `roombot-<date>`, proves it answers, makes it the bot's key, then revokes the bot's
    previous key and any it gave up on. The operator's bootstrap key is never stored as the bot's,
    so never revoked. A gateway that caps key lifetimes gets a key of the longest it allows."""
    today = today or dt.date.today()
    name = f"roombot-{today.isoformat()}"
    expires = int((dt.datetime.now(dt.UTC) + dt.timedelta(days=expires_in_days)).timestamp()) if expires_in_days else None
    capped = None
    try:
        new = await ai.service.api_keys.create(name, expires)
    except InferenceRefused as error:
        capped = _cap(error.detail)
        if capped is None:
            raise
        log.warning("the inference service allows keys of %d days at most; creating one of that lifetime", capped)
        new = await ai.service.api_keys.create(name, None)  # capped by the server, and read back
    assert new.secret is not None
    try:
        await ai.service.models(key=new.secret)
    except InferenceError:
        log.error("the new key %s does not work; revoking it and keeping the current one", new.id)
        await ai.service.api_keys.revoke(new.id)
        raise
    previous = await ai.keys.activate(new)
    if previous is not None and str(previous.id) != str(new.id):
        await ai.service.api_keys.revoke(previous.id)
    revoked = []
    for key_id in await ai.keys.forgotten():
        try:
            await ai.service.api_keys.revoke(key_id)
            revoked.append(key_id)
        except InferenceRefused:  # gone already (revoked by hand, or expired and hidden)
            pass
        await ai.keys.revoked(key_id)
    return Rotation(new, previous, capped, tuple(revoked))


def _cap(detail: str) -> int | None:
    """N from `Token expiration timestamp cannot be greater than N days from now.`"""
    found = re.search(r"greater than (\d+) days", detail)
    return int(found.group(1)) if found else None


class ExpiryWatch:
    """Logs a warning once a day while the bot's key expires within a week (or is already expired)."""

    def __init__(self, keys: KeyStore) -> None:
        self._keys = keys
        self._warned: dt.date | None = None

    async def __call__(self, day: dt.date) -> None:
        if self._warned == day:
            return
        active = await self._keys.active()
        now = dt.datetime.now(dt.UTC)
        if active is not None and active.expires_within(WARN_DAYS, now):
            when = dt.datetime.fromtimestamp(active.expires or 0, dt.UTC).date()
            log.warning("the inference key %s (%s) expires on %s: run `python -m bot keys rotate`", active.name, active.id, when)
        self._warned = day
