"""Dossier counts per démarche, total and per state, kept up to date incrementally.

The first run walks every dossier once and stores each one's state in a Redis hash, plus a
watermark (when that walk started). Later runs fetch only the dossiers updated since the
watermark (minus an overlap, for clock skew and in-flight updates) and the ones deleted since,
apply them to the hash and count the hash: the same result as a full walk, for a fraction of the
requests. A full walk happens again when the stored data is missing or older than a week.

Keys share a `{démarche}` hash tag, so a Redis Cluster keeps them in one slot (RENAME needs it).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis

from clients.dossiers.errors import EndlessWalk, Unreadable
from clients.dossiers.models import Dossier, Page
from clients.dossiers.records import Counted, Needs, Tally, encode
from clients.dossiers.source import DossierSource
from clients.redis_keys import key
from clients.storage import as_text

# One page of records as a single "number=record;…" argument: redis-py encodes each command
# argument in Python, and 200 arguments a page cost more than the whole paginator.
# HSET goes by a few hundred fields at a time: Lua's unpack() fails past about 8,000 values.
_STORE_PAGE = """
local fields, stored = {}, 0
for number, record in string.gmatch(ARGV[1], "(%d+)=([%w_,]+)") do
  fields[#fields + 1] = number
  fields[#fields + 1] = record
  if #fields >= 500 then
    redis.call('HSET', KEYS[1], unpack(fields))
    stored, fields = stored + #fields / 2, {}
  end
end
if #fields > 0 then redis.call('HSET', KEYS[1], unpack(fields)) end
return stored + #fields / 2
"""

Progress = Callable[[int, int], None]  # (pages fetched, dossiers seen) so far

#: How long the states of a démarche nobody counts any more are kept (a week later they would be
#: walked afresh anyway).
KEEP = 8 * 86400


@dataclass
class DemarcheCounts:
    number: int
    title: str
    by_state: dict[str, int]
    deposited_since: int  # dossiers deposited since the `since` instant given to count()
    full_walk: bool
    requests: int = 0
    counted_at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))
    needs: Needs = field(default_factory=Needs)
    groups: dict[int, Counted] = field(default_factory=dict)  # by groupe instructeur number

    @property
    def total(self) -> int:
        return sum(self.by_state.values())


class DossierCounter:
    def __init__(
        self,
        service: DossierSource,
        redis: aioredis.Redis,
        *,
        overlap: dt.timedelta = dt.timedelta(minutes=15),
        full_every: dt.timedelta = dt.timedelta(days=7),
        late_days: int = 7,
        now: Callable[[], dt.datetime] | None = None,
    ) -> None:
        self._service = service
        self._late_days = late_days
        self._redis = redis
        self._overlap = overlap
        self._full_every = full_every
        self._now = now or (lambda: dt.datetime.now(dt.UTC))
        self._store_page = redis.register_script(_STORE_PAGE)

    async def count(self, demarche: int, *, since: dt.datetime | None, progress: Progress | None = None) -> DemarcheCounts:
        """`since`: count the dossiers deposited from then on (the previous digest), if any."""
        meta = await self._meta(demarche)
        started = self._now()
        before = self._service.requests
        if (meta is None or started - dt.datetime.fromisoformat(meta["full_at"]) > self._full_every
                or not await self._redis.exists(_states(demarche))):
            counts = await self._full(demarche, since, progress)
            meta = {"full_at": started.isoformat()}
        else:
            watermark = dt.datetime.fromisoformat(meta["watermark"]) - self._overlap
            try:
                counts = await self._incremental(demarche, watermark, since, progress)
            except (EndlessWalk, Unreadable):
                # what such a walk applied may be anything: walk afresh next time (an honest failure
                # needs no such care: its updates are applied again from the same watermark)
                await self.forget(demarche)
                raise
        meta |= {"watermark": started.isoformat(), "title": counts.title}
        await self._redis.set(_meta(demarche), json.dumps(meta), ex=KEEP)
        await self._redis.expire(_states(demarche), KEEP)
        counts.requests = self._service.requests - before
        counts.counted_at = started
        return counts

    async def title(self, demarche: int) -> str:
        return await self._service.title(demarche)

    async def records(self, demarche: int) -> dict[int, str]:
        """Each dossier's record as the last count kept it (empty when the démarche is not counted)."""
        found = self._redis.hscan_iter(_states(demarche), count=1000)
        return {int(as_text(number) or 0): str(as_text(value)) async for number, value in found}

    async def forget(self, demarche: int) -> None:
        await forget_records(self._redis, demarche)

    async def counted(self, demarche: int) -> bool:
        """Whether a count kept the démarche's records (empty ones too: a démarche with no dossier)."""
        return await self._meta(demarche) is not None

    async def note(self, demarche: int, node: Dossier) -> None:
        """A dossier as an act left it, into the kept records when the démarche is counted: Home, the
        digest's to-do and the next count agree at once, not after the next walk."""
        if await self._redis.exists(_states(demarche)):
            await self._redis.hset(_states(demarche), str(node.number), encode(node))

    async def _full(self, demarche: int, since: dt.datetime | None, progress: Progress | None) -> DemarcheCounts:
        fresh = _states(demarche) + ":new"
        await self._redis.delete(fresh)
        tally = Tally(self._now(), self._late_days, since)
        walk = _Walk(since, progress)
        try:
            async with _Overlapped() as writes:
                async for page in self._service.all_dossiers(demarche):
                    walk.take(page)
                    records = [(node.number, encode(node)) for node in page.nodes]
                    for _, record in records:
                        tally.add(record)
                    if records:
                        await writes.submit(self._store(fresh, records))
        except BaseException:
            await self._redis.delete(fresh)  # a walk cut short keeps nothing it gathered
            raise
        if walk.seen:
            await self._redis.rename(fresh, _states(demarche))
        else:
            await self._redis.delete(_states(demarche))
        return walk.result(demarche, tally, full=True)

    async def _incremental(
        self, demarche: int, watermark: dt.datetime, since: dt.datetime | None, progress: Progress | None
    ) -> DemarcheCounts:
        states = _states(demarche)
        walk = _Walk(since, progress)
        async with _Overlapped() as writes:
            async for page in self._service.updated_since(demarche, watermark):
                walk.take(page)
                if page.nodes:
                    await writes.submit(self._store(states, [(node.number, encode(node)) for node in page.nodes]))
            for pending in (False, True):
                async for page in self._service.deleted_since(demarche, watermark, pending=pending):
                    walk.take(page, deposits=False)
                    if page.nodes:
                        await writes.submit(self._redis.hdel(states, *(str(n.number) for n in page.nodes)))
        tally = Tally(self._now(), self._late_days, since)
        async for _, record in self._redis.hscan_iter(states, count=1000):
            tally.add(record.decode() if isinstance(record, bytes) else record)
        return walk.result(demarche, tally, full=False)

    def _store(self, name: str, records: list[tuple[int, str]]) -> Awaitable[object]:
        return self._store_page(keys=[name], args=[";".join(f"{number}={record}" for number, record in records)])

    async def _meta(self, demarche: int) -> dict[str, Any] | None:
        raw = await self._redis.get(_meta(demarche))
        return json.loads(raw) if raw else None


class _Overlapped:
    """Runs each page's Redis write while the next page is being fetched, one write at a time
    and in order; leaving the block waits for the last one (or cancels it on error)."""

    def __init__(self) -> None:
        self._pending: asyncio.Future[object] | None = None

    async def submit(self, write: Awaitable[object]) -> None:
        await self._flush()
        self._pending = asyncio.ensure_future(write)

    async def _flush(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            await pending

    async def __aenter__(self) -> _Overlapped:
        return self

    async def __aexit__(self, kind: object, error: object, trace: object) -> None:
        if error is None:
            await self._flush()
        elif self._pending is not None:
            self._pending.cancel()


class _Walk:
    """What a walk learns besides states: the title, new deposits, and progress to report."""

    def __init__(self, since: dt.datetime | None, progress: Progress | None) -> None:
        self.since, self.progress = since, progress
        self.title, self.pages, self.seen = "", 0, 0
        self.deposits: set[int] = set()  # by number: an update during the walk can bring a dossier twice

    def take(self, page: Page, *, deposits: bool = True) -> None:
        self.title = page.title or self.title
        self.pages += 1
        self.seen += len(page.nodes)
        if deposits and self.since is not None:
            self.deposits.update(node.number for node in page.nodes if node.dateDepot and node.dateDepot > self.since)
        if self.progress:
            self.progress(self.pages, self.seen)

    def result(self, demarche: int, tally: Tally, *, full: bool) -> DemarcheCounts:
        whole = tally.whole()
        return DemarcheCounts(demarche, self.title, whole.by_state, len(self.deposits), full, needs=whole.needs,
                              groups=tally.groups())


async def forget_records(redis: aioredis.Redis, demarche: int) -> None:
    """The démarche's dossier records, whichever token counted them."""
    await redis.delete(_states(demarche))
    await redis.delete(_meta(demarche))


def _states(demarche: int) -> str:
    return key("ds", f"{{{demarche}}}", "states")


def _meta(demarche: int) -> str:
    return key("ds", f"{{{demarche}}}", "meta")
