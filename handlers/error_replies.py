"""The one place where errors become people's words: every failure a person can meet (the room
service's and the dossier service's typed errors, Slack's profile refusals, Redis) becomes a short
message in their language and a metrics outcome. Operators' words are bot/operator_advice.py's.

People read what happened and what to do; the details an operator needs (the service's own
words, the stack) go to the log under a short reference the person can quote.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass

import redis.exceptions
from prometheus_client import Counter

from clients.dossiers import errors as dossier_errors
from clients.rooms import errors
from handlers.i18n import Mrkdwn, quoted, text
from handlers.profiles import ProfileProblem

log = logging.getLogger(__name__)

#: the service's own id of a room (a UUID), which a person never sees nor types

COMMANDS = Counter(
    "roombot_commands_total",
    "Slack commands and actions handled, by name and outcome.",
    ["command", "outcome"],
)


@dataclass(frozen=True)
class Explained:
    outcome: str  # user_error | config_error | upstream_error | internal_error
    message: str


def explain(error: BaseException, lang: str, *, email: str | None, site: str, on_home: bool = False) -> Explained:
    """The message for `error`; on the Home tab the way out is its menu, not a command."""

    def say(outcome: str, key: str, **params: object) -> Explained:
        return Explained(outcome, text(lang, key, **params))

    said = _account_error(error, say, email, site) or _room_error(error, say, on_home)
    if said is not None:
        return said
    match error:
        case ProfileProblem(key=key):
            return say("upstream_error" if key == "error.profile_unavailable" else "user_error", key)
        case redis.exceptions.RedisError():  # only what cannot work without it gets here (shares)
            return say("upstream_error", "error.store_unavailable")
        case dossier_errors.DossierConfigError():
            return Explained("config_error", dossier_refusal(lang, error, 0))
        case dossier_errors.DossierServiceUnavailable():
            return Explained("upstream_error", dossier_refusal(lang, error, 0))
    reference = _reference()
    log.exception("unexpected failure [ref %s]", reference, exc_info=error)
    return say("internal_error", "error.internal", ref=reference)


_Say = Callable[..., Explained]


def _account_error(error: BaseException, say: _Say, email: str | None, site: str) -> Explained | None:
    """The room service's refusals of the person's account, or of the application acting for them."""
    match error:
        case errors.AccountNotFound():
            return say("user_error", "error.account_not_found", email=email, service=Mrkdwn(f"<{site}|{site}>"))
        case errors.EmailRejected():
            return say("user_error", "error.email_rejected", email=email)
        case errors.EmailDomainNotAllowed():
            return say("user_error", "error.domain_not_allowed", domain=(email or "").rpartition("@")[2].lower())
        case errors.AccountDisabled():
            return say("user_error", "error.account_disabled", service=Mrkdwn(f"<{site}|{site}>"))
        case errors.ScopeMissing(scope=scope):
            log.error("room service application lacks a scope: %s", error.detail)
            return say("config_error", "error.scope_missing", scope=scope or "rooms:*")
        case errors.Misconfigured():
            reference = _reference()
            log.error("room service misconfiguration [ref %s]: %s", reference, error)
            return say("config_error", "error.misconfigured", ref=reference)
        case errors.TokenRejected():
            log.warning("room service refused a fresh delegated token: %s", error.detail)
            return say("upstream_error", "error.token_rejected")
    return None


def _room_error(error: BaseException, say: _Say, on_home: bool) -> Explained | None:
    """The room service's refusals of what was asked of a room, and its failures."""
    match error:
        case errors.PublicRoomsDisabled():
            return say("user_error", "error.public_disabled_home" if on_home else "error.public_disabled")
        case errors.RoomRejected():
            return say("user_error", "error.room_rejected", reason=error.detail)
        case errors.NotOffered():
            return say("user_error", "error.not_offered")
        case errors.NotYourRoom():
            return say("user_error", "error.not_your_room")
        case errors.PageNotFound(page=page):
            return say("user_error", "error.page_not_found", page=page)
        case errors.RoomGone():  # a button's id: the person never typed it, so it is not repeated
            return say("user_error", "error.room_gone")
        case errors.RoomNotFound(ref=ref):
            return say("user_error", "error.room_not_found", ref=quoted(ref))
        case errors.ServiceTimeout() | redis.exceptions.LockError():
            return say("upstream_error", "error.timeout")
        case errors.ServiceUnavailable():
            log.warning("room service unavailable: %s", error.detail)
            return say("upstream_error", "error.unavailable")
    return None


def dossier_refusal(lang: str, error: dossier_errors.DossierServiceError, number: int) -> str:
    """The dossier service's refusal of a look-up or an act on dossier `number`: what happened, and what to do."""
    e = dossier_errors
    if (edited := _edit_refused(lang, error, number)) is not None:
        return edited
    match error:
        case e.ReadOnlyToken():
            return text(lang, "desk.read_only")
        case e.NotInstructeur():
            return text(lang, "desk.not_instructeur", number=number)
        case e.AnnotationsMissing():
            return text(lang, "desk.annotations", number=number)
        case e.CorrectionPending():
            return text(lang, "desk.correction_pending", number=number)
        case e.MessagingClosed():
            return text(lang, "desk.messaging_closed", number=number)
        case e.SiretIncomplete():
            return text(lang, "desk.siret", number=number)
        case e.ApplicantGone() | e.NotArchivable() | e.CorrectionNotCancellable() | e.MessageNotDeletable() | e.UploadRefused():
            return text(lang, f"desk.{error.reason}", number=number)
        case e.ActRefused(said=said):
            return text(lang, "desk.refused", said=quoted(said, 200))
        case e.DemarcheNotFound() | e.DemarcheForbidden():
            return text(lang, "desk.not_seen", number=number)
        case e.OverShare():
            return text(lang, "desk.no_room")
        case e.DossierConfigError():
            log.error("the dossier service refuses the bot's token (%s): %s", error.reason, error)
            return text(lang, "desk.token_refused", reason=dossier_reason(lang, error))
    return text(lang, "desk.unavailable")


def _edit_refused(lang: str, error: dossier_errors.DossierServiceError, number: int) -> str | None:
    """The refusals of a label, a group or annotations (issue 44)."""
    e = dossier_errors
    match error:
        case e.NotOfDemarche():
            return text(lang, "desk.not_of_demarche", number=number)
        case e.AlreadySo(said=said):
            return text(lang, "desk.already_so", number=number, said=quoted(said, 200))
        case e.AnnotationsRefused(saved=saved, unsaved=unsaved, said=said):
            return text(lang, "desk.annotations_partly" if saved else "desk.annotations_refused", number=number,
                        saved=", ".join(f"« {name} »" for name in saved), unsaved=", ".join(f"« {name} »" for name in unsaved),
                        said=quoted(said, 300))
    return None


def dossier_reason(lang: str, error: dossier_errors.DossierServiceError) -> str:
    """Why the dossier service could not be read, in a few words (`digest.reason.*`), for a sentence of its own."""
    return text(lang, f"digest.reason.{error.reason}")


def _reference() -> str:
    return secrets.token_hex(4)
