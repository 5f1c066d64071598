"""`python -m bot check [--as EMAIL]`: the configuration tried against every configured service.

One line per part, ✓ or ✗ and, for ✗, what to do. `serve` runs the same checks at start and logs
each failure in one line, without refusing to start (a service may come back; Slack still needs
an answer meanwhile).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.inference import WARN_DAYS, inference
from bot.redis_server import open_redis
from bot.wiring import configure_slack_client
from clients.dossiers.errors import DossierServiceError
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.service import DossierService
from clients.dossiers.subscriptions import Subscriptions
from clients.errors import ServiceError
from clients.rooms.service import RoomService

log = logging.getLogger(__name__)

#: The bot scopes the app asks for (manifest.yml); a test keeps the two equal.
REQUIRED_SCOPES = frozenset({
    "commands", "chat:write", "chat:write.public", "im:write", "links:read", "links:write", "users:read",
    "users:read.email", "channels:read", "groups:read", "files:write",
})


@dataclass(frozen=True)
class Result:
    part: str
    ok: bool
    says: str  # what was found, or what to do

    def line(self) -> str:
        return f"{'✓' if self.ok else '✗'} {self.part}: {self.says}"


Check = Callable[[], Awaitable[Result]]


async def run_checks(settings: Settings, redis: aioredis.Redis, *, as_email: str | None = None) -> list[Result]:
    checks: list[tuple[str, Check]] = [("Redis", lambda: _redis(redis, settings)), ("Slack", lambda: _slack(settings))]
    if settings.meet_api_url and settings.meet_client_id and settings.meet_client_secret:
        checks.append(("room service", lambda: _rooms(settings, as_email)))
    if settings.ds_api_token:
        checks.append(("dossier service", lambda: _dossiers(settings, redis)))
    if settings.albert_api_key:
        checks.append(("inference service", lambda: _inference(settings, redis)))
    results = []
    for part, check in checks:
        try:
            results.append(await check())
        except Exception as error:  # a check that breaks is a ✗ too, never a traceback
            results.append(Result(part, False, f"the check itself failed ({type(error).__name__})"))
    return results


async def run_check_command(settings: Settings, *, as_email: str | None) -> int:
    """Prints one line per part; exit code 1 on any ✗."""
    async with open_redis(settings) as redis:
        results = await run_checks(settings, redis, as_email=as_email)
    for result in results:
        print(result.line())
    return 0 if all(result.ok for result in results) else 1


async def log_failures(settings: Settings, redis: aioredis.Redis) -> None:
    """At `serve`'s start: one line per part that fails, and the bot starts anyway."""
    for result in await run_checks(settings, redis):
        if not result.ok:
            log.warning("start-up check: %s", result.line())


async def _redis(redis: aioredis.Redis, settings: Settings) -> Result:
    try:
        server = await redis.info("server")
        persistence = await redis.info("persistence")
        saved = "AOF" if persistence.get("aof_enabled") else await _snapshots(redis)
    except RedisError as error:
        return Result("Redis", False, f"does not answer ({type(error).__name__}): check {settings.redis_settings} and that the server runs")
    if saved == "none":
        return Result("Redis", False, f"version {server.get('redis_version')}, no persistence: enable AOF (appendonly yes)")
    return Result("Redis", True, f"version {server.get('redis_version')}, persistence: {saved}")


async def _snapshots(redis: aioredis.Redis) -> str:
    """RDB snapshots when `save` has a rule (INFO cannot tell: it shows a last save time even with
    `save ""`); managed services that refuse CONFIG are taken at their word."""
    try:
        rules = (await redis.config_get("save")).get("save")
    except ResponseError:
        return "RDB snapshots (not verified: CONFIG refused)"
    return "RDB snapshots" if rules else "none"


async def _slack(settings: Settings) -> Result:
    if settings.slack_bot_token is None:
        return Result("Slack", False, "SLACK_BOT_TOKEN is not set")
    client = configure_slack_client(AsyncWebClient(token=settings.slack_bot_token.get_secret_value()), settings)
    try:
        answer = await client.auth_test()
    except SlackApiError as error:
        return Result("Slack", False, f"auth.test refused the bot token ({error.response.get('error')}): check SLACK_BOT_TOKEN")
    granted = {s.strip() for s in str(answer.headers.get("x-oauth-scopes", "")).split(",") if s.strip()}
    missing = sorted(REQUIRED_SCOPES - granted)
    if missing:
        return Result("Slack", False, f"the app lacks the scopes {', '.join(missing)}: add them (manifest.yml) and reinstall the app")
    if settings.slack_app_token is not None:
        try:
            await client.apps_connections_open(app_token=settings.slack_app_token.get_secret_value())
        except SlackApiError as error:
            return Result("Slack", False, f"the app-level token is refused ({error.response.get('error')}): "
                                          "create one with connections:write (SLACK_APP_TOKEN)")
    return Result("Slack", True, f"bot {answer.get('user')} in {answer.get('team')}, every scope granted")


async def _rooms(settings: Settings, as_email: str | None) -> Result:
    assert settings.meet_api_url and settings.meet_client_id and settings.meet_client_secret
    if not as_email:
        return Result("room service", True, "configured; give --as EMAIL to try a token and a room list for that person")
    rooms = RoomService(str(settings.meet_api_url), settings.meet_client_id, settings.meet_client_secret)
    try:
        grant = await rooms.issue_token(as_email)
        page = await rooms.list_rooms(grant.access_token)
    except ServiceError as error:
        return Result("room service", False, f"{type(error).__name__}: {error.detail}")
    finally:
        await rooms.aclose()
    return Result("room service", True, f"a token for that person (valid {grant.expires_in} s) and their {page.count} room(s)")


async def _dossiers(settings: Settings, redis: aioredis.Redis) -> Result:
    assert settings.ds_api_token is not None
    numbers = set(settings.digest_demarches)
    for subscription in await Subscriptions(redis).all():
        numbers |= set(subscription.demarches)
    service = DossierService(str(settings.ds_api_url), settings.ds_api_token, limiter=RateLimiter(settings.ds_requests_per_minute))
    problems = []
    try:
        for number in sorted(numbers):
            try:
                await service.title(number)
            except DossierServiceError as error:
                problems.append(f"n° {number}: {error.reason}")
    finally:
        await service.aclose()
    if problems:
        return Result("dossier service", False, "cannot read " + "; ".join(problems)
                      + " (check the token's démarches and allowed IP addresses in the administrator profile)")
    return Result("dossier service", True, f"the token reads the {len(numbers)} configured démarche(s)")


async def _inference(settings: Settings, redis: aioredis.Redis) -> Result:
    async with inference(settings, redis) as ai:
        try:
            models = await ai.service.models()
        except ServiceError as error:
            return Result("inference service", False, f"{type(error).__name__}: {error.detail}")
        if settings.albert_model not in models:
            return Result("inference service", False, f"no model {settings.albert_model!r} (it has {', '.join(models[:5])}): "
                                                      "set ALBERT_MODEL")
        active = await ai.keys.active()
        if active is not None and active.expires_within(WARN_DAYS, dt.datetime.now(dt.UTC)):
            return Result("inference service", False, f"the bot's key {active.name} expires within {WARN_DAYS} days: "
                                                      "run `python -m bot keys rotate`")
    return Result("inference service", True, f"key accepted, model {settings.albert_model} present")

