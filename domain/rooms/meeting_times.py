"""A planned meeting's times, whatever surface shows them: the zone it is read in, the wall-clock
time a weekly series keeps, its next week, and when its reminder is due."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from clients.meetings import Meeting

#: A reminder due sooner than this is not scheduled: the invitation itself has just arrived.
SOONEST = dt.timedelta(minutes=1)


def zone_named(name: str | None, default: str) -> ZoneInfo:
    """A person's Slack time zone, or the deployment's (DIGEST_TIMEZONE) when Slack gives none we know."""
    try:
        return ZoneInfo(name or default)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(default)


def wall_of(start: dt.datetime, zone_name: str) -> str:
    """A series' wall-clock time in its zone ("HH:MM")."""
    return start.astimezone(zone_named(zone_name, "UTC")).strftime("%H:%M")


def next_week(start: dt.datetime, zone_name: str, wall: str | None = None) -> dt.datetime:
    """The occurrence a week after `start`: the series' wall-clock time (`wall`; else `start`'s)
    on the same weekday, in the owner's zone. A time that a clock change skips that day is read as
    a calendar reads the file's weekly rule (RFC 5545: with the offset before the change, so 02:30
    becomes 03:30); the week after, it is 02:30 again. A time that happens twice is the first."""
    zone = zone_named(zone_name, "UTC")
    local = start.astimezone(zone)
    hours, minutes = (int(part) for part in (wall or local.strftime("%H:%M")).split(":"))
    day = local.date() + dt.timedelta(days=7)
    return dt.datetime(day.year, day.month, day.day, hours, minutes, tzinfo=zone).astimezone(dt.UTC)


def reminder_time(meeting: Meeting, minutes: int, now: dt.datetime) -> dt.datetime | None:
    """When `meeting`'s reminder is due, `minutes` before its start; None when that is too soon for one."""
    post_at = meeting.start - dt.timedelta(minutes=minutes)
    return None if post_at - now < SOONEST else post_at
