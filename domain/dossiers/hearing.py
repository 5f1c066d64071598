"""When a person may hear the watch's news: not inside their quiet hours (wall-clock times of their
own zone, across midnight and across a change of daylight saving time), not while snoozed — and
when their daily DM is due. Plain time arithmetic: the surface reads the zone from Slack.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from clients.dossiers.choices import Daily, Quiet

#: "until tomorrow" ends at this hour of their morning when they set no quiet hours
MORNING = dt.time(8, 0)


def wall(day: dt.date, at: dt.time, zone: ZoneInfo) -> dt.datetime:
    """`at` on `day` in `zone`, as a UTC moment (a time skipped by a change to summer time is read
    as the hour after it)."""
    return dt.datetime.combine(day, at, tzinfo=zone).astimezone(dt.UTC)


def quiet_end(now: dt.datetime, quiet: Quiet | None, zone: ZoneInfo) -> dt.datetime | None:
    """When the quiet hours `now` falls in end; None when `now` is not in them."""
    if quiet is None or quiet.start == quiet.end:
        return None
    local = now.astimezone(zone)
    at = local.time().replace(tzinfo=None)
    if quiet.start < quiet.end:
        inside, day = quiet.start <= at < quiet.end, local.date()
    else:  # across midnight
        inside = at >= quiet.start or at < quiet.end
        day = local.date() + dt.timedelta(days=1) if at >= quiet.start else local.date()
    return wall(day, quiet.end, zone) if inside else None


def held_until(now: dt.datetime, quiet: Quiet | None, snoozed: dt.datetime | None, zone: ZoneInfo) -> dt.datetime | None:
    """Until when news waits (a snooze, then quiet hours it ends in); None: told now."""
    until = snoozed if snoozed is not None and snoozed > now else None
    after_quiet = quiet_end(until or now, quiet, zone)
    return after_quiet or until


def tomorrow_morning(now: dt.datetime, quiet: Quiet | None, zone: ZoneInfo) -> dt.datetime:
    """"Until tomorrow": their next day's morning — when their quiet hours end, else at 08:00."""
    day = now.astimezone(zone).date() + dt.timedelta(days=1)
    return wall(day, quiet.end if quiet is not None else MORNING, zone)


def daily_day(now: dt.datetime, daily: Daily, zone: ZoneInfo) -> dt.date | None:
    """The person's day whose DM is due at `now` (their hour has come today); None before it."""
    local = now.astimezone(zone)
    return local.date() if now >= wall(local.date(), daily.at, zone) else None
