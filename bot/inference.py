"""The inference service as the bot uses it: which key, rotation, and the expiry warning."""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import redis.asyncio as aioredis

from bot.config import Settings
from clients.inference.errors import InferenceError
from clients.inference.key_store import ActiveKey, KeyStore
from clients.inference.service import ApiKey, InferenceService

log = logging.getLogger(__name__)

WARN_DAYS = 7


@dataclass
class Inference:
    service: InferenceService
    keys: KeyStore


@contextlib.asynccontextmanager
async def inference(settings: Settings, redis: aioredis.Redis) -> AsyncIterator[Inference]:
    keys = KeyStore(redis, settings.albert_api_key, settings.secret_box)
    service = InferenceService(str(settings.albert_api_url), keys.current, model=settings.albert_model,
                               on_refused=keys.refused)
    try:
        yield Inference(service, keys)
    finally:
        await service.aclose()


async def rotate(ai: Inference, *, expires_in_days: int, today: dt.date | None = None) -> tuple[ApiKey, ActiveKey | None]:
    """Creates `roombot-<date>`, proves it answers, makes it the bot's key, then revokes the bot's
    previous key. The operator's bootstrap key is never stored as the bot's, so never revoked."""
    today = today or dt.date.today()
    expires = int((dt.datetime.now(dt.UTC) + dt.timedelta(days=expires_in_days)).timestamp()) if expires_in_days else None
    new = await ai.service.create_key(f"roombot-{today.isoformat()}", expires)
    assert new.secret is not None
    try:
        await ai.service.models(key=new.secret)
    except InferenceError:
        log.error("the new key %s does not work; revoking it and keeping the current one", new.id)
        await ai.service.revoke_key(new.id)
        raise
    previous = await ai.keys.activate(new)
    if previous is not None and str(previous.id) != str(new.id):
        await ai.service.revoke_key(previous.id)
    return new, previous


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
