"""Counting for the digest: each démarche counted a few at a time (another channel's count of the
same day reused), a groupe instructeur's share, and the 14-day series by state the chart draws."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from clients.dossiers.access import Membership
from clients.dossiers.accounts import DossierAccount
from clients.dossiers.counts import DemarcheCounts, DossierCounter, Progress
from clients.dossiers.digest_store import DigestStore, Snapshot
from clients.dossiers.errors import DossierConfigError, DossierServiceError
from clients.dossiers.models import STATES
from clients.dossiers.records import Counted, Needs
from clients.dossiers.subscriptions import Subscription
from domain.dossiers.digest_config import DigestConfig
from domain.dossiers.lines import Digest, DigestFailure, DigestLine

TREND_DAYS = 14
CONCURRENT_DEMARCHES = 4

#: a series of daily counts per state, oldest first (None on a day nothing was counted)
Series = dict[str, list[int | None]]


@dataclass(frozen=True)
class Counting:
    """Counts démarches with a token's clients; `operator` reads when no other account is given."""

    config: DigestConfig
    store: DigestStore
    operator: DossierAccount | None

    async def compute(
        self,
        day: dt.date,
        progress_for: Callable[[int], Progress] | None = None,
        *,
        demarches: Sequence[int] | None = None,
        fresh: bool = False,
        account: DossierAccount | None = None,
    ) -> Digest:
        """Counts the démarches a few at a time (the token's allowance is shared through the rate
        limiter, so concurrency only fills each window faster); failures are kept aside. A démarche
        another channel's digest counted within the run window is not counted again, unless `fresh`.
        `account` reads, the operator's by default."""
        limit = asyncio.Semaphore(CONCURRENT_DEMARCHES)
        reader = account or self.operator
        assert reader is not None, "no dossier-service token to count with"

        async def one(number: int) -> DigestLine | DigestFailure:
            async with limit:
                previous = await self.store.previous(number, before=day)
                try:
                    counts, reused = await self._count(reader.counter, number, day, previous,
                                                       progress_for(number) if progress_for else None, fresh=fresh)
                except DossierServiceError as error:
                    return DigestFailure(number, error.reason, error.detail, isinstance(error, DossierConfigError))
                history = [*(await self.store.history(number, day, TREND_DAYS))[:-1], counts.total]
                return DigestLine(counts, previous, history, reused, self.config.late_days)

        numbers = self.config.demarches if demarches is None else demarches
        results = await asyncio.gather(*(one(number) for number in numbers))
        return Digest([r for r in results if isinstance(r, DigestLine)], [r for r in results if isinstance(r, DigestFailure)])

    async def _count(
        self, counter: DossierCounter, number: int, day: dt.date, previous: Snapshot | None, progress: Progress | None, *, fresh: bool
    ) -> tuple[DemarcheCounts, bool]:
        """The démarche's counts, and whether they are another run's, reused."""
        async with self.store.counting(number, day):
            shared = None if fresh else await self.store.shared_count(number, day)
            if shared is not None:
                return shared, True
            counts = await counter.count(number, since=previous.at if previous else None, progress=progress)
            await self.store.record(counts, day)
            await self.store.share_count(counts, day)
            return counts, False

    async def for_groups(self, digest: Digest, sub: Subscription, account: DossierAccount) -> Digest:
        """A démarche followed for one groupe instructeur counts that group's dossiers only, named by
        its label; the day-to-day change and the trend are the whole démarche's, so they are left out."""
        lines = []
        for line in digest.lines:
            group = sub.group_of(line.counts.number)
            if group is None:
                lines.append(line)
                continue
            part = line.counts.groups.get(group) or Counted({state: 0 for state in STATES}, Needs())
            try:
                label = (await self.membership(line.counts.number, account)).groups.get(group, (f"n° {group}", frozenset()))[0]
            except DossierServiceError:
                label = f"n° {group}"
            counts = replace(line.counts, by_state=part.by_state, needs=part.needs, groups={})
            lines.append(replace(line, counts=counts, previous=None, history=[], group=label, group_number=group))
        return replace(digest, lines=lines)

    async def membership(self, number: int, account: DossierAccount | None = None) -> Membership:
        """Who may follow the démarche, as `account` (the operator's by default) reads it; raises the
        service's refusal (unknown, not readable, down)."""
        reader = account or self.operator
        assert reader is not None, "no dossier-service token to read with"
        return await reader.access.membership(number)

    async def trend(self, day: dt.date, digest: Digest) -> Series | None:
        """The digest's démarches' 14-day trend by state, for the chart; None without whole démarches
        (a group's line has no trend of its own)."""
        whole = [line for line in digest.lines if line.group is None]
        if not whole:
            return None
        return by_state([await self.store.snapshots(line.counts.number, day, TREND_DAYS) for line in whole])


def by_state(days: list[list[Snapshot | None]]) -> Series:
    """Each day's count per state, summed over the démarches (None on a day none was counted)."""
    width = max((len(d) for d in days), default=0)
    series: Series = {state: [] for state in STATES}
    for index in range(width):
        known = [d[index] for d in days if index < len(d) and d[index] is not None]
        for state in STATES:
            series[state].append(sum(s.by_state.get(state, 0) for s in known if s) if known else None)
    return series
