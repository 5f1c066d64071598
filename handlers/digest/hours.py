"""When a daily digest is due: a local wall-clock hour, right across daylight-saving changes."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo


def due_at(day: dt.date, at: dt.time, zone: ZoneInfo) -> dt.datetime:
    """The instant `day` at `at` local. A time skipped by a spring-forward change falls just after
    the jump (02:30 → 03:30); a repeated one (autumn) is its first occurrence."""
    return dt.datetime.combine(day, at, tzinfo=zone).astimezone(dt.UTC)


def due_day(now: dt.datetime, at: dt.time, zone: ZoneInfo) -> dt.date | None:
    """Today's local date once its run time has come, else None."""
    day = now.astimezone(zone).date()
    return day if now >= due_at(day, at, zone) else None
