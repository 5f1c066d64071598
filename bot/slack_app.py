"""The Slack app: Bolt, its listeners, the shared connections to Slack; and `running()`, which
builds it with every client `serve` and the shell need, and closes them in order."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiohttp
import redis.asyncio as aioredis
from slack_bolt.async_app import AsyncApp
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.listener_tasks import ListenerTasks
from bot.redis_server import open_redis
from bot.wiring import digest_job, room_service
from clients.aiohttp_transport import KEEPALIVE
from clients.json_cache import JsonCache
from clients.meetings import Meetings
from clients.once import Once
from clients.redis_keys import application_tag
from clients.rooms.directory import RoomDirectory
from clients.rooms.levels import RoomLevels
from clients.rooms.recent import RecentRooms
from clients.rooms.service import RoomService
from clients.rooms.site import RoomSite
from clients.rooms.token_cache import TokenCache
from clients.rooms.user_rooms import LISTED_TTL, NO_ACCOUNT_TTL, SCOPE_MISSING_TTL, SLUG_MISS_TTL, UserRooms
from handlers import ack_first, responses
from handlers.ack_first import PendingAcks
from handlers.digest.job import DigestJob
from handlers.listeners import register_listeners
from handlers.planned.changes import WeeklyMeetings
from handlers.profiles import PROFILE_TTL
from handlers.services import Services


@dataclass
class Runtime:
    app: AsyncApp
    redis: aioredis.Redis
    tasks: ListenerTasks
    http: aiohttp.ClientSession
    pending: PendingAcks
    weekly: WeeklyMeetings
    digests: DigestJob | None = None

    async def aclose(self) -> None:
        await self.http.close()


def slack_session() -> aiohttp.ClientSession:
    """One pool of kept-alive connections to Slack, for the Web API and `response_url` alike (both
    otherwise open a session, a connection and a TLS handshake per call). Idle connections close
    after 4 s, before the usual 5 s keep-alive of servers and proxies runs out under a request."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(keepalive_timeout=KEEPALIVE))


def build_app(settings: Settings, redis: aioredis.Redis, rooms: RoomService, *, digests: DigestJob | None = None) -> Runtime:
    assert settings.slack_bot_token and settings.meet_api_url
    # Signatures are checked on the raw bytes by the HTTP endpoint, before anything is parsed
    # (bot.slack_endpoint); Socket Mode has none to check.
    # a name given spares Bolt an inspect.stack() that took 0.15 s of the start
    app = AsyncApp(name="roombot", token=settings.slack_bot_token.get_secret_value(), request_verification_enabled=False)
    # Bolt builds its client from the token (handing it one of ours makes it warn at every start
    # when SLACK_BOT_TOKEN is in the environment); per-request clients copy its settings.
    configure_slack_client(app.client, settings)
    http = app.client.session = slack_session()  # per-request clients take it from here
    tasks = ListenerTasks()
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
        scopes_missing=JsonCache(redis, "scope-missing", SCOPE_MISSING_TTL),
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
        digests=digests,
        dossier_host=urlsplit(str(settings.ds_api_url)).hostname,
    )
    register_listeners(app, services)
    responses.register(app, http)
    pending = PendingAcks()
    ack_first.register(app, pending)
    return Runtime(app=app, redis=redis, tasks=tasks, http=http, pending=pending, weekly=WeeklyMeetings(services, app.client),
                   digests=digests)


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
async def running(settings: Settings) -> AsyncIterator[Runtime]:
    """Redis (embedded when no URL is set), the room service client, the digest job (with a
    dossier-service token) and the app, closed on exit."""
    settings.require_for("serve")
    async with open_redis(settings) as redis, contextlib.AsyncExitStack() as stack:
        rooms = room_service(settings)
        stack.push_async_callback(rooms.aclose)
        digests = await stack.enter_async_context(digest_job(settings, redis, None)) if settings.ds_api_token else None
        runtime = build_app(settings, redis, rooms, digests=digests)
        stack.push_async_callback(runtime.aclose)
        if digests is not None:
            digests.slack = runtime.app.client  # posts with the app's own client
        yield runtime


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
