"""Builds the clients every command talks through, one way: `serve`, `check`, `shell`, `digest`
and `keys` get their room, dossier and inference clients here (URL, credentials, retry policy,
shared rate limit). The Slack app is built in `slack_app`, which `digest --dry-run` never loads.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import redis.asyncio as aioredis
from pydantic import SecretStr

from bot.config import Settings
from bot.inference import inference
from clients.dossiers.access import MEMBERS_TTL, DemarcheAccess
from clients.dossiers.accounts import DossierAccount, DossierAccounts, WorkspaceTokens
from clients.dossiers.counts import DossierCounter
from clients.dossiers.desk import DossierDesk
from clients.dossiers.digest_store import DigestStore
from clients.dossiers.errors import DemarcheNotFound, DossierServiceError
from clients.dossiers.previews import PREVIEW_TTL, DossierPreviews
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.service import DossierService
from clients.json_cache import JsonCache
from clients.redis_keys import digest as hashed
from domain.dossiers.digest_config import DigestConfig
from handlers.digest.job import DigestJob

if TYPE_CHECKING:
    from clients.rooms.service import RoomService
    from handlers.workspace_access import Workspaces

def room_service(settings: Settings) -> RoomService:
    # imported here: its transport (aiohttp, 0.15 s) is not for the digest's command line
    from clients.rooms.service import RoomService

    assert settings.meet_api_url and settings.meet_client_id and settings.meet_client_secret
    return RoomService(str(settings.meet_api_url), settings.meet_client_id, settings.meet_client_secret)


def dossier_service(settings: Settings, redis: aioredis.Redis, token: SecretStr | None = None) -> DossierService:
    """One allowance per token (DS_API_TOKEN's by default), shared by every process through Redis
    (named by a hash of the token)."""
    token = token or settings.ds_api_token
    assert token is not None
    limiter = RateLimiter(settings.ds_requests_per_minute, redis=redis, name=token_name(token))
    return DossierService(str(settings.ds_api_url), token, limiter=limiter)


def token_name(token: SecretStr) -> str:
    return hashed(token.get_secret_value(), 16)


def dossier_account(service: DossierService, redis: aioredis.Redis, settings: Settings, token: SecretStr | None = None, *,
                    caches: str = "") -> DossierAccount:
    """A token's clients. `caches` names a workspace token's own caches of who may read what."""
    token = token or settings.ds_api_token
    assert token is not None
    access = DemarcheAccess(service, JsonCache(redis, f"ds-members{caches}", MEMBERS_TTL))
    return DossierAccount(DossierCounter(service, redis, late_days=settings.digest_late_days), access,
                          DossierPreviews(service, JsonCache(redis, f"ds-dossier{caches}", PREVIEW_TTL), access),
                          DossierDesk(service), token_name(token))


def digest_config(settings: Settings) -> DigestConfig:
    return DigestConfig(language=settings.default_language, zone=settings.zone, at=settings.digest_time,
                        channel=settings.digest_channel, demarches=tuple(settings.digest_demarches),
                        allowed=settings.allowed_demarches, max_per_person=settings.digest_max_per_person,
                        late_days=settings.digest_late_days)


@contextlib.asynccontextmanager
async def digest_job(
    settings: Settings, redis: aioredis.Redis, workspaces: Workspaces | None, *, with_ai: bool = True
) -> AsyncIterator[DigestJob]:
    """The digest job over DS_API_TOKEN; with OAuth installs, over each workspace's token too
    (DS_API_TOKEN then optional), their clients closed with the job."""
    if not settings.oauth:
        settings.require("ds_api_token", to="to read the dossier service")
    async with contextlib.AsyncExitStack() as stack:
        operator = None
        if settings.ds_api_token is not None:
            service = dossier_service(settings, redis)
            stack.push_async_callback(service.aclose)
            operator = dossier_account(service, redis, settings)
        accounts = None
        if settings.oauth:
            async def make(token: SecretStr) -> DossierAccount:
                service = dossier_service(settings, redis, token)
                stack.push_async_callback(service.aclose)
                return dossier_account(service, redis, settings, token, caches=":" + token_name(token))

            async def probe(token: SecretStr) -> str | None:
                service = dossier_service(settings, redis, token)
                try:
                    await service.title(0)  # number 0 exists nowhere: a token that works hears "not found"
                except DemarcheNotFound:
                    return None
                except DossierServiceError as error:
                    return error.reason
                finally:
                    await service.aclose()
                return None

            accounts = DossierAccounts(WorkspaceTokens(redis, settings.secret_box), make, operator,
                                       frozenset(settings.ds_api_token_teams), probe)
        ai = await stack.enter_async_context(inference(settings, redis)) if settings.albert_api_key and with_ai else None
        yield DigestJob(digest_config(settings), DigestStore(redis), operator, workspaces, ai.service if ai else None,
                        accounts=accounts)
