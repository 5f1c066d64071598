"""In the space: "Call the team now" posts the standing room with the channel's mention, once however
many click; `/dossier team <n> check` gives the roster's drift, its button invites those missing, and
nobody is removed."""

from __future__ import annotations

import asyncio
import datetime as dt
import json

from bot.demo.ds import FakeDS
from clients.redis_keys import key
from tests.conftest import text_of
from tests.fakes.slack import FakeSlack
from tests.slack_requests import action_body
from tests.team.conftest import click, made_channels, team


async def test_call_the_team_posts_the_room_with_the_channels_mention_once(digest_bot, demarche, slack: FakeSlack, meet):
    await team(digest_bot, "101")
    [channel] = made_channels(slack)
    bodies = [action_body("team_call", "101:", user, slack.response_url(f"c-{user}", channel), channel=channel)
              for user in ("U0ALICE", "U0BOB", "U0ALICE")]
    await asyncio.gather(*(digest_bot.post(body) for body in bodies))
    await digest_bot.runtime.tasks.drain(20)
    calls = [m for m in slack.posted(channel) if "<!channel>" in str(m.get("blocks"))]
    assert len(calls) == 1
    [room] = meet.rooms.values()
    assert room["slug"] in str(calls[0]) and "calls the team now" in str(calls[0])


async def test_someone_who_works_on_nothing_cannot_call_the_team(digest_bot, demarche, slack: FakeSlack):
    await team(digest_bot, "101")
    [channel] = made_channels(slack)
    said = text_of(await click(digest_bot, "team_call", "101:", user="U0MAL", channel=channel))
    assert "Only someone who works on démarche n° 101" in said
    assert not [m for m in slack.posted(channel) if "<!channel>" in str(m.get("blocks"))]


async def test_plan_a_team_meeting_opens_the_planned_room_window_for_the_channel(digest_bot, demarche, slack: FakeSlack):
    await team(digest_bot, "101")
    [channel] = made_channels(slack)
    await digest_bot.post(action_body("team_plan", "101:", "U0ALICE", slack.response_url("plan", channel), channel=channel))
    await digest_bot.runtime.tasks.drain(20)
    [opened] = slack.called("views.open")
    view = json.loads(opened.args["view"]) if isinstance(opened.args["view"], str) else opened.args["view"]
    assert view["callback_id"] == "room_new_modal"
    assert [b["element"].get("initial_conversation") for b in view["blocks"] if b["block_id"] == "post_in"] == [channel]


async def test_check_shows_the_drift_and_its_button_invites_without_removing_anyone(digest_bot, demarche, ds: FakeDS,
                                                                                     slack: FakeSlack):
    await team(digest_bot, "101")
    [channel] = made_channels(slack)
    slack.add_user("U0NEW", "new.one@example.gouv.fr", locale="en-US")
    ds.demarches[101].groups[0].instructeurs.append("new.one@example.gouv.fr")  # joined the group
    ds.demarches[101].groups[1].instructeurs.remove("sud@example.gouv.fr")  # left it
    said = text_of(await team(digest_bot, "101 check"))
    assert "1 instructeur is not in the channel: <@U0NEW>" in said
    assert "1 member is no instructeur of it any more (the bot removes nobody): <@U0SUD>" in said
    reply = await team(digest_bot, "101 check")
    [invite] = [e for b in reply["blocks"] for e in b.get("elements", []) if e.get("action_id") == "team_invite"]
    done = text_of(await click(digest_bot, "team_invite", invite["value"]))
    assert "1 person invited" in done
    assert {"U0NEW", "U0SUD"} <= set(slack.channels[channel]["members"])  # invited; nobody removed
    again = text_of(await team(digest_bot, "101 check"))
    assert "not in the channel" not in again and "<@U0SUD>" in again


async def test_an_administrator_in_the_channel_is_not_listed_as_gone(digest_bot, demarche, ds: FakeDS, slack: FakeSlack, meet):
    meet.add_user("sud@example.gouv.fr")
    await team(digest_bot, "101 group 2", user="U0SUD")  # Sud set it up; Ada, an administrator, joins
    [channel] = made_channels(slack)
    slack.channels[channel]["members"].append("U0ADA")
    said = text_of(await team(digest_bot, "101 group 2 check", user="U0SUD"))
    assert "nobody who does not work on the démarche" in said and "<@U0ADA>" not in said


async def test_check_of_a_space_not_set_up_says_how_to(digest_bot, demarche, slack: FakeSlack):
    said = text_of(await team(digest_bot, "101 check"))
    assert "`/dossier team 101` sets one up" in said


async def test_once_a_week_the_setter_hears_of_the_drift_and_only_then(digest_bot, demarche, ds: FakeDS, slack: FakeSlack, redis):
    await team(digest_bot, "101")
    [channel] = made_channels(slack)
    rosters = digest_bot.runtime.rosters
    assert rosters is not None
    assert await rosters.due(dt.datetime.now(dt.UTC)) == []  # the week starts at the set-up
    slack.add_user("U0NEW", "new.one@example.gouv.fr", locale="en-US")
    ds.demarches[101].groups[0].instructeurs.append("new.one@example.gouv.fr")
    await redis.delete(key("once", "team-roster", "T0TEAM", "101:"))  # a week later
    jobs = await rosters.due(dt.datetime.now(dt.UTC))
    assert len(jobs) == 1 and await rosters.due(dt.datetime.now(dt.UTC)) == []  # one process, once a week
    await jobs[0][1]()
    [told] = [m for m in slack.posted("U0ADA") if "team_invite" in str(m.get("blocks"))]
    assert "<@U0NEW>" in text_of(told) and f"<#{channel}>" in text_of(told)


async def test_a_setter_who_lost_their_rights_hears_nothing_weekly(digest_bot, demarche, ds: FakeDS, slack: FakeSlack, redis):
    await team(digest_bot, "101")
    ds.demarches[101].administrateurs.clear()
    slack.add_user("U0NEW", "new.one@example.gouv.fr", locale="en-US")
    ds.demarches[101].groups[0].instructeurs.append("new.one@example.gouv.fr")
    await redis.delete(key("once", "team-roster", "T0TEAM", "101:"))
    rosters = digest_bot.runtime.rosters
    assert rosters is not None
    [(_, job)] = await rosters.due(dt.datetime.now(dt.UTC))
    assert await job() is False
    assert not [m for m in slack.posted("U0ADA") if "team_invite" in str(m.get("blocks"))]
