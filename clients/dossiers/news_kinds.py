"""The kinds of news the dossier service would e-mail an instructeur, and how much of each a person
wants per démarche — the service's own model (ds-graphql.md §10.7), as far as its API shows it.

The service keeps, per instructeur and démarche, `all` / `followed` / off for each kind, deposits
`all` and the rest `followed` by default; its preferences cannot be read through the API, so a
person starts from those defaults here and changes them in Slack. Kinds the service has no setting
for (a state changed or a dossier re-routed by someone else, labels) get the nearest default.
"""

from __future__ import annotations

import enum
from typing import Protocol


class Kind(enum.StrEnum):
    """What happened to a dossier. Values are stored (in what each person was told): never rename."""

    DEPOSITED = "deposited"  # the applicant deposited it
    WROTE = "wrote"  # the applicant sent a message
    MODIFIED = "modified"  # the applicant changed their answers (dateDerniereModificationChamps)
    CORRECTION = "correction"  # a correction the applicant submitted, or one still awaited
    ANNOTATIONS = "annotations"  # a colleague changed the private annotations
    AVIS = "avis"  # an expert answered an avis
    GROUP = "group"  # re-routed to or away from a group
    STATE = "state"  # its state changed, by someone else
    EXPIRING = "expiring"  # it will be deleted within the service's notice (dateExpiration)
    DELETED = "deleted"  # deleted (deletedDossiers)
    LABELS = "labels"  # its labels changed


class Level(enum.StrEnum):
    ALL = "all"  # every dossier of the person's groups
    FOLLOWED = "followed"  # only dossiers the person follows
    OFF = "off"


class Relation(enum.Enum):
    """How a person stands to a changed dossier now, as the service lists it."""

    NONE = "none"  # not in the dossier's group (or rights ended): never told
    GROUP = "group"  # in its group
    FOLLOWS = "follows"  # in its group and following it


DEFAULTS: dict[Kind, Level] = {kind: Level.FOLLOWED for kind in Kind} | {Kind.DEPOSITED: Level.ALL, Kind.GROUP: Level.ALL}


def wants(level: Level, relation: Relation) -> bool:
    """Whether a person at this level hears of a dossier they stand to so."""
    if relation is Relation.NONE or level is Level.OFF:
        return False
    return level is Level.ALL or relation is Relation.FOLLOWS


class Choices(Protocol):
    """Where each person's levels are read from (the service's defaults until they choose)."""

    async def level(self, team: str, user: str, demarche: int, kind: Kind) -> Level: ...


class ServiceDefaults:
    """The levels of someone who never chose: the service's defaults."""

    async def level(self, team: str, user: str, demarche: int, kind: Kind) -> Level:
        return DEFAULTS[kind]
