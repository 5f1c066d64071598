"""Quiet hours, snoozes and the daily DM's hour in the person's own zone: across midnight, across
the changes of daylight saving time (Europe/Paris on the last Sundays of March and October 2026;
America/New_York on 8 March and 1 November 2026), in UTC moments a test can check by hand."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from clients.dossiers.choices import Daily, Quiet
from domain.dossiers.hearing import daily_day, held_until, quiet_end, tomorrow_morning

PARIS, NEW_YORK = ZoneInfo("Europe/Paris"), ZoneInfo("America/New_York")
NIGHT = Quiet(dt.time(22), dt.time(7))


def utc(year: int, month: int, day: int, hour: int, minute: int) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, tzinfo=dt.UTC)


@pytest.mark.parametrize(("now", "ends"), [
    (utc(2026, 3, 28, 20, 59), None),  # 21:59 CET: not yet
    (utc(2026, 3, 28, 21, 0), utc(2026, 3, 29, 5, 0)),  # 22:00 CET: quiet until 07:00 (CEST by then)
    (utc(2026, 1, 10, 5, 59), utc(2026, 1, 10, 6, 0)),  # 06:59 CET: one minute left
    (utc(2026, 1, 10, 6, 0), None),  # 07:00 CET: over
])
def test_quiet_hours_begin_and_end_at_their_local_hours(now: dt.datetime, ends: dt.datetime | None) -> None:
    assert quiet_end(now, NIGHT, PARIS) == ends


def test_across_midnight_and_the_night_summer_time_begins_in_paris() -> None:
    # 23:00 CET on Saturday 28 March; the clocks go from 02:00 to 03:00 that night: 07:00 CEST is 05:00 UTC
    assert quiet_end(utc(2026, 3, 28, 22, 0), NIGHT, PARIS) == utc(2026, 3, 29, 5, 0)
    # after midnight, in the hour that the change skips over
    assert quiet_end(utc(2026, 3, 29, 0, 30), NIGHT, PARIS) == utc(2026, 3, 29, 5, 0)
    assert quiet_end(utc(2026, 3, 29, 5, 0), NIGHT, PARIS) is None  # 07:00 CEST: over


def test_the_night_winter_time_comes_back_in_paris() -> None:
    # 23:00 CEST on Saturday 24 October; 03:00 becomes 02:00 that night: 07:00 CET is 06:00 UTC
    assert quiet_end(utc(2026, 10, 24, 21, 0), NIGHT, PARIS) == utc(2026, 10, 25, 6, 0)
    assert quiet_end(utc(2026, 10, 25, 5, 30), NIGHT, PARIS) == utc(2026, 10, 25, 6, 0)  # 06:30 CET: still quiet
    assert quiet_end(utc(2026, 10, 25, 6, 0), NIGHT, PARIS) is None


def test_a_second_zone_changes_on_its_own_days() -> None:
    # New York goes to summer time on 8 March 2026, three weeks before Paris
    assert quiet_end(utc(2026, 3, 8, 3, 0), NIGHT, NEW_YORK) == utc(2026, 3, 8, 11, 0)  # 22:00 EST → 07:00 EDT
    assert quiet_end(utc(2026, 3, 8, 3, 0), NIGHT, PARIS) == utc(2026, 3, 8, 6, 0)  # 04:00 → 07:00 CET, winter still
    assert quiet_end(utc(2026, 10, 31, 3, 0), NIGHT, NEW_YORK) == utc(2026, 10, 31, 11, 0)  # 23:00 EDT → 07:00 EDT
    assert quiet_end(utc(2026, 11, 1, 3, 0), NIGHT, NEW_YORK) == utc(2026, 11, 1, 12, 0)  # 23:00 EDT → 07:00 EST


def test_quiet_hours_within_a_day_and_none() -> None:
    lunch = Quiet(dt.time(12), dt.time(14))
    assert quiet_end(utc(2026, 6, 1, 10, 30), lunch, PARIS) == utc(2026, 6, 1, 12, 0)  # 12:30 CEST
    assert quiet_end(utc(2026, 6, 1, 12, 30), lunch, PARIS) is None
    assert quiet_end(utc(2026, 6, 1, 10, 30), None, PARIS) is None


def test_a_snooze_that_ends_inside_quiet_hours_waits_for_their_end() -> None:
    now = utc(2026, 3, 28, 20, 30)  # 21:30 CET: not quiet yet
    assert held_until(now, NIGHT, now + dt.timedelta(hours=1), PARIS) == utc(2026, 3, 29, 5, 0)
    assert held_until(now, NIGHT, now - dt.timedelta(minutes=1), PARIS) is None  # a snooze past
    assert held_until(now, None, now + dt.timedelta(hours=1), PARIS) == now + dt.timedelta(hours=1)


def test_until_tomorrow_is_their_morning() -> None:
    assert tomorrow_morning(utc(2026, 3, 28, 15, 0), None, PARIS) == utc(2026, 3, 29, 6, 0)  # 08:00 CEST
    assert tomorrow_morning(utc(2026, 3, 28, 15, 0), NIGHT, PARIS) == utc(2026, 3, 29, 5, 0)  # when their quiet hours end
    assert tomorrow_morning(utc(2026, 3, 28, 15, 0), None, NEW_YORK) == utc(2026, 3, 29, 12, 0)  # 08:00 EDT


def test_the_daily_hour_is_the_persons_own_across_the_change() -> None:
    paris, new_york = Daily(dt.time(8, 30), "Europe/Paris"), Daily(dt.time(8, 30), "America/New_York")
    assert daily_day(utc(2026, 3, 28, 7, 29), paris, PARIS) is None
    assert daily_day(utc(2026, 3, 28, 7, 30), paris, PARIS) == dt.date(2026, 3, 28)  # 08:30 CET
    assert daily_day(utc(2026, 3, 29, 6, 29), paris, PARIS) is None
    assert daily_day(utc(2026, 3, 29, 6, 30), paris, PARIS) == dt.date(2026, 3, 29)  # 08:30 CEST
    assert daily_day(utc(2026, 3, 29, 12, 29), new_york, NEW_YORK) is None
    assert daily_day(utc(2026, 3, 29, 12, 30), new_york, NEW_YORK) == dt.date(2026, 3, 29)  # 08:30 EDT
