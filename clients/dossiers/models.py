"""What the dossier service answers, as the client reads it: dossiers, pages of them, a
démarche's members. Tolerant: fields the service adds are ignored, a missing optional one is None."""

from __future__ import annotations

import datetime as dt

from pydantic import Field, field_validator

from clients.tolerant import Tolerant

#: the states a dossier awaits an instructeur in, and those it was decided in
WAITING = ("en_construction", "en_instruction")
DECIDED = ("accepte", "refuse", "sans_suite")
STATES = (*WAITING, *DECIDED)


class GroupRef(Tolerant):
    number: int
    label: str = ""


class DemarcheRef(Tolerant):
    number: int
    title: str = ""


class LabelRef(Tolerant):
    name: str = ""


class Dossier(Tolerant):
    number: int
    state: str = ""
    dateDepot: dt.datetime | None = None
    # kept as the service's ISO text and read when used: validating four dates on every dossier of a
    # walk cost the paginator a tenth of its time (python -m bench digest), and a walk uses one of them
    datePassageEnConstruction: str | None = None
    datePassageEnInstruction: str | None = None
    dateTraitement: str | None = None
    datePrevisionnelleDecisionSVASVR: str | None = None
    groupeInstructeur: GroupRef | None = None

    dateDerniereModification: dt.datetime | None = None
    demarche: DemarcheRef | None = None
    labels: list[LabelRef] = Field(default_factory=list)

    @property
    def in_state_since(self) -> dt.datetime | None:
        """When the dossier entered its present state (None when the service does not say, or says
        it in a form that is not a date)."""
        if self.state == "en_construction":
            return moment_of(self.datePassageEnConstruction)
        if self.state == "en_instruction":
            return moment_of(self.datePassageEnInstruction)
        return moment_of(self.dateTraitement)

    @property
    def decision_due(self) -> dt.date | None:
        """The expected decision date under "silence vaut accord / rejet", when there is one."""
        try:
            return dt.date.fromisoformat(self.datePrevisionnelleDecisionSVASVR or "")
        except ValueError:
            return None


def moment_of(text: str | None) -> dt.datetime | None:
    try:
        moment = dt.datetime.fromisoformat(text or "")
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


class PageInfo(Tolerant):
    hasNextPage: bool
    endCursor: str | None = None


class Page(Tolerant):
    """One page of a démarche's dossiers (or deleted dossiers), with the démarche's title."""

    number: int
    title: str
    nodes: list[Dossier]
    pageInfo: PageInfo

    @field_validator("nodes", mode="before")
    @classmethod
    def _null_is_empty(cls, nodes: object) -> object:
        # the schema declares connection lists nullable (`nodes: [DeletedDossier]`): null = no dossier
        return [] if nodes is None else nodes


class Profile(Tolerant):
    email: str = ""


class Group(Tolerant):
    number: int
    label: str = ""
    closed: bool = False
    instructeurs: list[Profile] = Field(default_factory=list)


class Members(Tolerant):
    """Who the service says works on a démarche: its administrators and each group's instructeurs."""

    number: int
    title: str = ""
    administrateurs: list[Profile] = Field(default_factory=list)
    groupeInstructeurs: list[Group] = Field(default_factory=list)
