"""When a daily digest is due: a local wall-clock hour, right across daylight-saving changes; and
the first day a subscription is due, so that what `/digest` says of the next one is what happens."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo


def due_at(day: dt.date, at: dt.time, zone: ZoneInfo) -> dt.datetime:
    """The instant `day` at `at` local. A time skipped by a spring-forward change falls just after
    the jump (02:30 → 03:30); a repeated one (autumn) is its first occurrence."""
    return dt.datetime.combine(day, at, tzinfo=zone).astimezone(dt.UTC)


def due_day(now: dt.datetime, at: dt.time, zone: ZoneInfo, since: dt.date | None = None) -> dt.date | None:
    """Today's local date once its run time has come (and `since`, the subscription's first day,
    has come), else None."""
    day = now.astimezone(zone).date()
    if since is not None and day < since:
        return None
    return day if now >= due_at(day, at, zone) else None


def first_day(now: dt.datetime, at: dt.time, zone: ZoneInfo) -> dt.date:
    """The first day of a digest set `now` for `at`: today while its hour is still ahead, else
    tomorrow — a digest set at 19:34 for 08:30 starts tomorrow at 08:30, not at once."""
    day = now.astimezone(zone).date()
    return day if now < due_at(day, at, zone) else day + dt.timedelta(days=1)


def next_due(now: dt.datetime, at: dt.time, zone: ZoneInfo, since: dt.date | None, posted_today: bool) -> dt.datetime | None:
    """When the scheduler will next post (local time), or None when it is due and not posted yet
    (it goes out at the next poll): the rules of `due_day` and of the job's once-a-day mark."""
    day = now.astimezone(zone).date()
    if since is not None and since > day:
        return due_at(since, at, zone).astimezone(zone)
    if posted_today:  # by `/digest now` too: the job posts once a day
        return due_at(day + dt.timedelta(days=1), at, zone).astimezone(zone)
    if now < due_at(day, at, zone):
        return due_at(day, at, zone).astimezone(zone)
    return None
