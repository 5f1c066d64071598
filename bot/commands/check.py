"""`python -m bot check [--as EMAIL]`: the configuration tried against every configured service.

One line per part: ✓ when it works, ⚠ when it works in a way worth changing, ✗ with what to do
when it does not. `check` asks what `serve` needs, so a ✓ everywhere means `serve` starts and
every feature configured can work. `serve` runs the same checks at start and logs each line that
is not ✓, without refusing to start (a service may come back; Slack still needs an answer
meanwhile).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError
from slack_sdk.errors import SlackApiError
from slack_sdk.oauth.installation_store import Installation
from slack_sdk.web.async_client import AsyncWebClient

from bot import operator_advice as advice
from bot.commands.tables import clean
from bot.config import Settings
from bot.inference import WARN_DAYS, inference
from bot.redis_server import open_redis
from bot.requirements import unset_line
from bot.scopes import REQUIRED_SCOPES
from bot.serving.installations import InstallationStore
from bot.serving.slack_app import configure_slack_client, slack_client
from bot.wiring import dossier_service, room_service
from clients.dossiers.desk import DossierDesk
from clients.dossiers.errors import DemarcheForbidden, DemarcheNotFound, DossierServiceError
from clients.dossiers.service import DossierService
from clients.dossiers.subscriptions import Subscriptions
from clients.inference.errors import InferenceError
from clients.redis_keys import application_tag, key
from clients.rooms.errors import RoomServiceError
from clients.rooms.models import RoomPage, TokenGrant
from clients.rooms.service import OPTIONAL_SCOPES as ROOM_OPTIONAL_SCOPES
from clients.rooms.service import REQUIRED_SCOPES as ROOM_SCOPES
from clients.rooms.site import RoomSite
from clients.rooms.token_cache import MIN_CACHED_LIFETIME
from clients.rooms.user_rooms import SCOPE_MISSING, SCOPE_MISSING_TTL

log = logging.getLogger(__name__)



@dataclass(frozen=True)
class Result:
    part: str
    ok: bool
    says: str  # what was found, or what to do
    warning: bool = False  # works, but in a way the operator should change

    def line(self) -> str:
        mark = "✗" if not self.ok else "⚠" if self.warning else "✓"
        return f"{mark} {self.part}: {self.says}"


Check = Callable[[], Awaitable[Result | list[Result]]]


async def run_checks(settings: Settings, redis: aioredis.Redis, *, as_email: str | None = None) -> list[Result]:
    checks: list[tuple[str, Check]] = [
        ("Redis", lambda: _redis(redis, settings)),
        ("Slack", (lambda: _installations(settings, redis)) if settings.oauth else (lambda: _slack(settings))),
        ("room service", lambda: _rooms(settings, as_email, redis)),
    ]
    if settings.ds_api_token or settings.digest_channel or settings.digest_demarches:
        checks.append(("dossier service", lambda: _dossiers(settings, redis)))
    if settings.albert_api_key:
        checks.append(("inference service", lambda: _inference(settings, redis)))
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


#: the room service's address in .env.example: copied as it is, it is no service (not "the network")
EXAMPLE_MEET_HOST = "visio.example.gouv.fr"


def _example_address(settings: Settings) -> str | None:
    if advice.host_of(settings.meet_api_url) != EXAMPLE_MEET_HOST:
        return None
    return (f"MEET_API_URL is still .env.example's address ({EXAMPLE_MEET_HOST}): set your room service's, ending "
            "in /external-api/v1.0")


def _unset(settings: Settings, *names: str) -> str:
    return unset_line(settings.missing(*names))


async def _redis(redis: aioredis.Redis, settings: Settings) -> Result:
    try:
        server = await redis.info("server")
        persistence = await redis.info("persistence")
        saved = "AOF" if persistence.get("aof_enabled") else await _snapshots(redis)
    except RedisError as error:
        return Result("Redis", False, advice.redis_problem(error, settings))
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
    needed = ("slack_bot_token",) if settings.socket_mode else ("slack_bot_token", "slack_signing_secret")
    if settings.missing(*needed):
        return Result("Slack", False, _unset(settings, *needed))
    client = slack_client(settings)
    try:
        answer = await client.auth_test()
    except Exception as error:  # SlackApiError, or the HTTP client's own connection errors
        return Result("Slack", False, advice.slack(error, settings))
    granted = {s.strip() for s in str(answer.headers.get("x-oauth-scopes", "")).split(",") if s.strip()}
    missing = sorted(REQUIRED_SCOPES - granted)
    if missing:
        return Result("Slack", False, f"the app lacks the scopes {', '.join(missing)}: add them (manifest.yml) and reinstall the app")
    if settings.slack_app_token is not None:
        try:
            await client.apps_connections_open(app_token=settings.slack_app_token.get_secret_value())
        except SlackApiError as error:
            return Result("Slack", False, f"Slack refuses SLACK_APP_TOKEN ({error.response.get('error')}): make an "
                                          "app-level token with the connections:write scope")
    return Result("Slack", True, f"bot {answer.get('user')} in {answer.get('team')}, every scope granted")


async def _installations(settings: Settings, redis: aioredis.Redis) -> list[Result]:
    """OAuth installs: the app's credentials (an exchange of a code that does not exist is refused
    as `invalid_code` only once the id and secret are right), then each installation's token."""
    needed = ("slack_signing_secret", "token_encryption_key") if not settings.socket_mode else ("token_encryption_key",)
    if settings.missing(*needed):
        return [Result("Slack", False, "OAuth installs (SLACK_CLIENT_ID), " + _unset(settings, *needed))]
    assert settings.slack_client_id and settings.slack_client_secret
    client = configure_slack_client(AsyncWebClient(), settings)
    try:
        await client.oauth_v2_access(client_id=settings.slack_client_id, client_secret=settings.slack_client_secret.get_secret_value(),
                                     code="roombot-check")
    except SlackApiError as error:
        code = str(error.response.get("error"))
        if code in ("invalid_client_id", "bad_client_secret"):
            return [Result("Slack", False, f"Slack refuses the app's credentials ({code}): copy SLACK_CLIENT_ID and "
                                           "SLACK_CLIENT_SECRET from the app's Basic Information page")]
    except Exception as error:
        return [Result("Slack", False, advice.slack(error, settings))]
    try:
        installations, unreadable = await InstallationStore(redis, settings.secret_box).all()
    except RedisError as error:
        return [Result("Slack", False, advice.redis_problem(error, settings))]
    if unreadable:
        return [Result("Slack", False, f"{unreadable} of {unreadable + len(installations)} installation(s) do not open with "
                                       "TOKEN_ENCRYPTION_KEY: it was changed. Put the previous key back after the new one "
                                       "(comma separated, the new one first); nothing was deleted, and people are told "
                                       "the bot is being repaired until then")]
    results = [Result("Slack", True, f"OAuth installs of app {settings.slack_client_id}: {len(installations)} installation(s)"
                                     + ("" if installations else "; install it from /slack/install"), warning=not installations)]
    for installation in installations:
        results.append(await _installed(client, installation, settings))
    return results


async def _installed(client: AsyncWebClient, installation: Installation, settings: Settings) -> Result:
    org = bool(installation.is_enterprise_install)
    place = f"organisation {installation.enterprise_id}" if org else f"workspace {installation.team_id}"
    part = f"Slack {place} ({clean(installation.enterprise_name if org else installation.team_name or '')})"
    try:
        answer = await client.auth_test(token=installation.bot_token)
    except SlackApiError as error:
        code = str(error.response.get("error"))
        return Result(part, False, f"its token is refused ({code}): someone there removed the app; it can be installed "
                                   "again from /slack/install")
    except Exception as error:
        return Result(part, False, f"could not be checked: {advice.slack(error, settings)}")
    granted = {s.strip() for s in str(answer.headers.get("x-oauth-scopes", "")).split(",") if s.strip()}
    missing = sorted(REQUIRED_SCOPES - granted)
    if missing:
        return Result(part, False, f"installed without the scopes {', '.join(missing)}: reinstall it from /slack/install")
    return Result(part, True, f"bot {answer.get('user')}, every scope granted")


async def _rooms(settings: Settings, as_email: str | None, redis: aioredis.Redis) -> Result:
    needed = ("meet_api_url", "meet_client_id", "meet_client_secret")
    example = _example_address(settings)
    if settings.missing(*needed):
        return Result("room service", False, _unset(settings, *needed) + (f"; {example}" if example else ""))
    if example:
        return Result("room service", False, example)
    rooms = room_service(settings)
    try:
        await rooms.check_credentials()
        if not as_email:
            return Result("room service", True, f"application {settings.meet_client_id} accepted by "
                                                f"{advice.host_of(settings.meet_api_url)}; give --as EMAIL to check "
                                                "its scopes and a person's rooms")
        grant = await rooms.issue_token(as_email)
        granted = set((grant.scope or "").split())
        lacking = [scope for scope in ROOM_SCOPES if scope not in granted]
        if lacking:
            return Result("room service", False, f"the application {settings.meet_client_id} lacks the scope(s) "
                                                 f"{', '.join(lacking)}: ask the room service's administrator to grant "
                                                 "them (tokens already issued keep their old scopes for up to an hour)")
        page = await rooms.list_rooms(grant.access_token)
    except RoomServiceError as error:
        return Result("room service", False, advice.rooms(error, settings, as_email))
    finally:
        await rooms.aclose()
    return await _rooms_learnt(settings, redis, grant, page)


async def _rooms_learnt(settings: Settings, redis: aioredis.Redis, grant: TokenGrant, page: RoomPage) -> Result:
    """The line of a check as a person: what was learnt of their rooms, forgotten of past refusals,
    and each warning, none hiding another."""
    # the rooms' links say where people sign in (the web app, usually not the API's host): learnt now,
    # the first person the bot sends to sign in gets the right address
    tag = application_tag(settings.meet_client_id or "")
    site = RoomSite(redis, tag, "")
    await site.learn(page.results)
    granted = set((grant.scope or "").split())
    found = f"a token for that person and their {page.count} room(s); scopes {', '.join(ROOM_SCOPES)}"
    if not page.count:  # no room: nothing to learn from, and perhaps an account made just now
        found += await _without_rooms(settings, site)
    restored = await _forget_refusals(redis, tag, granted)
    if restored:
        found += (f"; the bot had been refusing what needs {', '.join(restored)} (the service refused it lately, and "
                  f"that is believed up to {SCOPE_MISSING_TTL} s): now granted, forgotten, it works again")
    buts = []  # each warning of the line, none hiding another
    unavailable = {scope: verb for scope, verb in ROOM_OPTIONAL_SCOPES.items() if scope not in granted}
    if unavailable:
        buts.append(f"the application lacks {', '.join(unavailable)}: {', '.join(unavailable.values())} will say it is "
                    "not available (grant the scope on the room service to offer it)")
    if grant.expires_in < MIN_CACHED_LIFETIME:
        buts.append(f"tokens last {grant.expires_in} s: below {MIN_CACHED_LIFETIME} s they are not cached and every "
                    "command asks for one (raise APPLICATION_JWT_EXPIRATION_SECONDS on the service)")
    if buts:
        return Result("room service", True, f"{found}; but " + "; and ".join(buts), warning=True)
    return Result("room service", True, f"{found}; tokens last {grant.expires_in} s")


async def _without_rooms(settings: Settings, site: RoomSite) -> str:
    """What checking someone with no room could not learn, and may have done."""
    if await site.origin():
        where = "the one learnt before is kept"
    elif settings.meet_room_base_url:
        where = f"people are sent to sign in at MEET_ROOM_BASE_URL ({settings.meet_room_base_url}) until a room link is seen"
    else:
        where = (f"people are sent to sign in at the API's own address ({advice.host_of(settings.meet_api_url)}) until a "
                 "room link is seen: set MEET_ROOM_BASE_URL to the web app's address, or check --as someone who has a room")
    return (f" (with no room of theirs, the bot learnt no web address: {where}; and on a room service that creates "
            "accounts (APPLICATION_ALLOW_USER_CREATION), this check made that person's account if they had none)")


async def _forget_refusals(redis: aioredis.Redis, tag: str, granted: set[str]) -> list[str]:
    """The scopes the bot's processes still believe missing (a refusal of the last few minutes)
    though the application has them now: forgotten, so commands needing them stop being refused."""
    names = {scope: key(SCOPE_MISSING, tag, scope) for scope in sorted(granted)}
    try:
        forgotten = [scope for scope, name in names.items() if await redis.delete(name)]
    except RedisError:
        return []
    return forgotten


async def _dossiers(settings: Settings, redis: aioredis.Redis) -> Result:
    refused = _operator_digest(settings)
    if refused is not None:
        return refused
    numbers = set(settings.digest_demarches)
    for subscription in await Subscriptions(redis).all():
        numbers |= set(subscription.demarches)
    service = dossier_service(settings, redis)  # its requests count in the token's shared allowance
    try:
        # with no démarche to read, number 0: it exists nowhere, and only a valid token hears so
        problems = await _unread(service, numbers or {0}, settings)
        if isinstance(problems, Result):
            return problems
        try:  # asked without changing anything (a follow of a dossier that exists nowhere)
            writes = await DossierDesk(service).may_write()
        except DossierServiceError:
            writes = None
    finally:
        await service.aclose()
    if problems:
        return Result("dossier service", False, "cannot read " + ", ".join(problems) + ": remove them from "
                      "DIGEST_DEMARCHES (or /digest unsubscribe), or use a token of an administrator of each")
    read = "the token is accepted; no démarche followed yet" if not numbers else \
        f"the token reads the {len(numbers)} configured démarche(s)"
    if writes is False:
        return Result("dossier service", True, f"{read}; it may only read: /dossier's acts (accept, message…) are refused "
                                               "until DS_API_TOKEN is a token made with read and write access", warning=True)
    return Result("dossier service", True, read + ("; it may act on dossiers (/dossier)" if writes else ""))


def _operator_digest(settings: Settings) -> Result | None:
    """What is wrong with the token and the operator's digest as configured, before any call."""
    operators = ("digest_channel", "digest_demarches")
    if settings.ds_api_token is None:
        named = " and ".join(name.upper() for name in operators if name not in settings.missing(*operators))
        return Result("dossier service", False, f"{named} set but not DS_API_TOKEN, so the digest is off: "
                                                f"{_unset(settings, 'ds_api_token')}, or unset {named}")
    half = settings.missing(*operators)
    if len(half) == 1:
        return Result("dossier service", False, f"the operator's digest is off: {_unset(settings, *half)}")
    if settings.oauth and not half:  # posted with SLACK_BOT_TOKEN's workspace: with OAuth installs there is none
        return Result("dossier service", False, "the operator's digest (DIGEST_CHANNEL, DIGEST_DEMARCHES) is never posted with "
                      "OAuth installs: it belongs to no workspace. Unset DIGEST_CHANNEL and DIGEST_DEMARCHES, and have the "
                      "channel subscribe with /digest subscribe (its workspace in DS_API_TOKEN_TEAMS)")
    return None


async def _unread(service: DossierService, numbers: set[int], settings: Settings) -> list[str] | Result:
    """The démarches the token cannot read, each with why; or the line when the token itself fails."""
    problems = []
    for number in sorted(numbers):
        try:
            await service.title(number)
        except (DemarcheNotFound, DemarcheForbidden) as error:  # this démarche; the token itself works
            if number != 0:
                problems.append(f"n° {number} ({advice.dossiers(error, settings)})")
        except DossierServiceError as error:  # the token, the address or the service: one line for all
            return Result("dossier service", False, advice.dossiers(error, settings))
    return problems


async def _inference(settings: Settings, redis: aioredis.Redis) -> Result:
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
