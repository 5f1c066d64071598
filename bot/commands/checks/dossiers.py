"""The dossier service's line of `check`: the token, each démarche followed, and whether it may act.

Every démarche the digests follow (DIGEST_DEMARCHES and the channels' subscriptions) is read
once, so a démarche the token cannot read is named before a digest goes out without it; whether
the token may write is asked without changing anything, so /dossier's acts are not found refused
by the first instructeur who tries.
"""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bot import operator_advice as advice
from bot.commands.checks.result import Result, unset
from bot.config import Settings
from bot.wiring import dossier_service
from clients.dossiers.desk import DossierDesk
from clients.dossiers.errors import DemarcheForbidden, DemarcheNotFound, DossierServiceError
from clients.dossiers.service import DossierService
from clients.dossiers.subscriptions import Subscriptions


async def check_dossiers(settings: Settings, redis: aioredis.Redis) -> Result:
    refused = _operator_digest(settings)
    if refused is not None:
        return refused
    numbers = set(settings.digest_demarches)
    try:
        subscriptions = await Subscriptions(redis).all()
    except RedisError:  # Redis's own line says why and what to set; DIGEST_DEMARCHES are still read
        subscriptions, unread = [], "; the channels' subscriptions not read (Redis is out of reach: see its line)"
    else:
        unread = ""
    for subscription in subscriptions:
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
    read += unread
    if writes is False:
        return Result("dossier service", True, f"{read}; it may only read: /dossier's acts (accept, message…) are refused "
                                               "until DS_API_TOKEN is a token made with read and write access", warning=True)
    return Result("dossier service", True, read + ("; it may act on dossiers (/dossier)" if writes else ""),
                  warning=bool(unread))


def _operator_digest(settings: Settings) -> Result | None:
    """What is wrong with the token and the operator's digest as configured, before any call."""
    operators = ("digest_channel", "digest_demarches")
    if settings.ds_api_token is None:
        named = " and ".join(name.upper() for name in operators if name not in settings.missing(*operators))
        return Result("dossier service", False, f"{named} set but not DS_API_TOKEN, so the digest is off: "
                                                f"{unset(settings, 'ds_api_token')}, or unset {named}")
    half = settings.missing(*operators)
    if len(half) == 1:
        return Result("dossier service", False, f"the operator's digest is off: {unset(settings, *half)}")
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
