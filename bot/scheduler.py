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
import logging
from collections.abc import Awaitable, Callable
from zoneinfo import ZoneInfo

log = logging.getLogger(__name__)


def due_at(day: dt.date, at: dt.time, zone: ZoneInfo) -> dt.datetime:
    """The instant `day` at `at` local. A time skipped by a spring-forward change falls just after
    the jump (02:30 → 03:30); a repeated one (autumn) is its first occurrence."""
    return dt.datetime.combine(day, at, tzinfo=zone).astimezone(dt.UTC)


def due_day(now: dt.datetime, at: dt.time, zone: ZoneInfo) -> dt.date | None:
    """Today's local date once its run time has come, else None."""
    day = now.astimezone(zone).date()
    return day if now >= due_at(day, at, zone) else None


async def run_daily(
    job: Callable[[dt.date], Awaitable[object]],
    at: dt.time,
    zone: ZoneInfo,
    stop: asyncio.Event,
    *,
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    poll: float = 30.0,
    retry_after: dt.timedelta = dt.timedelta(minutes=10),
) -> None:
    not_before: dt.datetime | None = None
    while not stop.is_set():
        current = now()
        day = due_day(current, at, zone)
        if day is not None and (not_before is None or current >= not_before):
            try:
                outcome = await job(day)
                not_before = None
                log.debug("daily job for %s: %s", day, outcome)
            except Exception:  # a failed run is retried later; the loop itself must never die
                log.exception("daily job for %s failed; retrying in %s", day, retry_after)
                not_before = current + retry_after
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=poll)
