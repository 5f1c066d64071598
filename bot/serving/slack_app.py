"""The Slack app: Bolt, its listeners, the shared connections to Slack; and `running()`, which
builds it with every client `serve` and the shell need, and closes them in order."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import redis.asyncio as aioredis
from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_bolt.response import BoltResponse
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.oauth.token_rotation.async_rotator import AsyncTokenRotator
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.redis_server import open_redis
from bot.scopes import ALL_SCOPES
from bot.serving.authorize import ROTATE_MINUTES, UNREADABLE, Authorize, Members, Rotation
from bot.serving.install_pages import INSTALL_PATH, REDIRECT_PATH, callbacks
from bot.serving.installations import InstallationStore
from bot.serving.listener_matching import match_on_bodies
from bot.serving.listener_tasks import ListenerTasks
from bot.serving.oauth_state import STATE_SECONDS, StateStore
from bot.serving.workspace_clients import Workspaces
from bot.wiring import digest_job, room_service
from clients.aiohttp_transport import KEEPALIVE
from clients.dossiers.choices import ChoiceStore, PersonHours
from clients.dossiers.watch import Watches
from clients.json_cache import JsonCache
from clients.meetings import Meetings
from clients.once import Once
from clients.person_erasure import PersonalData
from clients.redis_keys import application_tag
from clients.rooms.directory import RoomDirectory
from clients.rooms.levels import RoomLevels
from clients.rooms.recent import RecentRooms
from clients.rooms.service import RoomService
from clients.rooms.site import RoomSite
from clients.rooms.token_cache import TokenCache
from clients.rooms.user_rooms import LISTED_TTL, NO_ACCOUNT_TTL, SCOPE_MISSING, SCOPE_MISSING_TTL, SLUG_MISS_TTL, UserRooms
from clients.team_spaces import TeamSpaces
from domain.dossiers.accounts import WorkspaceAccounts
from handlers import ack_first, responses
from handlers.ack_first import PendingAcks
from handlers.core.meeting_changes import WeeklyMeetings
from handlers.desk.buttons import VIEW_SECONDS
from handlers.desk.daily import DailyDMs
from handlers.desk.news import Watching
from handlers.digest.job import DigestJob
from handlers.i18n import LANGUAGES, text
from handlers.listeners import register_listeners
from handlers.on_behalf import workspace_of
from handlers.profiles import PROFILE_TTL
from handlers.services import Services
from handlers.team.weekly import RosterWeek


@dataclass
class Runtime:
    app: AsyncApp
    redis: aioredis.Redis
    tasks: ListenerTasks
    http: aiohttp.ClientSession
    pending: PendingAcks
    weekly: WeeklyMeetings
    workspaces: Workspaces
    default_language: str
    digests: DigestJob | None = None
    watching: Watching | None = None  # `/dossier watch`'s rounds, with a dossier-service token
    daily: DailyDMs | None = None  # `/dossier daily`'s DMs, with a dossier-service token
    rosters: RosterWeek | None = None  # team spaces' weekly roster check, with a dossier-service token

    async def aclose(self) -> None:
        await self.http.close()


def slack_session() -> aiohttp.ClientSession:
    """One pool of kept-alive connections to Slack, for the Web API and `response_url` alike (both
    otherwise open a session, a connection and a TLS handshake per call). Idle connections close
    after 4 s, before the usual 5 s keep-alive of servers and proxies runs out under a request."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(keepalive_timeout=KEEPALIVE))


def build_app(settings: Settings, redis: aioredis.Redis, rooms: RoomService, *, digests: DigestJob | None = None) -> Runtime:
    assert settings.meet_api_url
    tasks = ListenerTasks()
    app, workspaces = oauth_app(settings, redis, tasks) if settings.oauth else single_workspace_app(settings, redis)
    http = app.client.session
    assert http is not None
    app.listener_runner.listener_start_handler = tasks
    app_tag = application_tag(settings.meet_client_id or "")
    room_site = str(settings.meet_room_base_url or _origin(str(settings.meet_api_url)))
    user_rooms = UserRooms(
        rooms,
        TokenCache(redis, application=app_tag, box=settings.secret_box),
        RoomDirectory(redis),
        application=app_tag,
        no_account=JsonCache(redis, "no-account", NO_ACCOUNT_TTL),
        slug_misses=JsonCache(redis, "slug-miss", SLUG_MISS_TTL),
        recent=RecentRooms(redis, app_tag),
        levels=RoomLevels(redis, app_tag),
        scopes_missing=JsonCache(redis, SCOPE_MISSING, SCOPE_MISSING_TTL),
        listed=JsonCache(redis, "listed", LISTED_TTL),
        site=RoomSite(redis, app_tag, room_site),
    )
    services = Services(
        rooms=user_rooms,
        profiles=JsonCache(redis, "profile", PROFILE_TTL),
        once=Once(redis),
        default_language=settings.default_language,
        room_site=room_site,
        meetings=Meetings(redis),
        reminder_minutes=settings.room_reminder_minutes,
        zone=settings.digest_timezone,
        workspaces=workspaces,
        views=JsonCache(redis, "view-origin", VIEW_SECONDS),
        watches=Watches(redis),
        watch_seconds=settings.ds_watch_seconds,
        choices=ChoiceStore(redis),
        hours=PersonHours(redis),
        personal=PersonalData(redis),
        digests=digests,
        accounts=WorkspaceAccounts(digests.operator, digests.accounts, workspaces.enterprise_of) if digests else WorkspaceAccounts(None),
        dossier_site=_origin(str(settings.ds_api_url)),
        team_spaces=TeamSpaces(redis),
    )
    register_listeners(app, services, digests)
    responses.register(app, http)
    pending = PendingAcks()
    ack_first.register(app, pending)
    match_on_bodies(app)
    return Runtime(app=app, redis=redis, tasks=tasks, http=http, pending=pending, weekly=WeeklyMeetings(services, workspaces),
                   workspaces=workspaces, default_language=settings.default_language, digests=digests,
                   watching=Watching(services, settings.ds_watch_seconds) if digests is not None else None,
                   daily=DailyDMs(services) if digests is not None else None,
                   rosters=RosterWeek(services) if digests is not None else None)


# Signatures are checked on the raw bytes by the HTTP endpoint, before anything is parsed
# (bot.serving.slack_endpoint); Socket Mode has none to check. A name given spares Bolt an inspect.stack()
# that took 0.15 s of the start.

def single_workspace_app(settings: Settings, redis: aioredis.Redis) -> tuple[AsyncApp, Workspaces]:
    """SLACK_BOT_TOKEN: one workspace, one token."""
    assert settings.slack_bot_token is not None
    with _bolt_blind_to_oauth_variables():
        app = AsyncApp(name="roombot", token=settings.slack_bot_token.get_secret_value(), request_verification_enabled=False)
    # Bolt builds its client from the token (handing it one of ours makes it warn at every start
    # when SLACK_BOT_TOKEN is in the environment); per-request clients copy its settings.
    configure_slack_client(app.client, settings)
    app.client.session = slack_session()  # per-request clients take it from here
    return app, Workspaces(app.client, redis=redis)


BOLT_OAUTH_VARIABLES = ("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_SCOPES", "SLACK_USER_SCOPES", "SLACK_REDIRECT_URI",
                        "SLACK_INSTALL_PATH", "SLACK_REDIRECT_URI_PATH")


@contextlib.contextmanager
def _bolt_blind_to_oauth_variables() -> Iterator[None]:
    """Bolt reads Slack's variables from the environment behind the configuration's back: it turns
    itself into an OAuth app, with a file store, whenever SLACK_CLIENT_ID and SLACK_CLIENT_SECRET
    are there — also beside SLACK_BOT_TOKEN, which then goes unused and every request is refused —
    and takes SLACK_REDIRECT_URI, SLACK_USER_SCOPES and the like into its OAuth settings. Only
    what `Settings` validated counts: Bolt does not see them while it is built."""
    saved = {name: os.environ.pop(name) for name in BOLT_OAUTH_VARIABLES if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


def oauth_app(settings: Settings, redis: aioredis.Redis, tasks: ListenerTasks) -> tuple[AsyncApp, Workspaces]:
    """SLACK_CLIENT_ID and SLACK_CLIENT_SECRET: installed by OAuth into any number of workspaces and
    organisations, each request authorized with its own workspace's token."""
    assert settings.slack_client_id and settings.slack_client_secret
    secret = settings.slack_client_secret.get_secret_value()
    client = configure_slack_client(AsyncWebClient(), settings)
    client.session = slack_session()
    store = InstallationStore(redis, settings.secret_box)
    rotation = Rotation(redis, store, AsyncTokenRotator(client_id=settings.slack_client_id, client_secret=secret, client=client))
    members = Members(store, client, tasks.start)
    authorize = Authorize(store, rotation, members)
    with _bolt_blind_to_oauth_variables():  # SLACK_REDIRECT_URI, SLACK_USER_SCOPES… are not this bot's settings
        oauth = AsyncOAuthSettings(
            client_id=settings.slack_client_id, client_secret=secret, scopes=sorted(ALL_SCOPES), user_scopes=[],
            install_path=INSTALL_PATH, redirect_uri_path=REDIRECT_PATH, install_page_rendering_enabled=False,
            installation_store=store, state_store=StateStore(redis, secret), state_expiration_seconds=STATE_SECONDS,
            callback_options=callbacks(settings.default_language, members), token_rotation_expiration_minutes=ROTATE_MINUTES,
        )
        # an AsyncAuthorize instance is used as it is (Bolt's annotation names only functions)
        app = AsyncApp(name="roombot", client=client, oauth_settings=oauth, installation_store=store, authorize=authorize,  # type: ignore[arg-type]
                       request_verification_enabled=False, user_facing_authorize_error_message=_in_every_language(settings, "install.gone"),
                       before_authorize=_organisation_workspace)
    app.middleware(_repairing(_in_every_language(settings, "install.repairing")))
    return app, Workspaces(client, store, rotation, redis, members)


async def _organisation_workspace(context: AsyncBoltContext, body: dict[str, Any], next: Callable[[], Awaitable[None]]) -> None:
    """An organisation's events carry their grant with a null team (`authorizations[0]`), so Bolt
    knows no workspace and its client names none, which Slack refuses with an organisation's
    token: the workspace is where the event happened (the top-level `team_id`)."""
    if context.is_enterprise_install and not context.team_id:
        workspace = workspace_of(body)
        if workspace:
            context["team_id"] = workspace
            context.client.default_params["team_id"] = workspace
    await next()


def _in_every_language(settings: Settings, name: str) -> str:
    """A text said before anyone's language is known: the deployment's first, then the others."""
    return " / ".join(text(lang, name) for lang in dict.fromkeys((settings.default_language, *LANGUAGES)))


def _repairing(said: str) -> Callable[..., Awaitable[BoltResponse | None]]:
    """A request from a place whose installation no key of TOKEN_ENCRYPTION_KEY opens: the person
    hears that the bot is being repaired (not that the app is gone), and nothing runs or is deleted."""

    async def middleware(context: AsyncBoltContext, body: dict[str, Any], next: Callable[[], Awaitable[None]]) -> BoltResponse | None:
        if not context.get(UNREADABLE):
            await next()
            return None
        if body.get("command"):
            return BoltResponse(status=200, body={"response_type": "ephemeral", "text": said})
        if context.response_url and context.respond is not None:
            await context.respond(text=said, response_type="ephemeral", replace_original=False)
        return BoltResponse(status=200, body="")

    return middleware


def configure_slack_client(client: AsyncWebClient, settings: Settings) -> AsyncWebClient:
    """SLACK_API_URL, and retries on connection errors and on 429 after Retry-After."""
    client.base_url = str(settings.slack_api_url)
    client.retry_handlers = [
        AsyncConnectionErrorRetryHandler(max_retry_count=2),
        AsyncRateLimitErrorRetryHandler(max_retry_count=3),
    ]
    return client


def slack_client(settings: Settings) -> AsyncWebClient:
    assert settings.slack_bot_token is not None
    return configure_slack_client(AsyncWebClient(token=settings.slack_bot_token.get_secret_value()), settings)


@contextlib.asynccontextmanager
async def running(settings: Settings, command: str = "serve") -> AsyncIterator[Runtime]:
    """Redis (embedded when no URL is set) and `running_on` it, closed on exit."""
    settings.require_for(command)
    async with open_redis(settings) as redis, running_on(settings, redis) as runtime:
        yield runtime


@contextlib.asynccontextmanager
async def running_on(settings: Settings, redis: aioredis.Redis) -> AsyncIterator[Runtime]:
    """The room service client, the digest job (with a dossier-service token) and the app, over a
    Redis already open (`serve` opens it before it listens), closed on exit."""
    async with contextlib.AsyncExitStack() as stack:
        rooms = room_service(settings)
        stack.push_async_callback(rooms.aclose)
        with_digests = settings.ds_api_token is not None or settings.oauth  # OAuth: workspaces may bring their own token
        digests = await stack.enter_async_context(digest_job(settings, redis, None)) if with_digests else None
        runtime = build_app(settings, redis, rooms, digests=digests)
        stack.push_async_callback(runtime.aclose)
        if digests is not None:
            digests.workspaces = runtime.workspaces  # posts with each workspace's own client
        yield runtime


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
