"""What an operator reads when a service refuses: what happened and the setting to change, or
who to ask — in words, never an exception's class name.

`check`, `keys`, `digest` and the command line's own failures all speak through these, so one
refusal reads the same wherever it is met.
"""

from __future__ import annotations

import asyncio
import re
from urllib.parse import urlsplit

import redis.exceptions

from bot.config import Settings
from clients.dossiers import errors as dossier_errors
from clients.inference import errors as inference_errors
from clients.rooms import errors as room_errors

_ADD_NETWORK = re.compile(r"Add (\S+) to")
_NEW_TOKEN = ("make a new token in the administrator profile, declare there every address the deployment leaves from "
              "before its first call (else the first caller's address alone is allowed), and set DS_API_TOKEN")


def host_of(url: object) -> str:
    return urlsplit(str(url)).netloc or str(url)


def rooms(error: room_errors.RoomServiceError, settings: Settings, email: str | None = None) -> str:
    host = host_of(settings.meet_api_url)
    said = _room_application(error, settings)
    if said is not None:
        return said
    match error:
        case room_errors.AccountNotFound():
            return f"the room service has no account for {email}: that person must sign in there once"
        case room_errors.EmailDomainNotAllowed():
            domain = (email or "").rpartition("@")[2]
            return f"the application may not act for addresses of {domain}: its administrator lists the allowed domains"
        case room_errors.EmailRejected():
            return f"the room service does not take {email!r} as an e-mail address"
        case room_errors.AccountDisabled():
            return f"the account of {email} is disabled on the room service: ask its administrator"
        case room_errors.ServiceUnreachable():
            return f"cannot reach {host}: check MEET_API_URL and the network"
        case room_errors.ServiceTimeout():
            return f"{host} did not answer in time: check MEET_API_URL and the network, or try again later"
        case room_errors.ServiceUnavailable():
            return f"the room service at {host} is failing ({error.detail}): try again later, or ask its administrator"
        case room_errors.ScopeMissing(scope=scope):
            return f"the application lacks the scope {scope}: ask the room service's administrator to grant it"
    return f"the room service refused: {error.detail}"


def _room_application(error: room_errors.RoomServiceError, settings: Settings) -> str | None:
    """The room service's refusals of the application itself, or of where MEET_API_URL points."""
    url = str(settings.meet_api_url)
    match error:
        case room_errors.ApplicationInactive():
            return (f"the application {settings.meet_client_id} is inactive on the room service: ask its administrator "
                    "to activate it (Django admin → Applications)")
        case room_errors.AppCredentialsRejected():
            return (f"the room service knows no application with this MEET_CLIENT_ID ({settings.meet_client_id}) and "
                    "MEET_CLIENT_SECRET: copy both again from the application the administrator made")
        case room_errors.NoExternalApi():
            return (f"no external API at {url}: MEET_API_URL must end in /external-api/v1.0, and the service must run "
                    "with EXTERNAL_API_ENABLED=True")
        case room_errors.ApplicationsOff():
            return "the room service runs with APPLICATION_ENABLED=False: ask its administrator to turn applications on"
        case room_errors.Redirected(location=location):
            return f"MEET_API_URL is redirected to {location}: set the API's own address, ending in /external-api/v1.0"
        case room_errors.NotOffered():
            return f"{host_of(settings.meet_api_url)} has no such call ({_short(str(error))}): this room service does not offer it"
    return None


def dossiers(error: dossier_errors.DossierServiceError, settings: Settings) -> str:
    host = host_of(settings.ds_api_url)
    match error:
        case dossier_errors.TokenExpired():
            return ("DS_API_TOKEN has expired (the service knows it, so it is not revoked; it is refused from the day "
                    f"after its expiry date): {_NEW_TOKEN}, for a year at most, and note its date (the service shows "
                    "it in the profile only)")
        case dossier_errors.ForbiddenNetwork():
            found = _ADD_NETWORK.search(error.detail)
            address = f" ({found.group(1)})" if found else ""
            return (f"the dossier service refuses DS_API_TOKEN from this machine's address{address}: the token is valid "
                    "but allows other networks only (a token made since July 2026 without declared networks is locked "
                    "to the address of its first call). In the administrator profile, add to the token's networks "
                    "every address the deployment leaves from (a cluster's pods may leave from several: each node or "
                    "NAT address, IPv4 and IPv6), not this one alone")
        case dossier_errors.BadToken():
            return ("DS_API_TOKEN is unknown to the dossier service (revoked, mistyped or of an old version; an expired "
                    f"token would be said so): {_NEW_TOKEN}")
        case dossier_errors.Redirected():
            return f"DS_API_URL is redirected ({error.detail}): set the API's own address, ending in /api/v2/graphql"
        case dossier_errors.DossierServiceUnreachable():
            return f"cannot reach {host}: check DS_API_URL and the network"
        case dossier_errors.Unreadable():
            return f"{host} sent an answer the bot will not read ({error.detail}): check DS_API_URL"
        case dossier_errors.EndlessWalk():
            return f"{host} kept sending pages ({error.detail}); counting was stopped: check DS_API_URL"
        case dossier_errors.DossierServiceUnavailable():
            return f"the dossier service at {host} is unavailable ({error.detail}): try again later"
        case dossier_errors.QueryTooCostly(operation=operation):
            return (f"the dossier service refuses the bot's {operation} request as too costly ({error.detail}): "
                    "nothing was read. No setting fixes it: it is a bug of the bot's, report it with this line "
                    "(a GRAPHQL_MAX_COMPLEXITY raised on a service you run lets it through meanwhile)")
        case dossier_errors.QueryRejected():
            return f"the dossier service refused the bot's query ({error.detail}): check DS_API_URL"
        case dossier_errors.DemarcheNotFound():
            return "there is no démarche with this number"
        case dossier_errors.DemarcheForbidden():
            return "the token may not read it"
    return f"the dossier service refused: {error.detail}"


def inference(error: inference_errors.InferenceError, settings: Settings) -> str:
    url = str(settings.albert_api_url)
    if url.rstrip("/").endswith("/v1"):  # the OpenAI SDK's habit: the bot adds /v1/… itself
        return (f"ALBERT_API_URL ends in /v1 ({url}): drop it, the bot adds /v1/… to each route itself "
                f"(ALBERT_API_URL={url.rstrip('/').removesuffix('/v1')})")
    match error:
        case inference_errors.Redirected(location=location, base=base):
            return (f"ALBERT_API_URL is redirected ({error.detail.split(' ')[0]}) to {location}: the gateway moved; "
                    f"set ALBERT_API_URL={base} (its base address, without the route)")
        case inference_errors.InferenceUnreachable():
            return f"cannot reach the inference service at {url}: check ALBERT_API_URL and the network"
        case inference_errors.ModelUnreachable():
            return f"the inference service answered but cannot reach its model ({_short(error.detail)}): try again later"
        case inference_errors.RateLimited():
            return f"the inference service is rate limiting this key ({error.detail}): try again in a minute"
        case inference_errors.QuotaExhausted():
            return f"this key has used its daily quota ({error.detail}): it comes back tomorrow"
        case inference_errors.NotAUserKey():
            return ("ALBERT_API_KEY is the service's master key (the key routes answer 'User not found.'): it owns "
                    "no API keys. Create a user and a key for the bot, and set ALBERT_API_KEY to that key")
        case inference_errors.AccountRefused():
            return ("the inference service refuses the bot's key and ALBERT_API_KEY alike: the account itself is refused "
                    "(expired or disabled). Ask the gateway's administrators; no key of the bot's, nor a new one, can fix "
                    "it, and the bot's key is kept for when the account comes back")
        case inference_errors.KeyRejected():
            return (f"the inference service refuses ALBERT_API_KEY ({error.detail}): it is unknown, revoked or expired; "
                    "set ALBERT_API_KEY to a working key of the account (when every key of it is refused, the account "
                    "itself is: ask the gateway's administrators)")
        case inference_errors.NoSuchRoute():
            return (f"{url} answers {error.detail} on the inference service's routes: set ALBERT_API_URL to the "
                    "gateway's address (the one its /v1/models answers under)")
        case inference_errors.ModelNotFound():
            return f"the inference service has no model {settings.albert_model!r}: set ALBERT_MODEL to one it lists"
        case inference_errors.ModelForbidden():
            return (f"the key may not use the model {settings.albert_model!r} (its role has no limit for it): ask the "
                    "gateway's administrator, or set ALBERT_MODEL to a model the key may use")
        case inference_errors.InferenceUnavailable():
            return f"the inference service is unavailable ({_short(error.detail)}): try again later"
    return f"the inference service refused: {error.detail}"


def redis_problem(error: BaseException, settings: Settings) -> str:
    """Redis's refusal in words; the URL may hold a password, so the variable is named, never its value."""
    where = settings.redis_settings
    match error:
        case redis.exceptions.AuthenticationError():
            return f"Redis refuses the password: check the password in {where}"
        case redis.exceptions.TimeoutError() | asyncio.TimeoutError():
            return f"Redis does not answer in time: check {where} and that the server runs"
        case redis.exceptions.ConnectionError():
            return f"cannot connect to Redis: check {where} and that the server runs"
        case redis.exceptions.ResponseError():
            return f"Redis refused a command ({_short(str(error))}): check {where} (a read-only replica?)"
    return f"Redis does not answer: check {where} and that the server runs"


def redis_outage(error: BaseException, settings: Settings) -> str | None:
    """Redis gone or silent, in words; None for any other fault (a bug to log whole)."""
    if isinstance(error, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError | asyncio.TimeoutError):
        return redis_problem(error, settings)
    return None


def slack(error: BaseException, settings: Settings) -> str:
    from slack_sdk.errors import SlackApiError  # here: the digest's dry run never talks to Slack

    if isinstance(error, SlackApiError):
        code = error.response.get("error")
        if code in ("invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"):
            return (f"Slack refuses SLACK_BOT_TOKEN ({code}): copy the Bot User OAuth Token again from the app's "
                    "OAuth & Permissions page (reinstall the app if it was removed)")
        return f"Slack refused the call ({code})"
    return f"cannot reach Slack at {host_of(settings.slack_api_url)}: check SLACK_API_URL and the network"


def _short(detail: str, most: int = 120) -> str:
    detail = " ".join(detail.split())
    return detail if len(detail) <= most else detail[: most - 1] + "…"
