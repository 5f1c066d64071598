"""`/room new … at 14:30 …`: a room for later, its time in each reader's zone, a calendar file and
reminders Slack delivers — end to end through signed commands against the fakes, clock frozen."""

from __future__ import annotations

import datetime as dt
import json
from zoneinfo import ZoneInfo

import icalendar
import pytest
import vobject
from freezegun import freeze_time

from bot.demo.meet import FakeMeet
from bot.redis_server import EmbeddedRedis, connect
from tests.conftest import start_bot, text_of
from tests.fakes.slack import FakeSlack
from tests.slack_requests import choice, command_body, submission

PARIS, CAYENNE = ZoneInfo("Europe/Paris"), ZoneInfo("America/Cayenne")
# Wednesday 24 March 2027, 09:00 UTC: Paris changes to summer time in the night of Saturday to Sunday
NOW = "2027-03-24 09:00:00"


def calendar_in(slack: FakeSlack, channel: str) -> bytes:
    [upload] = [u for u in slack.uploads.values() if u["channel"] == channel]
    assert upload["filename"] == "meeting.ics"
    return upload["data"]


@pytest.fixture
def bob(slack: FakeSlack) -> str:
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="fr-FR", tz="America/Cayenne")
    return "U0BOB"


async def test_a_meeting_after_the_clock_change_reaches_each_person_in_their_own_time(bot, slack: FakeSlack, meet: FakeMeet, alice, bob):
    with freeze_time(NOW, real_asyncio=True):
        reply = await bot.reply('new restricted at 10:00 on monday for 45 min "Budget 2027" <@U0BOB|bob> <#C0TEAM|team>')
        await bot.runtime.tasks.drain(5)
    [room] = meet.rooms.values()
    start = dt.datetime(2027, 3, 29, 10, 0, tzinfo=PARIS)  # summer time: 08:00 UTC, not 09:00
    assert start.astimezone(dt.UTC).hour == 8
    words = text_of(reply)
    assert "Budget 2027" in words and "Monday, March 29, 2027" in words and "10:00" in words and "(Paris time)" in words
    assert room["access_level"] == "restricted"

    # Bob, in French Guiana and in French: 05:00 his time, in his words
    [to_bob] = slack.posted("DU0BOB")
    assert "lundi 29 mars 2027" in text_of(to_bob) and ", 5 h–5 h 45" in text_of(to_bob) and "(heure de Cayenne)" in text_of(to_bob)
    # every reminder 10 minutes before the one start, for Bob, the channel and Alice
    post_at = int((start - dt.timedelta(minutes=10)).timestamp())
    waiting = slack.waiting()
    assert sorted(m["channel"] for m in waiting) == ["C0TEAM", "DU0ALICE", "DU0BOB"]
    assert {m["post_at"] for m in waiting} == {post_at}
    bobs = slack.waiting("DU0BOB")[0]
    assert "4 h 50" not in bobs["text"] and "à 5 h," in bobs["text"] and "10 minutes" in bobs["text"]
    [join] = [e for b in json.loads(json.dumps(bobs["blocks"])) for e in b.get("elements", [])]
    assert join["url"] == room["url"] and join["text"]["text"] == "Rejoindre"  # the Join button, in French

    # the calendar files: one meeting, its time zone, the room as its place; read back by two readers
    for channel in ("DU0BOB", "C0TEAM", "DU0ALICE"):
        data = calendar_in(slack, channel)
        [event] = icalendar.Calendar.from_ical(data).walk("VEVENT")
        assert event.decoded("dtstart") == start and str(event["dtstart"].params["TZID"]) == "Europe/Paris"
        assert event.decoded("duration") == dt.timedelta(minutes=45) and str(event["summary"]) == "Budget 2027"
        assert str(event["location"]).endswith(room["slug"]) and "RRULE" not in event
        second = vobject.readOne(data.decode())
        assert second.vevent.dtstart.value.astimezone(dt.UTC) == start.astimezone(dt.UTC)
        assert second.vevent.uid.value == str(event["uid"])
    pin = room["telephony"]["pin_code"]
    assert pin in str(icalendar.Calendar.from_ical(calendar_in(slack, "DU0BOB")).walk("VEVENT")[0]["description"])


async def test_every_monday_is_weekly_in_the_file_and_french_words_work(bot, slack: FakeSlack, meet: FakeMeet, alice):
    slack.users["U0ALICE"]["locale"] = "fr-FR"
    with freeze_time(NOW, real_asyncio=True):
        reply = await bot.reply('new chaque lundi à 9h15 pour 1h30 « Point d’équipe »')
    words = text_of(reply)
    assert "chaque lundi" in words and "9 h 15–10 h 45" in words and "Point d’équipe" in words
    [event] = icalendar.Calendar.from_ical(calendar_in(slack, "DU0ALICE")).walk("VEVENT")
    assert event["rrule"].to_ical() == b"FREQ=WEEKLY" and event.decoded("duration") == dt.timedelta(minutes=90)


@pytest.mark.parametrize(("typed", "said"), [
    ("new at 25:00", "`25:00` is not a time"),
    ("new at 10:00 on someday", "`someday` is not a day"),
    ("new tomorrow", "At what time?"),
    ("new at 08:00 today", "has passed"),
    ("new at 10:00 on 2027-12-01", "more than 120 days ahead"),
    ("new at 02:30 on 2027-03-28", "does not exist on Sunday, March 28, 2027"),
    ("new at 10:00 tomorrow for 3 days", "is not a duration"),
])
async def test_a_time_that_cannot_be_gets_what_to_type_and_makes_nothing(bot, slack: FakeSlack, meet: FakeMeet, alice, typed, said):
    with freeze_time(NOW, real_asyncio=True):
        reply = await bot.reply(typed)
    assert said in text_of(reply)
    assert meet.rooms == {} and slack.waiting() == [] and slack.uploads == {}


async def test_what_slack_refuses_is_said_to_the_owner_in_words(bot, slack: FakeSlack, meet: FakeMeet, alice):
    slack.channels["C0QUIET"] = {"private": False, "member": False}  # the bot never joined it
    slack.scopes.add("chat:write.public")  # so messages go in, files do not
    with freeze_time(NOW, real_asyncio=True):
        tomorrow_ten = int(dt.datetime(2027, 3, 25, 9, 50, tzinfo=PARIS).timestamp())
        for number in range(30):  # the channel's share of scheduled messages in that 5-minute window
            slack.scheduled[f"QFULL{number}"] = {"id": f"QFULL{number}", "channel": "C0FULL", "post_at": tomorrow_ten}
        reply = await bot.reply("new at 10:00 tomorrow <#C0QUIET|quiet>")
        crowded = await bot.reply("new at 10:00 tomorrow <#C0FULL|full>")
    words = text_of(reply)
    assert "Invitation posted in <#C0QUIET>" in words
    assert "No calendar file for <#C0QUIET>: I am not a member of that channel: invite me there with `/invite`" in words
    assert "No reminder for <#C0FULL>: Slack takes at most 30 scheduled messages per channel in 5 minutes" in text_of(crowded)
    assert sorted(m["channel"] for m in slack.waiting() if not m["id"].startswith("QFULL")) == ["C0QUIET", "DU0ALICE", "DU0ALICE"]


def modal_values(start: int | str, topic: str = "", weekly: bool = False) -> dict:
    return {**choice("trusted", post_in="C0TEAM"),
            "starts_at": {"starts_at": {"type": "datetimepicker", "selected_date_time": start}},
            "topic": {"topic": {"type": "plain_text_input", "value": topic}},
            "weekly": {"weekly": {"type": "checkboxes", "selected_options": [{"value": "weekly"}] if weekly else []}}}


async def test_the_modal_plans_a_weekly_room_with_its_topic(bot, slack: FakeSlack, meet: FakeMeet, alice):
    start = dt.datetime(2027, 3, 26, 15, 0, tzinfo=PARIS)
    with freeze_time(NOW, real_asyncio=True):
        answer = await bot.post(submission(modal_values(int(start.timestamp()), "Revue <b>", weekly=True)))
        assert answer.status_code == 200 and answer.text == ""  # the modal closes
        await bot.runtime.tasks.drain(5)
        assert {m["channel"] for m in slack.waiting()} == {"C0TEAM", "DU0ALICE"}
    [dm] = slack.posted("U0ALICE")
    assert "Revue &lt;b&gt;" in text_of(dm) and "every Friday" in text_of(dm) and "15:00" in text_of(dm)
    [event] = icalendar.Calendar.from_ical(calendar_in(slack, "DU0ALICE")).walk("VEVENT")
    assert str(event["summary"]) == "Revue <b>" and event["rrule"].to_ical() == b"FREQ=WEEKLY"
    assert {u["title"] for u in slack.uploads.values()} == {"Revue <b>"}  # a file's title is not Slack text: as written
    assert [room["access_level"] for room in meet.rooms.values()] == ["trusted"]


@pytest.mark.parametrize(("picked", "said"), [
    (int(dt.datetime(2027, 3, 20, 9, 0, tzinfo=PARIS).timestamp()), "That time has passed"),
    (int(dt.datetime(2027, 9, 20, 9, 0, tzinfo=PARIS).timestamp()), "more than 120 days ahead"),
    ("99999999999999999999", "Pick a day and a time"),
])
async def test_the_modal_answers_a_start_that_cannot_be_on_its_field(bot, slack: FakeSlack, meet: FakeMeet, alice, picked, said):
    with freeze_time(NOW, real_asyncio=True):
        answer = await bot.post(submission(modal_values(picked)))
    assert answer.json()["response_action"] == "errors" and said in answer.json()["errors"]["starts_at"]
    assert meet.rooms == {} and slack.uploads == {}


async def test_a_replayed_command_plans_one_meeting(bot, slack: FakeSlack, meet: FakeMeet, alice):
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="fr-FR")
    body = command_body('new at 10:00 tomorrow "Budget" <@U0BOB|bob>', "U0ALICE", slack.response_url())
    with freeze_time(NOW, real_asyncio=True):
        for _ in range(3):  # a captured command, validly signed, sent again
            assert (await bot.post(body)).status_code == 200
        await slack.wait_responses(1)
        await bot.runtime.tasks.drain(5)
        assert len(meet.rooms) == 1 and len(slack.waiting()) == 2 and len(slack.uploads) == 2
    assert len(slack.posted("DU0BOB")) == 1 and len(slack.responses) == 1


async def test_without_its_storage_no_meeting_is_half_made(settings, slack: FakeSlack, meet: FakeMeet, alice, tmp_path):
    server = EmbeddedRedis(tmp_path / "redis")
    server.start()
    redis = connect(server.url)
    try:
        async for bot in start_bot(settings, redis, slack):
            assert "no video room yet" in text_of(await bot.reply("list"))  # profile and token cached
            server.stop()
            with freeze_time(NOW, real_asyncio=True):
                reply = await bot.reply('new at 10:00 tomorrow "Budget"')
            assert "storage is unavailable" in text_of(reply)
            assert meet.rooms == {} and slack.waiting() == [] and slack.uploads == {}
    finally:
        await redis.aclose()
        server.stop()


def test_serving_leaves_the_calendar_library_out_until_a_meeting_is_planned():
    import subprocess
    import sys

    from tests.conftest import ROOT

    code = "import sys, bot.serving.slack_app, handlers.listeners; print(sorted(m for m in ('icalendar', 'dateutil') if m in sys.modules))"
    shown = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == "[]"  # 60 ms and 3 MiB of start-up, paid by the first planned meeting instead


async def test_more_people_than_a_room_goes_to_is_refused_before_anything_is_sent(bot, slack: FakeSlack, meet: FakeMeet, alice):
    crowd = " ".join(f"<@U0P{n:04d}|p{n}>" for n in range(21))
    with freeze_time(NOW, real_asyncio=True):
        reply = await bot.reply(f'new at 10:00 tomorrow "All hands" {crowd}')
    assert "A room goes to 20 people at most" in text_of(reply)
    assert meet.rooms == {} and slack.called("conversations.open") == [] and slack.waiting() == []
