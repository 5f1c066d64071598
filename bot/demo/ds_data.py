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
    correction: str | None = None
    resolved: dt.datetime | None = None  # the correction's dateResolution: made, or cancelled
    attachments: list[str] = field(default_factory=list)  # the files' names


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
    _keys: list[tuple[dt.datetime, int]] | None = None  # (deposit, id) of `dossiers`, rebuilt after a change

    def keys(self) -> list[tuple[dt.datetime, int]]:
        if self._keys is None:
            self._keys = [(d.deposited, d.id) for d in self.dossiers]
        return self._keys
