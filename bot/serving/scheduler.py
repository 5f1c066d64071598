"""Runs a job once a day at a local wall-clock time, right across daylight-saving changes.

The loop does not sleep until a computed instant (a suspended machine or a clock change would
make it miss); it wakes every `poll` seconds and asks whether today's run is due. The job itself
knows whether today's digest already went out, so a process started after the hour catches up
once, and never twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol
from zoneinfo import ZoneInfo

from clients.dossiers.subscriptions import Subscription
from domain.dossiers.schedule import due_day

log = logging.getLogger(__name__)

#: what is due at a moment: each job's name and how to run it
Due = Callable[[dt.datetime], Awaitable[list[tuple[str, Callable[[], Awaitable[object]]]]]]
#: an outage in the operator's words (the setting to check), or None for a fault to log whole
Explain = Callable[[BaseException], str | None]


def _unexplained(_: BaseException) -> str | None:
    return None


async def run_daily(
    job: Callable[[dt.date], Awaitable[object]],
    at: dt.time,
    zone: ZoneInfo,
    stop: asyncio.Event,
    *,
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    poll: float = 30.0,
    retry_after: dt.timedelta = dt.timedelta(minutes=10),
    explain: Explain = _unexplained,
) -> None:
    """`job(day)` once its local time `at` has come, every day."""

    async def due(current: dt.datetime) -> list[tuple[str, Callable[[], Awaitable[object]]]]:
        day = due_day(current, at, zone)
        return [] if day is None else [("daily job", lambda: job(day))]

    await _loop(due, stop, now=now, poll=poll, retry_after=retry_after, explain=explain)


class Subscribed(Protocol):
    async def due(self, now: dt.datetime) -> list[tuple[dt.date, Subscription]]: ...

    async def run(self, day: dt.date, *, subscription: Subscription | None = None, force: bool = False) -> object: ...


async def run_subscriptions(
    digests: Subscribed,
    stop: asyncio.Event,
    *,
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    poll: float = 30.0,
    retry_after: dt.timedelta = dt.timedelta(minutes=10),
    explain: Explain = _unexplained,
) -> None:
    """Each subscribed channel's digest once its hour has come, every day (the job itself knows
    which went out already, so this asks again at every poll and catches up after a restart)."""

    async def due(current: dt.datetime) -> list[tuple[str, Callable[[], Awaitable[object]]]]:
        return [(f"digest of {day} to {sub.channel}", _runner(digests, day, sub)) for day, sub in await digests.due(current)]

    await _loop(due, stop, now=now, poll=poll, retry_after=retry_after, explain=explain)


async def run_due(
    due: Due,
    stop: asyncio.Event,
    *,
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    poll: float = 30.0,
    retry_after: dt.timedelta = dt.timedelta(minutes=10),
    explain: Explain = _unexplained,
) -> None:
    """Whatever `due` names at each poll: jobs that keep their own calendar (weekly meetings)."""
    await _loop(due, stop, now=now, poll=poll, retry_after=retry_after, explain=explain)


def _runner(digests: Subscribed, day: dt.date, sub: Subscription) -> Callable[[], Awaitable[object]]:
    return lambda: digests.run(day, subscription=sub)


async def _loop(
    due: Due,
    stop: asyncio.Event,
    *,
    now: Callable[[], dt.datetime],
    poll: float,
    retry_after: dt.timedelta,
    explain: Explain,
) -> None:
    """Every `poll` seconds, starts what is due and not running yet, most urgent first, each as a
    task of its own: a long walk never holds back a job due after it. A failed run waits
    `retry_after` before its next try, and the loop itself never dies; stopping cancels what runs."""
    not_before: dict[str, dt.datetime] = {}
    running: dict[str, asyncio.Task[object]] = {}

    def finished(name: str, task: asyncio.Task[object]) -> None:
        running.pop(name, None)
        if task.cancelled():
            return
        error = task.exception()
        if error is None:
            not_before.pop(name, None)
            log.debug("%s: %s", name, task.result())
            return
        not_before[name] = now() + retry_after
        log.error("%s failed; retrying in %s", name, retry_after, exc_info=error)

    asking = _Asking(due, explain, poll)
    try:
        while not stop.is_set():
            current = now()
            jobs = await asking.due(current)
            for name, run in jobs:
                if name in running or current < not_before.get(name, current):
                    continue
                task = asyncio.ensure_future(run())
                running[name] = task
                task.add_done_callback(functools.partial(finished, name))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=poll)
    finally:
        for task in list(running.values()):
            task.cancel()
        await asyncio.gather(*running.values(), return_exceptions=True)


class _Asking:
    """What is due, asked at each poll. An outage the operator can mend (Redis down) is said once,
    in one line naming the setting, and its end once: every loop asking every 30 s wrote a traceback
    each time, which buried what to do. Any other fault is logged whole, each time."""

    def __init__(self, due: Due,
                 explain: Explain, poll: float) -> None:
        self._due, self._explain, self._poll = due, explain, poll
        self._outage: str | None = None

    async def due(self, current: dt.datetime) -> list[tuple[str, Callable[[], Awaitable[object]]]]:
        try:
            jobs = await self._due(current)
        except Exception as error:
            said = self._explain(error)
            if said is None:
                log.exception("could not tell which scheduled jobs are due; asking again in %s s", self._poll)
            elif said != self._outage:
                log.warning("scheduled jobs wait: %s; asking again every %s s", said, self._poll)
            self._outage = said
            return []
        if self._outage is not None:
            log.info("scheduled jobs go on: the outage is over")
            self._outage = None
        return jobs
