"""Planned meetings under pressure: a Move and a Cancel at the same moment, weekly series across
clock changes in three zones, a person planning far too many, and control characters in a topic."""

from __future__ import annotations

import asyncio
import datetime as dt
from zoneinfo import ZoneInfo

import icalendar
import pytest
from freezegun import freeze_time

from bot.demo.meet import FakeMeet
from clients.meetings import MOST_OWNED
from handlers.services import Services
from tests.conftest import Bot, text_of
from tests.fakes.slack import TEAM, FakeSlack
from tests.slack_requests import action_body, view_submission_body

PARIS = ZoneInfo("Europe/Paris")


def _services(bot: Bot) -> Services:
    return bot.runtime.weekly.services


def cancel_click(slack: FakeSlack, meeting_id: str) -> str:
    return action_body("room_cancel", meeting_id, "U0ALICE", slack.response_url("action"))


def move_submission(meeting_id: str, start: dt.datetime) -> str:
    values = {"starts_at": {"starts_at": {"type": "datetimepicker", "selected_date_time": int(start.timestamp())}}}
    return view_submission_body("room_reschedule_modal", values, meeting_id, "U0ALICE")


@pytest.mark.parametrize("cancel_first", [True, False])
async def test_move_and_cancel_at_once_leave_it_cancelled(bot: Bot, slack: FakeSlack, meet: FakeMeet, alice, cancel_first: bool):
    with freeze_time("2027-03-24 09:00:00", real_asyncio=True):
        for index in range(8):
            await bot.reply(f'new at {10 + index}:00 tomorrow "Point {index}" <#C0TEAM|team>')
        planned = await _services(bot).meetings.upcoming(TEAM, "U0ALICE", dt.datetime.now(dt.UTC), most=100)
        assert len(planned) == 8 and len(slack.waiting()) == 16
        for meeting in planned:
            moved = meeting.start + dt.timedelta(days=1)
            bodies = [cancel_click(slack, meeting.id), move_submission(meeting.id, moved)]
            answers = await asyncio.gather(*(bot.post(body) for body in (bodies if cancel_first else bodies[::-1])))
            assert {answer.status_code for answer in answers} == {200}
        await bot.runtime.tasks.drain(30)
        assert await _services(bot).meetings.upcoming(TEAM, "U0ALICE", dt.datetime.now(dt.UTC), most=100) == []
    assert slack.waiting() == []  # no reminder left behind
    told = [text_of(m) for m in slack.posted("C0TEAM") if "cancelled" in text_of(m) or "moved" in text_of(m)]
    for index in range(8):  # each meeting: at most a move, then its cancellation, last
        about = [line for line in told if f"Point {index}" in line]
        assert about and "cancelled" in about[-1] and sum("cancelled" in line for line in about) == 1, about


WEEKLY = [  # zone, the first occurrence, then each one's start in UTC, as a calendar reads the weekly rule
    ("America/New_York", "2027-03-05 12:00:00", "sunday", ["2027-03-07T07:30", "2027-03-14T07:30", "2027-03-21T06:30",
                                                           "2027-03-28T06:30"]),
    ("Europe/Paris", "2027-03-19 12:00:00", "sunday", ["2027-03-21T01:30", "2027-03-28T01:30", "2027-04-04T00:30",
                                                       "2027-04-11T00:30"]),
    ("Australia/Sydney", "2027-03-24 12:00:00", "sunday", ["2027-03-27T15:30", "2027-04-03T15:30", "2027-04-10T16:30",
                                                           "2027-04-17T16:30"]),
]


@pytest.mark.parametrize(("zone", "today", "day", "expected"), WEEKLY, ids=[w[0] for w in WEEKLY])
async def test_a_weekly_series_keeps_its_wall_clock_time_across_clock_changes(bot: Bot, slack: FakeSlack, meet: FakeMeet,
                                                                           zone: str, today: str, day: str, expected: list[str]):
    """Every Sunday at 02:30: the day the clocks skip 02:30, 03:30 (the offset before the change,
    as RFC 5545 reads a weekly rule); then 02:30 again for good. Where 02:30 happens twice, the first."""
    slack.add_user("U0ZED", "zed@example.gouv.fr", locale="en-US", tz=zone)
    meet.add_user("zed@example.gouv.fr")
    starts = []
    with freeze_time(today, real_asyncio=True) as clock:
        reply = await bot.reply(f'new every {day} at 02:30 "Astreinte"', user="U0ZED")
        assert "Astreinte" in text_of(reply)
        [event] = icalendar.Calendar.from_ical(next(iter(slack.uploads.values()))["data"]).walk("VEVENT")
        assert event["rrule"].to_ical() == b"FREQ=WEEKLY" and event.decoded("dtstart").strftime("%H:%M") == "02:30"
        for _ in expected:
            [meeting] = await _services(bot).meetings.upcoming(TEAM, "U0ZED", dt.datetime.now(dt.UTC))
            starts.append(meeting.start.strftime("%Y-%m-%dT%H:%M"))
            clock.move_to(meeting.start + dt.timedelta(minutes=5))  # this occurrence has begun
            for _, run in await bot.runtime.weekly.due(dt.datetime.now(dt.UTC)):
                await run()
    assert starts == expected


async def test_one_person_plans_at_most_fifty_meetings(bot: Bot, slack: FakeSlack, meet: FakeMeet, alice):
    with freeze_time("2027-03-24 09:00:00", real_asyncio=True):
        before = len(slack.responses)
        days = [dt.date(2027, 3, 25) + dt.timedelta(days=offset) for offset in range(60)]
        await asyncio.gather(*(bot.command(f'new on {day:%d/%m} at 10:00 "Burst {day}"') for day in days))
        replies = await slack.wait_responses(before + 60, timeout=60)
    said = [text_of(reply) for reply in replies[before:]]
    assert len(meet.rooms) == MOST_OWNED  # the cap held under the burst: no room beyond it
    refused = [line for line in said if f"You already have {MOST_OWNED} meetings planned" in line]
    assert len(refused) == 60 - MOST_OWNED and all("Nothing was made" in line for line in refused)


async def test_control_characters_of_a_topic_reach_no_calendar_file(bot: Bot, slack: FakeSlack, alice):
    with freeze_time("2027-03-24 09:00:00", real_asyncio=True):
        await bot.reply('new at 10:00 tomorrow "Bud\x00get\x1b[31m\x7f"')
    [upload] = slack.uploads.values()
    [event] = icalendar.Calendar.from_ical(upload["data"]).walk("VEVENT")
    assert "Budget[31m" in str(event["summary"])
    assert not any(byte in upload["data"] for byte in (b"\x00", b"\x1b", b"\x7f"))
