"""Home's "Upcoming": each person's planned rooms; Cancel and Move for the owner, end to end with
the Slack calls they make (reminders removed and replaced, notices, calendar files of the same UID)."""

from __future__ import annotations

import datetime as dt
import json
from zoneinfo import ZoneInfo

import icalendar
import pytest
from freezegun import freeze_time

from bot.demo.meet import FakeMeet
from tests.conftest import text_of
from tests.fakes.slack import FakeSlack
from tests.slack_requests import home_opened, send_event, view_submission_body

NOW = "2027-03-24 09:00:00"
PARIS = ZoneInfo("Europe/Paris")
START = dt.datetime(2027, 3, 25, 10, 0, tzinfo=PARIS)


def latest_home(slack: FakeSlack, user: str) -> dict:
    [*_, call] = [c for c in slack.called("views.publish") if c.args["user_id"] == user]
    view = call.args["view"]
    return json.loads(view) if isinstance(view, str) else view


def buttons(view: dict) -> dict[str, dict]:
    return {e["action_id"]: e for b in view["blocks"] for e in b.get("elements", []) if e.get("type") == "button"}


def files_in(slack: FakeSlack, channel: str) -> list[icalendar.cal.Component]:
    return [icalendar.Calendar.from_ical(u["data"]).walk("VEVENT")[0] for u in slack.uploads.values() if u["channel"] == channel]


@pytest.fixture
async def planned(bot, slack: FakeSlack, meet: FakeMeet, alice) -> str:
    """Alice's meeting tomorrow at 10:00 with Bob and #team; its id, from her Home's Cancel button."""
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="fr-FR", tz="America/Cayenne")
    with freeze_time(NOW, real_asyncio=True):
        await bot.reply('new at 10:00 tomorrow "Budget & co" <@U0BOB|bob> <#C0TEAM|team>')
        await send_event(bot, home_opened("U0ALICE"), event_id="EvHome1")
    return str(buttons(latest_home(slack, "U0ALICE"))["room_cancel"]["value"])


async def test_upcoming_shows_the_owner_her_controls_and_the_invitee_his_time(bot, slack: FakeSlack, planned):
    home = latest_home(slack, "U0ALICE")
    assert "Upcoming" in text_of(home) and "Budget" in text_of(home) and "10:00" in text_of(home)
    assert {"room_cancel", "room_reschedule", "room_open"} <= set(buttons(home))
    with freeze_time(NOW, real_asyncio=True):
        await send_event(bot, home_opened("U0BOB"), event_id="EvHome2")
    bobs = latest_home(slack, "U0BOB")
    assert "À venir" in text_of(bobs) and ", 6 h–7 h" in text_of(bobs) and "Invitation de <@U0ALICE>" in text_of(bobs)
    assert "room_cancel" not in buttons(bobs) and "room_open" in buttons(bobs)


async def test_cancel_removes_the_reminders_tells_everyone_once_and_sends_a_cancelling_file(bot, slack: FakeSlack, planned):
    assert len(slack.waiting()) == 3
    [first] = files_in(slack, "DU0BOB")
    with freeze_time(NOW, real_asyncio=True):
        for _ in range(2):  # a double click
            assert (await bot.click("room_cancel", planned)).status_code == 200
            await bot.runtime.tasks.drain(5)
    assert slack.waiting() == []
    assert [m for m in slack.posted("DU0BOB") if "a annulé" in text_of(m)] != []
    assert len([m for m in slack.posted("C0TEAM") if "cancelled" in text_of(m)]) == 1
    _, cancelling = files_in(slack, "DU0BOB")
    assert cancelling["uid"] == first["uid"] and cancelling["sequence"] == 1 and cancelling["status"] == "CANCELLED"
    assert [u for u in slack.uploads.values() if u["channel"] == "DU0BOB"][-1]["data"].startswith(b"BEGIN:VCALENDAR")
    assert b"METHOD:CANCEL" in [u for u in slack.uploads.values() if u["channel"] == "DU0BOB"][-1]["data"]
    home = latest_home(slack, "U0ALICE")
    assert "Cancelled: Budget &amp; co." in text_of(home) and "room_cancel" not in buttons(home)  # escaped once


async def test_only_the_owner_may_cancel(bot, slack: FakeSlack, planned):
    with freeze_time(NOW, real_asyncio=True):
        await bot.click("room_cancel", planned, user="U0BOB")
        await bot.runtime.tasks.drain(5)
    assert len(slack.waiting()) == 3
    assert "Seul <@U0ALICE>" in text_of(latest_home(slack, "U0BOB"))


async def test_move_replaces_the_reminders_and_sends_an_updated_file(bot, slack: FakeSlack, meet: FakeMeet, planned):
    moved = START + dt.timedelta(days=1, hours=4)  # Friday 14:00 in Paris
    with freeze_time(NOW, real_asyncio=True):
        await bot.click("room_reschedule", planned)
        await bot.runtime.tasks.drain(5)
        [opened] = slack.called("views.open")
        modal = json.loads(opened.args["view"]) if isinstance(opened.args["view"], str) else opened.args["view"]
        assert modal["callback_id"] == "room_reschedule_modal" and modal["private_metadata"] == planned

        def submit(when: int) -> str:
            values = {"starts_at": {"starts_at": {"type": "datetimepicker", "selected_date_time": when}}}
            return view_submission_body("room_reschedule_modal", values, planned, "U0ALICE")

        past = await bot.post(submit(int(START.timestamp()) - 86400 * 2))
        assert past.json()["response_action"] == "errors" and "passed" in past.json()["errors"]["starts_at"]
        assert (await bot.post(submit(int(moved.timestamp())))).status_code == 200
        await bot.runtime.tasks.drain(5)
    post_at = int((moved - dt.timedelta(minutes=10)).timestamp())
    waiting = sorted((m["channel"], m["post_at"]) for m in slack.waiting())
    assert waiting == [("C0TEAM", post_at), ("DU0ALICE", post_at), ("DU0BOB", post_at)]
    first, updated = files_in(slack, "DU0BOB")
    assert updated["uid"] == first["uid"] and updated["sequence"] == 1 and updated.decoded("dtstart") == moved
    [room] = meet.rooms.values()
    assert room["telephony"]["pin_code"] in str(updated["description"])  # read again from the service
    assert [m for m in slack.posted("DU0BOB") if "a déplacé" in text_of(m) and ", 10 h–" in text_of(m)] != []


async def test_a_meeting_that_has_begun_leaves_upcoming(bot, slack: FakeSlack, planned):
    with freeze_time(START.astimezone(dt.UTC) + dt.timedelta(minutes=1), real_asyncio=True):
        await send_event(bot, home_opened("U0ALICE"), event_id="EvHomeLater")
    home = latest_home(slack, "U0ALICE")
    assert "Upcoming" not in text_of(home) and "room_cancel" not in buttons(home)
