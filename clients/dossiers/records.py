"""Each dossier as the bot keeps it between walks, and what needs doing, counted from those records.

A record is one short string in the démarche's Redis hash, `i,29384756,20450,3`: the state (one
letter), when it entered that state (Unix minutes), the expected decision date under "silence vaut
accord / rejet" (a day number), and its groupe instructeur. The walks the digest makes anyway bring
these fields, so lateness, decisions and deadlines cost no request of their own; a record is about
as long as the state name it replaces (`en_instruction`), so the hash is no larger. Records written
before (the state alone) still count by state until the weekly full walk rewrites them.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field

from clients.dossiers.models import DECIDED, STATES, WAITING, Dossier

CODES = {"en_construction": "c", "en_instruction": "i", "accepte": "a", "refuse": "r", "sans_suite": "s"}
_NAMES = {code: name for name, code in CODES.items()}
#: SVA/SVR decisions expected within this many days are "due soon".
DUE_SOON_DAYS = 7


def encode(node: Dossier) -> str:
    since = node.in_state_since
    sva = node.decision_due
    group = node.groupeInstructeur.number if node.groupeInstructeur else ""
    minutes = int(since.timestamp()) // 60 if since else ""
    return f"{CODES.get(node.state, node.state)},{minutes},{sva.toordinal() if sva else ''},{group}"


@dataclass(frozen=True)
class Record:
    state: str
    since: int | None = None  # Unix minutes
    sva: int | None = None  # date ordinal
    group: int | None = None


def decode(value: str) -> Record:
    parts = value.split(",")
    if len(parts) != 4:  # a state alone, as kept before
        return Record(value)
    code, since, sva, group = parts
    return Record(_NAMES.get(code, code), _int(since), _int(sva), _int(group))


def _int(text: str) -> int | None:
    return int(text) if text.isdecimal() else None


@dataclass
class Needs:
    """What needs doing: dossiers waiting longer than the late days (how many, and the oldest's
    age in days, per waiting state), decided since the last digest (per decision), and SVA/SVR
    decisions due within a week or already past."""

    late: dict[str, int] = field(default_factory=dict)
    oldest: dict[str, int] = field(default_factory=dict)
    decided: dict[str, int] = field(default_factory=dict)
    due_soon: int = 0
    overdue: int = 0

    @property
    def anything(self) -> bool:
        return bool(self.late or self.due_soon or self.overdue or any(self.decided.values()))


@dataclass
class Counted:
    """One démarche's (or one group's) dossiers by state, and what needs doing in them."""

    by_state: dict[str, int]
    needs: Needs


class Tally:
    """Counts records as they come (from a walk's pages or the stored hash), for the whole démarche
    and for each group at once."""

    def __init__(self, now: dt.datetime, late_days: int, since: dt.datetime | None) -> None:
        self._bounds = _Bounds(now_minutes=int(now.timestamp()) // 60, today=now.date().toordinal(),
                               late_minutes=late_days * 24 * 60, since_minutes=int(since.timestamp()) // 60 if since else None)
        self._all = _Part()
        self._groups: dict[int, _Part] = {}

    def add(self, value: str) -> None:
        record = decode(value)
        self._all.add(record, self._bounds)
        if record.group is not None:
            self._groups.setdefault(record.group, _Part()).add(record, self._bounds)

    def whole(self) -> Counted:
        return self._all.counted()

    def groups(self) -> dict[int, Counted]:
        return {number: part.counted() for number, part in self._groups.items()}


@dataclass(frozen=True)
class _Bounds:
    """The instants a record is measured against, in its own units."""

    now_minutes: int
    today: int  # date ordinal
    late_minutes: int
    since_minutes: int | None  # the previous digest's


class _Part:
    def __init__(self) -> None:
        self.states: Counter[str] = Counter()
        self.needs = Needs()

    def add(self, record: Record, bounds: _Bounds) -> None:
        self.states[record.state] += 1
        needs = self.needs
        if record.since is not None:
            waited = bounds.now_minutes - record.since
            if record.state in WAITING and waited > bounds.late_minutes:
                needs.late[record.state] = needs.late.get(record.state, 0) + 1
                needs.oldest[record.state] = max(needs.oldest.get(record.state, 0), waited // (24 * 60))
            if record.state in DECIDED and bounds.since_minutes is not None and record.since >= bounds.since_minutes:
                needs.decided[record.state] = needs.decided.get(record.state, 0) + 1
        if record.sva is not None and record.state in WAITING:
            if record.sva < bounds.today:
                needs.overdue += 1
            elif record.sva <= bounds.today + DUE_SOON_DAYS:
                needs.due_soon += 1

    def counted(self) -> Counted:
        by_state = {state: self.states.get(state, 0) for state in STATES} | {s: n for s, n in self.states.items() if s not in STATES}
        return Counted(by_state, self.needs)


def needing(records: dict[int, str], now: dt.datetime, late_days: int, groups: set[int] | None) -> dict[str, list[int]]:
    """The dossiers that need doing, by why (`late`, `overdue`, `due_soon`), oldest first; only those
    of `groups` (None: all). Read from the kept records: no request."""
    found: dict[str, list[tuple[int, int]]] = {"late": [], "overdue": [], "due_soon": []}
    now_minutes, today = int(now.timestamp()) // 60, now.date().toordinal()
    for number, value in records.items():
        record = decode(value)
        if record.state not in WAITING or (groups is not None and record.group not in groups):
            continue
        if record.since is not None and now_minutes - record.since > late_days * 24 * 60:
            found["late"].append((record.since, number))
        if record.sva is not None and record.sva < today:
            found["overdue"].append((record.sva, number))
        elif record.sva is not None and record.sva <= today + DUE_SOON_DAYS:
            found["due_soon"].append((record.sva, number))
    return {why: [number for _, number in sorted(items)] for why, items in found.items() if items}
