"""Builds the clients every command talks through, one way: `serve`, `check`, `shell`, `digest`
and `keys` get their room, dossier and inference clients here (URL, credentials, retry policy,
shared rate limit). The Slack app is built in `slack_app`, which `digest --dry-run` never loads.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import redis.asyncio as aioredis

from bot.config import Settings
from bot.inference import inference
from clients.dossiers.access import MEMBERS_TTL, DemarcheAccess
from clients.dossiers.counts import DossierCounter
from clients.dossiers.digest_store import DigestStore
from clients.dossiers.previews import PREVIEW_TTL, DossierPreviews
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.service import DossierService
from clients.json_cache import JsonCache
from clients.redis_keys import digest as hashed
from clients.rooms.service import RoomService
from handlers.digest.job import DigestConfig, DigestJob

if TYPE_CHECKING:
    from handlers.workspaces import Workspaces

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
                        allowed=settings.allowed_demarches, max_per_person=settings.digest_max_per_person,
                        late_days=settings.digest_late_days)


@contextlib.asynccontextmanager
async def digest_job(
    settings: Settings, redis: aioredis.Redis, workspaces: Workspaces | None, *, with_ai: bool = True
) -> AsyncIterator[DigestJob]:
    settings.require("ds_api_token", to="to read the dossier service")
    service = dossier_service(settings, redis)
    async with contextlib.AsyncExitStack() as stack:
        stack.push_async_callback(service.aclose)
        ai = await stack.enter_async_context(inference(settings, redis)) if settings.albert_api_key and with_ai else None
        access = DemarcheAccess(service, JsonCache(redis, "ds-members", MEMBERS_TTL))
        counter = DossierCounter(service, redis, late_days=settings.digest_late_days)
        previews = DossierPreviews(service, JsonCache(redis, "ds-dossier", PREVIEW_TTL), access)
        yield DigestJob(digest_config(settings), DigestStore(redis), counter, workspaces, access, ai.service if ai else None, previews)
