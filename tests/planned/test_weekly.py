"""A weekly meeting: once an occurrence has started, the scheduler asks Slack for the next week's
reminders, at the same wall-clock time across a clock change, from one process only."""

from __future__ import annotations

import asyncio
import datetime as dt
from zoneinfo import ZoneInfo

import icalendar
from freezegun import freeze_time

from bot.demo.meet import FakeMeet
from tests.fakes.slack import FakeSlack

PARIS = ZoneInfo("Europe/Paris")


async def test_the_next_week_is_reminded_at_the_same_local_time_after_the_clock_change(bot, slack: FakeSlack, meet: FakeMeet, alice):
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="fr-FR", tz="America/Cayenne")
    with freeze_time("2027-03-19 09:00:00", real_asyncio=True) as clock:
        await bot.reply('new every monday at 10:00 "Weekly" <@U0BOB|bob>')
        first = dt.datetime(2027, 3, 22, 10, 0, tzinfo=PARIS)  # winter time: 09:00 UTC
        assert {m["post_at"] for m in slack.waiting()} == {int((first - dt.timedelta(minutes=10)).timestamp())}
        [event] = icalendar.Calendar.from_ical(next(iter(slack.uploads.values()))["data"]).walk("VEVENT")
        assert event["rrule"].to_ical() == b"FREQ=WEEKLY"

        assert await bot.runtime.weekly.due(dt.datetime.now(dt.UTC)) == []  # not started yet: nothing to carry
        clock.move_to("2027-03-22 09:05:00")  # the first Monday's meeting has begun
        now = dt.datetime.now(dt.UTC)
        jobs = await bot.runtime.weekly.due(now) + await bot.runtime.weekly.due(now)  # two processes asking
        await asyncio.gather(*(run() for _, run in jobs))
        second = dt.datetime(2027, 3, 29, 10, 0, tzinfo=PARIS)  # summer time: 08:00 UTC
        post_at = int((second - dt.timedelta(minutes=10)).timestamp())
        assert sorted((m["channel"], m["post_at"]) for m in slack.waiting()) == [("DU0ALICE", post_at), ("DU0BOB", post_at)]
        assert "à 5 h," in slack.waiting("DU0BOB")[0]["text"]  # Bob's Cayenne time (UTC-3) for 10:00 in Paris
