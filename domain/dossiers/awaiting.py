"""What awaits a person in a démarche: late dossiers, SVA/SVR dates soon or past, applicants waiting
for an answer — for Home's "My dossiers" and the digest's "Show them" list, as data.

Read from what the digest and the watch keep (no request but the member list, kept a few minutes),
and only of what is theirs as the service lists it now: their groups (an administrator with no
group: the whole démarche); rights that ended show nothing.
"""

from __future__ import annotations

import datetime as dt
import enum
import logging
from dataclasses import dataclass, field

from clients.dossiers import errors
from clients.dossiers.accounts import DossierAccount
from clients.dossiers.records import needing
from clients.dossiers.watch import Watches
from clients.once import Once
from domain.dossiers.accounts import WorkspaceAccounts

log = logging.getLogger(__name__)

#: the kinds of need, the most pressing first
NEEDS = ("overdue", "due_soon", "late")
#: lists one person may ask for in a minute: each may cost a member list (forged values, any number)
SHOWS_PER_MINUTE = 10


@dataclass(frozen=True)
class Awaiting:
    """A démarche's line on Home: what needs doing in the person's groups."""

    number: int
    title: str
    counted: bool = True  # False: no count kept yet ("nothing needs doing" would be a guess)
    needs: dict[str, list[int]] = field(default_factory=dict)  # by kind of NEEDS: dossier numbers
    unanswered: list[int] = field(default_factory=list)  # dossiers whose applicant waits for an answer

    @property
    def pressing(self) -> list[int]:
        """The dossiers to open, the most pressing first."""
        return list(dict.fromkeys([*self.needs.get("overdue", []), *self.unanswered, *self.needs.get("late", []),
                                   *self.needs.get("due_soon", [])]))


async def awaiting(account: DossierAccount, watches: Watches, number: int, email: str, late_days: int) -> Awaiting | None:
    """None when nothing needs doing there, or nothing of it is theirs (any more)."""
    try:
        membership = await account.access.membership(number)
    except errors.DossierServiceError as error:
        log.info("My dossiers: n° %d not read: %s", number, error.reason)
        return None
    mine = membership.groups_of(email)
    if not mine and not membership.administrator(email):
        return None  # rights that ended: nothing of it is theirs now
    groups = mine or None  # an administrator with no group: the whole démarche
    if not await account.counter.counted(number):
        return Awaiting(number, membership.title, counted=False)
    needs = needing(await account.counter.records(number), dt.datetime.now(dt.UTC), late_days, groups)
    waiting = sorted(n for n, group in (await watches.unanswered(account.name, number)).items()
                     if groups is None or group in groups)
    if not needs and not waiting:
        return None
    return Awaiting(number, membership.title, needs=needs, unanswered=waiting)


class Shown(enum.Enum):
    LISTED = "listed"  # `title`, `needs`
    NO_TOKEN = "no_token"
    TOO_OFTEN = "too_often"  # past SHOWS_PER_MINUTE
    UNCHECKED = "unchecked"  # the member list could not be read just now
    NOT_YOURS = "not_yours"  # not an administrator or instructeur of the démarche (of the group, for a group's digest)


@dataclass(frozen=True)
class NeedsList:
    shown: Shown
    title: str = ""
    needs: dict[str, list[int]] = field(default_factory=dict)


async def needs_list(accounts: WorkspaceAccounts, once: Once, team: str, user: str, email: str, number: int,
                     group: int | None, late_days: int) -> NeedsList:
    """The dossiers behind a digest's to-do line, for whoever works on the démarche now, whatever the button said."""
    account = await accounts.for_team(team)
    if account is None:
        return NeedsList(Shown.NO_TOKEN)
    if not await once.within("digest-show", team, user, most=SHOWS_PER_MINUTE, ttl=60):
        return NeedsList(Shown.TOO_OFTEN)
    try:
        membership = await account.access.membership(number)
    except errors.DossierServiceError:
        return NeedsList(Shown.UNCHECKED)
    if not membership.may_follow(email, group):
        return NeedsList(Shown.NOT_YOURS)
    mine = {group} if group is not None else None
    return NeedsList(Shown.LISTED, membership.title, needing(await account.counter.records(number), dt.datetime.now(dt.UTC),
                                                             late_days, mine))
