"""What the dossier service's stand-in holds: démarches, their groups and dossiers, each
dossier's messages and steps, as the service keeps them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field


@dataclass
class FakeMessage:
    id: int
    email: str
    body: str
    created: dt.datetime
    discarded: dt.datetime | None = None
    correction: str | None = None  # the reason of a correction asked with this message
    resolved: dt.datetime | None = None  # when that correction was resolved (submitted, or cancelled)
    attachments: list[str] = field(default_factory=list)  # the files' names


@dataclass
class FakeLabel:
    id: int  # unique across démarches, as the service's ids are
    name: str
    color: str = "beige_gris_galet"


@dataclass
class FakeAnnotation:
    """A private annotation's descriptor: `kind` is its GraphQL type's name less `ChampDescriptor`."""

    stable: int  # its stable id: the descriptor is `TypeDeChamp-<stable>`, its champ on a dossier `Champ-<stable>`
    kind: str  # Text, Textarea, Checkbox, YesNo, Date, Datetime, IntegerNumber, DecimalNumber, DropDownList, …
    label: str
    options: list[str] = field(default_factory=list)
    required: bool = False


@dataclass
class FakeAvis:
    asked: dt.datetime
    answered: dt.datetime | None = None
    expert: str = "expert@example.gouv.fr"


@dataclass
class FakeAssignment:
    when: dt.datetime
    group: str
    previous: str | None  # None: the dossier's first routing
    mode: str = "manual"


@dataclass
class FakeDossier:
    id: int
    number: int
    state: str
    deposited: dt.datetime
    updated: dt.datetime
    instructed: dt.datetime | None = None  # datePassageEnInstruction, kept once set (as the service does)
    decided: dt.datetime | None = None  # dateTraitement
    sva: dt.date | None = None  # datePrevisionnelleDecisionSVASVR
    group: int = 1  # every dossier is in a groupe instructeur (the démarche's default one, number 1)
    labels: list[str] = field(default_factory=list)
    modified: dt.datetime | None = None  # the applicant last changed their answers (else: as deposited)
    annotated: dt.datetime | None = None  # the private annotations last changed (else: as deposited)
    expires: dt.datetime | None = None  # dateExpiration
    usager: str = "usager.prive@example.fr"  # served only to a query that selects it: only the card's does
    followers: set[str] = field(default_factory=set)  # instructeurs' e-mails, lower case
    messages: list[FakeMessage] = field(default_factory=list)
    traitements: list[tuple[str, str | None, dt.datetime]] = field(default_factory=list)  # event, agent, when
    motivation: str | None = None
    justificatif: str | None = None  # the decision's file's name
    pending_correction: bool = False
    annotations_missing: bool = False  # a required private annotation is blank: decisions are refused
    siret_incomplete: bool = False
    archived: bool = False
    usager_deleted: bool = False
    annotations: dict[int, object] = field(default_factory=dict)  # stable id → value (blank when absent)
    avis: list[FakeAvis] = field(default_factory=list)
    assignments: list[FakeAssignment] = field(default_factory=list)
    decision_read: dt.datetime | None = None  # dateAccuseLectureAgreement


@dataclass
class FakeGroup:
    number: int
    label: str
    instructeurs: list[str]
    closed: bool = False


@dataclass
class FakeDemarche:
    number: int
    title: str
    administrateurs: list[str] = field(default_factory=list)
    groups: list[FakeGroup] = field(default_factory=list)
    dossiers: list[FakeDossier] = field(default_factory=list)  # in deposit order
    deleted: list[tuple[int, str, dt.datetime, bool]] = field(default_factory=list)  # number, state, when, pending
    labels: list[FakeLabel] = field(default_factory=list)
    annotations: list[FakeAnnotation] = field(default_factory=list)
    _keys: list[tuple[dt.datetime, int]] | None = None  # (deposit, id) of `dossiers`, rebuilt after a change

    def label(self, name: str) -> FakeLabel:
        """The démarche's label of that name, made the first time it is named (ids unique across démarches)."""
        found = next((label for label in self.labels if label.name == name), None)
        if found is None:
            found = FakeLabel(self.number * 1000 + len(self.labels) + 1, name)
            self.labels.append(found)
        return found

    def keys(self) -> list[tuple[dt.datetime, int]]:
        if self._keys is None:
            self._keys = [(d.deposited, d.id) for d in self.dossiers]
        return self._keys
