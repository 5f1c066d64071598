"""The time words people type, in English and French, read into one start in their own zone."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from handlers.core.when import Plan, Problem, Read, read, start_of

PARIS = ZoneInfo("Europe/Paris")
NOW = dt.datetime(2026, 11, 25, 20, 0, tzinfo=dt.UTC)  # a Wednesday, 21:00 in Paris


@pytest.mark.parametrize(("typed", "local"), [
    ("at 14:30 tomorrow", dt.datetime(2026, 11, 26, 14, 30)),
    ("à 14h30 demain", dt.datetime(2026, 11, 26, 14, 30)),
    ("demain 9h", dt.datetime(2026, 11, 26, 9, 0)),
    ("on friday at 9am", dt.datetime(2026, 11, 27, 9, 0)),
    ("vendredi à 21h", dt.datetime(2026, 11, 27, 21, 0)),
    ("wednesday at 20:00", dt.datetime(2026, 12, 2, 20, 0)),  # today's has passed: next week's
    ("at 23:00", dt.datetime(2026, 11, 25, 23, 0)),  # later today
    ("le 03/12 à 10h", dt.datetime(2026, 12, 3, 10, 0)),
    ("on 2027-01-15 at 2:30pm", dt.datetime(2027, 1, 15, 14, 30)),
    ("le 05/01 à 8h", dt.datetime(2027, 1, 5, 8, 0)),  # 5 January: this year's has passed
])
def test_days_and_times_in_both_languages(typed, local):
    found = read(typed)
    assert isinstance(found, Read) and found.plan is not None and found.rest == []
    assert start_of(found.plan, NOW, PARIS) == local.replace(tzinfo=PARIS).astimezone(dt.UTC)


def test_the_other_words_are_left_for_the_command_and_a_topic_is_kept_whole():
    found = read('restricted « Point d’équipe : budget » chaque mardi à 9h15 pour 45 min')
    assert found == Read(Plan(dt.time(9, 15), found.plan.day, True, 45, "Point d’équipe : budget"), ["restricted"])
    assert read("trusted") == Read(None, ["trusted"])  # no time: a room for now


@pytest.mark.parametrize(("typed", "key"), [
    ("at noon", "when.bad_time"), ("at 24:00", "when.bad_time"), ("at 13pm", "when.bad_time"),
    ("at 9 on 31/02", None), ("every someday at 9", "when.bad_weekday"), ("at 9 for 2 days", "when.bad_duration"),
    ("at 9 for 1m", "when.bad_duration"), ('"Budget"', "when.needs_time"), ("for 30m", "when.needs_time"),
])
def test_words_that_are_not_a_time(typed, key):
    found = read(typed)
    if key is None:  # read, then refused as a day that does not exist
        assert isinstance(found, Read) and found.plan is not None
        assert start_of(found.plan, NOW, PARIS) == Problem("when.bad_day", {"words": "31/02"})
    else:
        assert isinstance(found, Problem) and found.key == key


WORDS = st.sampled_from(["at", "à", "a", "on", "le", "every", "chaque", "for", "pour", "today", "demain", "lundi", "friday",
                         "14:30", "14h", "9am", "13pm", "24:00", "0:00", "31/02", "29/02", "2027-02-29", "1h30", "45", "min",
                         "m", '"', "«", "»", "“", "restricted", "<@U0BOB>", "99999999999", "-1", "", "\u202e", "0"])


@settings(max_examples=800, deadline=None)
@example(["14:30", "29/02"], dt.datetime(2028, 3, 1), "Europe/Paris")  # found by this test: no 29 February next year
@given(st.lists(WORDS | st.text(max_size=12), max_size=9),
       st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1)),
       st.sampled_from(["Europe/Paris", "America/Cayenne", "Pacific/Kiritimati", "UTC"]))
def test_any_words_at_any_time_get_a_start_or_a_reason_never_an_error(words, now, zone):
    found = read(" ".join(words))
    assert isinstance(found, Read | Problem)
    if isinstance(found, Read) and found.plan is not None:
        start = start_of(found.plan, now.replace(tzinfo=dt.UTC), ZoneInfo(zone))
        if not isinstance(start, Problem):
            assert now.replace(tzinfo=dt.UTC) < start <= now.replace(tzinfo=dt.UTC) + dt.timedelta(days=120)
            assert start.astimezone(ZoneInfo(zone)).time() == found.plan.at  # the time typed, in the person's zone
