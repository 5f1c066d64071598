"""The inference service's line of `check`: the key, the model, and whether the bot can rotate.

It chats one token with ALBERT_MODEL and lists one key: the master key chats but owns no keys,
so the bot could never rotate with it. A key refused on the way (the store fell back), a
bootstrap key refused (no fallback left) and a key expiring soon are each said, none hiding
another.
"""

from __future__ import annotations

import datetime as dt

import redis.asyncio as aioredis

from bot import operator_advice as advice
from bot.commands.checks.result import Result
from bot.config import Settings
from bot.inference import WARN_DAYS, inference
from clients.inference.errors import InferenceError


async def check_inference(settings: Settings, redis: aioredis.Redis) -> Result:
    async with inference(settings, redis) as ai:
        active = await ai.keys.active()
        tried = f"the bot's key {active.name}" if active is not None else "ALBERT_API_KEY"
        try:
            models = await ai.service.models()
            if not any(settings.albert_model in model.names for model in models):
                listed = ", ".join(name for model in models[:8] for name in model.names[:2])
                return Result("inference service", False, f"no model {settings.albert_model!r} (it has {listed}): set ALBERT_MODEL")
            await ai.service.complete([{"role": "user", "content": "ok"}], max_tokens=1)
            await ai.service.api_keys.all(limit=1)  # the master key chats, but owns no keys: the bot could never rotate
        except InferenceError as error:
            return Result("inference service", False, advice.inference(error, settings))
        buts = []  # each warning of the line, none hiding another
        now_active = await ai.keys.active()
        if active is not None and now_active is None:  # refused on the way, and the store fell back
            tried = "ALBERT_API_KEY"
            buts.append(f"the bot's key {active.name} was refused (revoked or expired): the bot now uses ALBERT_API_KEY; "
                        "run `python -m bot keys rotate` for a key of its own")
        elif now_active is not None and ai.keys.bootstrap is not None and not await ai.keys.probe_bootstrap():
            buts.append("ALBERT_API_KEY itself is refused (revoked or expired): the bot has no fallback should its key be "
                        "refused; set ALBERT_API_KEY to a working key of the account")
        if now_active is not None and now_active.expires_within(WARN_DAYS, dt.datetime.now(dt.UTC)):
            buts.append(f"the bot's key {now_active.name} expires within {WARN_DAYS} days: run `python -m bot keys rotate`")
    found = f"{tried} accepted, model {settings.albert_model} answers"
    if buts:
        return Result("inference service", True, f"{found}; but " + "; and ".join(buts), warning=True)
    return Result("inference service", True, found)
