"""`python -m bot check [--as EMAIL]`: the configuration tried against every configured service.

One line per part: ✓ when it works, ⚠ when it works in a way worth changing, ✗ with what to do
when it does not. `check` asks what `serve` needs, so a ✓ everywhere means `serve` starts and
every feature configured can work. `serve` runs the same checks at start and logs each line that
is not ✓, without refusing to start (a service may come back; Slack still needs an answer
meanwhile).

This module runs the parts and prints or logs their lines; each service's check is its own module
under bot/commands/checks/, so a new service adds one module and one entry in `run_checks`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis

from bot.commands.checks.dossiers import check_dossiers
from bot.commands.checks.inference import check_inference
from bot.commands.checks.redis import check_redis
from bot.commands.checks.result import Result
from bot.commands.checks.rooms import check_rooms
from bot.commands.checks.slack import check_installations, check_slack
from bot.commands.tables import clean
from bot.config import Settings
from bot.redis_server import open_redis

log = logging.getLogger(__name__)

Check = Callable[[], Awaitable[Result | list[Result]]]


async def run_checks(settings: Settings, redis: aioredis.Redis, *, as_email: str | None = None) -> list[Result]:
    checks: list[tuple[str, Check]] = [
        ("Redis", lambda: check_redis(redis, settings)),
        ("Slack", (lambda: check_installations(settings, redis)) if settings.oauth else (lambda: check_slack(settings))),
        ("room service", lambda: check_rooms(settings, as_email, redis)),
    ]
    if settings.ds_api_token or settings.digest_channel or settings.digest_demarches:
        checks.append(("dossier service", lambda: check_dossiers(settings, redis)))
    if settings.albert_api_key:
        checks.append(("inference service", lambda: check_inference(settings, redis)))
    results = []
    for part, check in checks:
        try:
            found = await check()
            results += found if isinstance(found, list) else [found]
        except Exception:  # a check that breaks is a ✗ too, never a traceback on the operator's screen
            log.exception("the %s check broke", part)
            results.append(Result(part, False, "could not be checked: an unexpected error, logged above"))
    return results


async def run_check_command(settings: Settings, *, as_email: str | None) -> int:
    """Prints one line per part; exit code 1 on any ✗."""
    async with open_redis(settings) as redis:
        results = await run_checks(settings, redis, as_email=as_email)
    for result in results:
        print(clean(result.line()))  # a service's words may hold escape sequences
    return 0 if all(result.ok for result in results) else 1


async def log_failures(settings: Settings, redis: aioredis.Redis) -> None:
    """At `serve`'s start: one line per part that is not ✓, and the bot starts anyway."""
    for result in await run_checks(settings, redis):
        if not result.ok or result.warning:
            log.warning("start-up check: %s", result.line())
