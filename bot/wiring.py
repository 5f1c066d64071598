"""Builds the Slack app and the clients it talks through, and closes them in order.

Every command builds its clients here — `serve`, `check`, `shell`, `digest`, `keys` — so a client
is configured one way (its URL, credentials, retry policy, shared rate limit) wherever it is used.
"""

from __future__ import annotations

import contextlib
import logging
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
from bot.inference import inference
from bot.listener_tasks import ListenerTasks
from bot.redis_server import open_redis
from clients.dossiers.access import MEMBERS_TTL, DemarcheAccess
from clients.dossiers.counts import DossierCounter
from clients.dossiers.digest_store import DigestStore
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.service import DossierService
from clients.http_pools import KEEPALIVE
from clients.json_cache import JsonCache
from clients.once import Once
from clients.redis_keys import application_tag
from clients.redis_keys import digest as hashed
from clients.rooms.directory import RoomDirectory
from clients.rooms.levels import RoomLevels
from clients.rooms.recent import RecentRooms
from clients.rooms.service import RoomService
from clients.rooms.site import RoomSite
from clients.rooms.token_cache import TokenCache
from clients.rooms.user_rooms import LISTED_TTL, NO_ACCOUNT_TTL, SCOPE_MISSING_TTL, SLUG_MISS_TTL, UserRooms
from handlers import ack_first, responses
from handlers.ack_first import PendingAcks
from handlers.digest.job import DigestConfig, DigestJob
from handlers.listeners import register_listeners
from handlers.profiles import PROFILE_TTL
from handlers.services import Services

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    app: AsyncApp
    redis: aioredis.Redis
    tasks: ListenerTasks
    http: aiohttp.ClientSession
    pending: PendingAcks
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
        digests=digests,
    )
    register_listeners(app, services)
    responses.register(app, http)
    pending = PendingAcks()
    ack_first.register(app, pending)
    return Runtime(app=app, redis=redis, tasks=tasks, http=http, pending=pending, digests=digests)


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


def room_service(settings: Settings) -> RoomService:
    assert settings.meet_api_url and settings.meet_client_id and settings.meet_client_secret
    return RoomService(str(settings.meet_api_url), settings.meet_client_id, settings.meet_client_secret)


def dossier_service(settings: Settings, redis: aioredis.Redis) -> DossierService:
    """One allowance per token, shared by every process through Redis (named by a hash of the token)."""
    assert settings.ds_api_token is not None
    limiter = RateLimiter(settings.ds_requests_per_minute, redis=redis, name=hashed(settings.ds_api_token.get_secret_value(), 16))
    return DossierService(str(settings.ds_api_url), settings.ds_api_token, limiter=limiter)


def digest_config(settings: Settings) -> DigestConfig:
    return DigestConfig(language=settings.default_language, zone=settings.zone, at=settings.digest_time,
                        channel=settings.digest_channel, demarches=tuple(settings.digest_demarches),
                        allowed=settings.allowed_demarches, max_per_person=settings.digest_max_per_person)


@contextlib.asynccontextmanager
async def digest_job(
    settings: Settings, redis: aioredis.Redis, slack: AsyncWebClient | None, *, with_ai: bool = True
) -> AsyncIterator[DigestJob]:
    settings.require("ds_api_token", to="to read the dossier service")
    service = dossier_service(settings, redis)
    async with contextlib.AsyncExitStack() as stack:
        stack.push_async_callback(service.aclose)
        ai = await stack.enter_async_context(inference(settings, redis)) if settings.albert_api_key and with_ai else None
        access = DemarcheAccess(service, JsonCache(redis, "ds-members", MEMBERS_TTL))
        yield DigestJob(digest_config(settings), DigestStore(redis), DossierCounter(service, redis), slack, access,
                        ai.service if ai else None)


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
