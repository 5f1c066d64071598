"""What awaits a person in a démarche: late dossiers, SVA/SVR dates soon or past, applicants waiting
for an answer — for Home's "My dossiers" and the digest's "Show them" list, as data; and, for the
daily DM (`today`), the dossiers followed by nobody and the corrections received.

Read from what the digest and the watch keep (no request but the member list, kept a few minutes;
the daily DM's one request more a démarche, `clients.dossiers.open_dossiers`), and only of what is
theirs as the service lists it now: their groups (an administrator with no group: the whole
démarche); rights that ended show nothing.
"""

from __future__ import annotations

import datetime as dt
import enum
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from clients.dossiers import errors
from clients.dossiers.accounts import DossierAccount
from clients.dossiers.open_dossiers import Open, open_dossiers
from clients.dossiers.rate_limit import Priority, with_priority
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
    corrected: list[int] = field(default_factory=list)  # the applicant submitted a correction in the last day
    unfollowed: list[int] = field(default_factory=list)  # open, and followed by nobody
    unfollowed_more: bool = False  # more than a page of open dossiers: `unfollowed` is a floor

    @property
    def pressing(self) -> list[int]:
        """The dossiers to open, the most pressing first."""
        return list(dict.fromkeys([*self.needs.get("overdue", []), *self.corrected, *self.unanswered,
                                   *self.needs.get("late", []), *self.needs.get("due_soon", []), *self.unfollowed]))


async def awaiting(account: DossierAccount, watches: Watches, number: int, email: str, late_days: int,
                   today: dt.datetime | None = None) -> Awaiting | None:
    """None when nothing needs doing there, or nothing of it is theirs (any more). With `today`
    (the daily DM), the dossiers followed by nobody and the corrections received too, read now."""
    try:
        membership = await account.access.membership(number)
    except errors.DossierServiceError as error:
        log.info("My dossiers: n° %d not read: %s", number, error.reason)
        return None
    mine = membership.groups_of(email)
    if not mine and not membership.administrator(email):
        return None  # rights that ended: nothing of it is theirs now
    groups = mine or None  # an administrator with no group: the whole démarche
    found = await _open(account, number, today, groups) if today is not None else Open([], [])
    opened = Awaiting(number, membership.title, corrected=[n for n, _ in found.corrected],
                      unfollowed=[n for n, _ in found.unfollowed], unfollowed_more=found.more)
    if not await account.counter.counted(number):
        return replace(opened, counted=False)
    needs = needing(await account.counter.records(number), dt.datetime.now(dt.UTC), late_days, groups)
    waiting = sorted(n for n, _ in _in((await watches.unanswered(account.name, number)).items(), groups))
    if not needs and not waiting and not found.corrected and not found.unfollowed:
        return None
    return replace(opened, needs=needs, unanswered=waiting)


@with_priority(Priority.ASKED)
async def _open(account: DossierAccount, number: int, now: dt.datetime, groups: set[int] | None) -> Open:
    """The daily DM's one request a démarche, of the person's groups (all for None); nothing when
    it cannot be read now (the rest is said)."""
    if account.desk is None:
        return Open([], [])
    try:
        found = await open_dossiers(account.desk.service, number, now)
    except errors.DossierServiceError as error:
        log.info("daily DM: open dossiers of n° %d not read: %s", number, error.reason)
        return Open([], [])
    return Open(_in(found.unfollowed, groups), _in(found.corrected, groups), more=found.more)


def _in(dossiers: Iterable[tuple[int, int | None]], groups: set[int] | None) -> list[tuple[int, int | None]]:
    """The dossiers (number, group) of the person's groups (all for None)."""
    return [(n, group) for n, group in dossiers if groups is None or group in groups]


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
