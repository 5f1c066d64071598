"""Who a team space is for and who may set it up, from the dossier service's lists read now.

A démarche's space is set up by one of its administrators; a group's space by an administrator or
an instructeur of that group. The people it invites are the instructeurs (of every group, or of
the one group), by the e-mail the service knows them by; the comparison ignores case, as the
service's own does.
"""

from __future__ import annotations

from dataclasses import dataclass

from clients.dossiers.access import Membership
from clients.dossiers.models import Members


@dataclass(frozen=True)
class Roster:
    title: str
    group_label: str | None  # the group's label, for a group's space
    instructeurs: tuple[str, ...]  # e-mails as the service has them, each once (without case), in its order


class NoSuchGroup(Exception):
    """The démarche has no group of that number (the surface says which groups it has)."""

    def __init__(self, demarche: int, group: int, groups: tuple[int, ...]) -> None:
        super().__init__(f"démarche n° {demarche} has no group n° {group}")
        self.demarche, self.group, self.groups = demarche, group, groups


def _same(email: str) -> str:
    return email.strip().lower()


def may_set_up(members: Members, email: str, group: int | None) -> bool:
    """An administrator of the démarche; for a group's space, an instructeur of that group too."""
    if not _same(email):
        return False
    membership = Membership.of(members)
    return membership.administrator(email) if group is None else membership.may_follow(email, group)


def works_on(members: Members, email: str, group: int | None) -> bool:
    """An administrator of the démarche or an instructeur of it (of the group, for a group's space):
    who may call a space's team."""
    return bool(_same(email)) and Membership.of(members).may_follow(email, group)


def roster(members: Members, group: int | None) -> Roster:
    """The instructeurs a space is for; raises NoSuchGroup for a group the démarche does not have."""
    groups = [g for g in members.groupeInstructeurs if group is None or g.number == group]
    if group is not None and not groups:
        raise NoSuchGroup(members.number, group, tuple(g.number for g in members.groupeInstructeurs))
    seen: dict[str, str] = {}
    for g in groups:
        for person in g.instructeurs:
            if person.email.strip():
                seen.setdefault(_same(person.email), person.email.strip())
    return Roster(members.title, groups[0].label if group is not None else None, tuple(seen.values()))
