"""What a window to edit a dossier shows (its labels, its group, its private annotations), read for
one person, as data: only for an instructeur of the dossier's group now (read from the service's
lists and their e-mail, as every act is); the démarche's labels and open groups, or the dossier's
annotations, as the service lists them now. The window decides nothing: its submission is an act,
checked again when it comes (domain.dossiers.acts)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from clients.dossiers import errors
from clients.dossiers.annotations import AnnotationField
from clients.dossiers.desk import Act, Choices, Seen
from clients.dossiers.rate_limit import Priority, with_priority
from domain.dossiers.accounts import WorkspaceAccounts


class Shown(enum.Enum):
    READY = "ready"
    NO_TOKEN = "no_token"
    NOT_SEEN = "not_seen"  # no such dossier, or not one this person may see
    NOT_INSTRUCTEUR = "not_instructeur"  # an administrator: they may see it, not edit it
    REFUSED = "refused"  # the service refused a read, or is down: `error`


@dataclass(frozen=True)
class Editable:
    shown: Shown
    number: int
    seen: Seen | None = None
    choices: Choices | None = None  # labels and groups (the Labels and Group windows)
    fields: list[AnnotationField] = field(default_factory=list)  # the Annotations window
    error: errors.DossierServiceError | None = None


@with_priority(Priority.ASKED)
async def editable(accounts: WorkspaceAccounts, team: str, email: str, number: int, act: Act) -> Editable:
    """The window's content for `act` (Act.ADD_LABEL: the labels; Act.REGROUP: the groups; Act.ANNOTATE: the annotations)."""
    account = await accounts.for_team(team)
    if account is None or account.desk is None:
        return Editable(Shown.NO_TOKEN, number)
    try:
        seen = await account.desk.seen_by(number, email, account.access)
        if seen is None or seen.card.demarche is None:
            return Editable(Shown.NOT_SEEN, number)
        if seen.instructeur_id is None:
            return Editable(Shown.NOT_INSTRUCTEUR, number, seen)
        if act is Act.ANNOTATE:
            demarche, fields = await account.desk.annotations(number)
            if demarche != seen.card.demarche.number:  # moved between two reads: shown nothing rather than mixed
                return Editable(Shown.REFUSED, number, seen, error=errors.DossierServiceUnavailable("the dossier changed"))
            return Editable(Shown.READY, number, seen, fields=fields)
        return Editable(Shown.READY, number, seen, choices=await account.desk.choices(seen.card.demarche.number))
    except errors.DossierServiceError as error:
        return Editable(Shown.REFUSED, number, error=error)
