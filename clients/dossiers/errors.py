"""How the dossier service refuses, by cause; what an operator reads is chosen by type."""

from __future__ import annotations

from clients.errors import ServiceError


class DossierServiceError(ServiceError):
    """Any refusal of this service. `reason` names the `digest.reason.*` text the digest shows."""

    reason = "unavailable"


class DossierConfigError(DossierServiceError):
    """Only the operator can fix it; retrying does not help."""


class TokenExpired(DossierConfigError):
    """401 `Token expired`: a token the service knows, past its expiry date (a year at most since
    2026): create a new one in the administrator profile."""

    reason = "token_expired"


class ForbiddenNetwork(DossierConfigError):
    """403 `Request issued from a forbidden network. Add <address> to …`: a valid token, called from
    an address outside its networks (since July 2026 a token without declared networks is locked to
    the address of its first call)."""

    reason = "forbidden_network"


class BadToken(DossierConfigError):
    """403 `Without a token, …`: a token the service does not know (revoked, mistyped, of an old
    version); an expired one is told apart (401)."""

    reason = "bad_token"


class Redirected(DossierConfigError):
    """3xx: DS_API_URL points to an old or wrong address."""

    reason = "redirected"


class DemarcheNotFound(DossierServiceError):
    """`not_found`: no démarche with this number."""

    reason = "not_found"


class DemarcheForbidden(DossierServiceError):
    """`unauthorized`: the démarche exists but is outside the token's scope."""

    reason = "forbidden"


class QueryRejected(DossierServiceError):
    """Any other GraphQL error: a bug on our side or an API change."""

    reason = "rejected"


class QueryTooCostly(QueryRejected):
    """`Query has complexity of N, which exceeds max complexity of M` (or depth): the service scored
    the document over its limits and ran nothing (ds-graphql.md §10.2). A bug of the bot's document,
    never retried: sending it again is refused again and spends the token's allowance."""

    def __init__(self, detail: str, operation: str = "") -> None:
        super().__init__(detail)
        self.operation = operation


class DossierServiceUnavailable(DossierServiceError):
    """5xx, network errors, repeated timeouts or rate limits: try again later."""


class Unreadable(DossierServiceUnavailable):
    """An answer the bot will not read: too large, nested too deep, not JSON, or a page larger than asked."""

    reason = "unreadable"


class EndlessWalk(DossierServiceError):
    """A walk that would not end: a cursor came back, or more pages (or time) than a démarche can take."""

    reason = "endless"


class OverShare(DossierServiceUnavailable):
    """A request whose share of the allowance is spent for this minute (a preview, a watch): not sent."""

    reason = "busy"


class DossierServiceUnreachable(DossierServiceUnavailable):
    """No connection at all (refused, DNS, TLS): the network or DS_API_URL."""


class RateLimited(DossierServiceUnavailable):
    """429 still, once the waits the budget allows were spent: the request was not processed."""


class NoAnswer(DossierServiceUnavailable):
    """The request left, and no answer came (a read error, or none within the budget): the
    service may have done it, and may still be doing it."""


class OutcomeUnknown(DossierServiceUnavailable):
    """An act that reached the service, answered by a failure (`answered`: the service finished
    with it) or by nothing: it may have been done. Never to be told as "nothing was done"."""

    def __init__(self, said: str, *, answered: bool) -> None:
        super().__init__(said)
        self.answered = answered


class ActRefused(DossierServiceError):
    """The service refused an act on a dossier (a mutation's payload `errors`): nothing changed.
    `said` is the service's own text, for the log and for what has no words of its own."""

    reason = "act_refused"

    def __init__(self, said: str) -> None:
        super().__init__(said)
        self.said = said


class ReadOnlyToken(ActRefused):
    """`Le jeton utilisé est configuré seulement en lecture`: the operator needs a token with write access."""

    reason = "read_only"


class NotInstructeur(ActRefused):
    """`L’instructeur n’a pas les droits d’accès à ce dossier`: not (or no longer) in the dossier's group."""

    reason = "not_instructeur"


class WrongState(ActRefused):
    """`Le dossier est déjà …`: the dossier is not (any more) in a state that allows the act."""

    reason = "wrong_state"


class AnnotationsMissing(ActRefused):
    """A decision refused while the dossier is en instruction: the service says "déjà en instruction"
    when a required private annotation is blank (ds-graphql.md §9.2)."""

    reason = "annotations_missing"


class CorrectionPending(ActRefused):
    """`Le dossier est en attente de correction`: the applicant has a correction to make first."""

    reason = "correction_pending"


class MessagingClosed(ActRefused):
    """The dossier's messagerie is closed (deleted, to be archived, or the applicant's account gone)."""

    reason = "messaging_closed"


class SiretIncomplete(ActRefused):
    """`Les informations du SIRET du dossier ne sont pas complètes`: try again later."""

    reason = "siret_incomplete"


class NotOfDemarche(ActRefused):
    """`Ce label / Le groupe instructeur … n’appartient pas à la même démarche que le dossier`."""

    reason = "not_of_demarche"


class AlreadySo(ActRefused):
    """The label is already on the dossier (or already off it), or the dossier already with that group."""

    reason = "already_so"


class AnnotationsRefused(ActRefused):
    """`dossierModifierAnnotations` saved some annotations, or none (`saved`), and refused the others
    (`unsaved`), in `said` (its annotations' ids named by their labels)."""

    reason = "annotations_refused"

    def __init__(self, said: str, *, saved: tuple[str, ...], unsaved: tuple[str, ...]) -> None:
        super().__init__(said)
        self.saved = saved
        self.unsaved = unsaved


class ApplicantGone(ActRefused):
    """`Le dossier est déjà <décidé>` answering Back into instruction on a decided dossier: the
    service takes one back only while the applicant's account exists (§9.2)."""

    reason = "applicant_gone"


class NotArchivable(ActRefused):
    """`Un dossier ne peut être déplacé dans « à archiver » qu’une fois le traitement terminé`, or
    `Un dossier non archivé ne peut pas être désarchivé`."""

    reason = "not_archivable"


class CorrectionNotCancellable(ActRefused):
    """`La demande de correction ne peut pas être annulée`: made, cancelled, or its message deleted."""

    reason = "correction_not_cancellable"


class MessageNotDeletable(ActRefused):
    """`Le message ne peut pas être supprimé`: not the sender's, or deleted already."""

    reason = "message_not_deletable"


class UploadRefused(ActRefused):
    """One of the service's three refusals of a file given with an act (not uploaded, a bad signed
    id, a checksum that does not match, §10.4): nothing was done."""

    reason = "upload_refused"
