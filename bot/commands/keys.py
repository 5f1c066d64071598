"""`python -m bot keys list|rotate`: the inference service's API keys, secrets masked."""

from __future__ import annotations

import datetime as dt
import sys

from bot import operator_advice as advice
from bot.commands.tables import clean, print_table
from bot.config import Settings
from bot.inference import inference, rotate
from bot.redis_server import open_redis
from clients.inference.api_keys import ApiKey
from clients.inference.errors import InferenceError


async def run_keys_command(settings: Settings, action: str, *, expires_in_days: int) -> int:
    try:
        async with open_redis(settings) as redis, inference(settings, redis) as ai:
            if action == "list":
                active = await ai.keys.active()
                bootstrap = settings.albert_api_key.get_secret_value() if settings.albert_api_key else ""
                _print_keys(await ai.service.api_keys.all(), active.id if active else None, bootstrap)
                return 0
            rotation = await rotate(ai, expires_in_days=expires_in_days)
    except InferenceError as error:
        print(f"roombot: {clean(advice.inference(error, settings))}", file=sys.stderr)
        return 1
    new, previous = rotation.new, rotation.previous
    until = _date(new.expires) or "no expiry"
    if rotation.capped_days is not None:
        print(f"the inference service allows keys of {rotation.capped_days} days at most (not {expires_in_days}): "
              "this one lasts that long; run `keys rotate` again before it ends")
    print(clean(f"now using {new.name} (id {new.id}, {mask(new.secret.get_secret_value() if new.secret else '')}), until {until}"))
    print(clean(f"revoked the bot's previous key {previous.name} (id {previous.id})") if previous
          else "the bootstrap key ALBERT_API_KEY is kept")
    if rotation.revoked_forgotten:
        print(f"also revoked the bot's earlier key(s) {', '.join(rotation.revoked_forgotten)}, refused since and set aside")
    return 0


def mask(secret: str) -> str:
    """Enough to tell keys apart, never enough to use one; a secret the service masked already
    (first 8 + `...` + last 8) is shown as it came."""
    if "..." in secret:
        return secret
    return f"{secret[:6]}…{secret[-4:]}" if len(secret) > 16 else "…"


def _print_keys(keys: list[ApiKey], active_id: int | str | None, bootstrap: str) -> None:
    """Which key the bot uses; the bootstrap key is a fallback only while the bot's own key exists."""
    if all(str(key.id) != str(active_id) for key in keys):
        active_id = None  # the rotated key the bot remembers is gone from the service (revoked, or expired)
    secrets = [key.secret.get_secret_value() if key.secret else "" for key in keys]
    listed = any(_is_bootstrap(shown, bootstrap) for shown in secrets)
    rows = []
    for key, shown in zip(keys, secrets, strict=True):
        role = "active (rotated)" if str(key.id) == str(active_id) else ""
        if _is_bootstrap(shown, bootstrap):
            role = "bootstrap (ALBERT_API_KEY)" + (", fallback" if active_id is not None else ", active")
        rows.append([key.id, key.name, mask(shown), _date(key.expires) or "never", _date(key.created) or "", role])
    notes = [] if listed or not bootstrap or active_id is None else [
        "⚠ ALBERT_API_KEY is not among the account's keys (revoked or expired): the bot has no fallback should its own "
        "key be refused; set ALBERT_API_KEY to a working key of the account"]
    print_table("inference API keys", ["id", "name", "secret", "expires", "created", "used by the bot"], rows, notes=notes)


def _is_bootstrap(shown: str, bootstrap: str) -> bool:
    """A listed key is ALBERT_API_KEY: the service masks lists as first 8 … last 8."""
    head, _, tail = shown.partition("...")
    return bool(bootstrap and head and tail and bootstrap.startswith(head) and bootstrap.endswith(tail))


def _date(stamp: int | None) -> str | None:
    return dt.datetime.fromtimestamp(stamp, dt.UTC).date().isoformat() if stamp else None
