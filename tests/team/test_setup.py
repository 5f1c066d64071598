"""`/dossier team`: one command sets up a démarche's channel, digest, standing room and people; run
again, it completes what is left and makes nothing twice."""

from __future__ import annotations

import asyncio
import logging

from bot.demo.meet import FakeMeet, Fault
from clients.dossiers.subscriptions import Subscriptions
from tests.conftest import text_of
from tests.fakes.slack import BOT_USER, FakeSlack
from tests.slack_requests import command_body, signed_headers
from tests.team.conftest import NOBODY, ROOMS, made_channels, team


async def test_one_command_makes_the_channel_digest_pinned_room_and_invites(digest_bot, demarche, slack: FakeSlack,
                                                                             meet: FakeMeet, redis, caplog):
    caplog.set_level(logging.INFO)
    said = text_of(await team(digest_bot, "101"))

    [(channel, info)] = made_channels(slack).items()
    assert info["name"] == "dn-101-subvention-velo" and info["private"]
    assert set(info["members"]) == {BOT_USER, "U0ADA", "U0ALICE", "U0BOB", "U0SUD"}  # every group's instructeurs, and the setter
    subscription = await Subscriptions(redis).get("T0TEAM", channel)
    assert subscription is not None and [(f.demarche, f.group, f.by) for f in subscription.follows] == [(101, None, "U0ADA")]
    assert subscription.at.strftime("%H:%M") == "09:00"
    [room] = meet.rooms.values()
    assert room["access_level"] == "restricted"
    posted = [m for m in slack.posted(channel) if "team_call" in str(m.get("blocks"))]
    assert len(posted) == 1 and len(slack.pins[channel]) == 1
    assert "ready" in said and "1 of 4 instructeurs has no account in this workspace" in said and NOBODY in said
    assert all(NOBODY not in str(m) for m in slack.messages)  # never in the channel
    assert NOBODY not in caplog.text  # never in a log line


async def test_twice_at_once_and_a_replay_make_one_channel_one_room_one_digest(digest_bot, demarche, slack: FakeSlack,
                                                                               meet: FakeMeet, redis):
    body = command_body("team 101", "U0ADA", slack.response_url("cmd-U0ADA"), command="/dossier")
    other = command_body("team 101", "U0ADA", slack.response_url("cmd-U0ADA-2"), command="/dossier")
    answers = await asyncio.gather(digest_bot.post(body), digest_bot.post(other), digest_bot.post(body, signed_headers(body)))
    assert all(answer.status_code == 200 for answer in answers)
    await digest_bot.runtime.tasks.drain(20)
    await team(digest_bot, "101")  # and once more, later: completes nothing, makes nothing

    [channel] = made_channels(slack)
    assert len(meet.rooms) == 1
    assert len([m for m in slack.posted(channel) if "team_call" in str(m.get("blocks"))]) == 1
    assert len(slack.pins[channel]) == 1
    subscriptions = await Subscriptions(redis).all("T0TEAM")
    assert [(s.channel, s.demarches) for s in subscriptions] == [(channel, (101,))]
    said = [text_of(reply) for reply in slack.responses]
    assert len(said) == 3  # the replay is dropped: both clicks and the later run answered
    assert sum("made (private)" in words for words in said) == 1
    assert all("setting this team space up right now" in words or "ready" in words for words in said)


async def test_room_service_down_says_what_was_done_and_running_again_completes(digest_bot, demarche, slack: FakeSlack,
                                                                                meet: FakeMeet, redis):
    meet.faults.append(Fault("POST", ROOMS, 503, {"detail": "down"}, times=10))
    said = text_of(await team(digest_bot, "101"))
    [channel] = made_channels(slack)
    assert "partly set up" in said and "Not done" in said and "the standing room" in said and "Run the same command again" in said
    assert "made (private)" in said and "Daily digest in the channel at 09:00" in said  # what did not need the room was done
    assert not meet.rooms and channel not in slack.pins

    meet.faults.clear()
    again = text_of(await team(digest_bot, "101"))
    assert "ready" in again and "as before" in again
    assert "Everyone with an account here was already in the channel: nobody to invite." in again  # invited the first time
    third = text_of(await team(digest_bot, "101"))
    assert "Standing video room, pinned in the channel, as before." in third and "made" not in third
    assert list(made_channels(slack)) == [channel] and len(meet.rooms) == 1 and len(slack.pins[channel]) == 1
    assert len(await Subscriptions(redis).all("T0TEAM")) == 1


async def test_the_hour_is_the_one_given_and_moves_when_given_again(digest_bot, demarche, slack: FakeSlack, redis):
    await team(digest_bot, "101 at 8:30")
    [channel] = made_channels(slack)
    assert (await Subscriptions(redis).get("T0TEAM", channel)).at.strftime("%H:%M") == "08:30"
    await team(digest_bot, "101 at 10")
    assert (await Subscriptions(redis).get("T0TEAM", channel)).at.strftime("%H:%M") == "10:00"


async def test_here_adopts_the_channel_it_is_typed_in(digest_bot, demarche, slack: FakeSlack, redis):
    slack.channels["C0HERE"] = {"private": False, "member": True, "members": [BOT_USER]}
    said = text_of(await team(digest_bot, "101 here", channel="C0HERE"))
    assert "This channel" in said and not made_channels(slack)
    assert await Subscriptions(redis).get("T0TEAM", "C0HERE") is not None
    assert {"U0ALICE", "U0BOB", "U0SUD", "U0ADA"} <= set(slack.channels["C0HERE"]["members"])


async def test_the_answer_shows_the_demarches_title_escaped_once(digest_bot, demarche, slack: FakeSlack):
    said = text_of(await team(digest_bot, "101"))
    assert "Subvention &lt;vélo&gt;" in said


async def test_here_in_a_public_channel_the_bot_is_not_in_joins_it_to_invite_and_pin(digest_bot, demarche, slack: FakeSlack):
    slack.channels["C0PUB"] = {"private": False, "member": False, "members": ["U0ALICE"]}
    said = text_of(await team(digest_bot, "101 here", channel="C0PUB"))
    assert "Not done" not in said and "C0PUB" in slack.joined
    assert {"U0BOB", "U0SUD", "U0ADA"} <= set(slack.channels["C0PUB"]["members"]) and len(slack.pins["C0PUB"]) == 1


async def test_dossier_help_names_the_team_space(digest_bot, demarche, slack: FakeSlack):
    before = len(slack.responses)
    await digest_bot.post(command_body("help", "U0ADA", slack.response_url("help"), command="/dossier"))
    await digest_bot.runtime.tasks.drain(20)
    assert "/dossier team 678" in text_of(slack.responses[before])


async def test_an_uninstall_removes_the_workspaces_team_spaces(digest_bot, demarche, slack: FakeSlack, redis):
    from clients.team_spaces import TeamSpaces
    from clients.workspace_erasure import forget_team

    await team(digest_bot, "101")
    assert await TeamSpaces(redis).all("T0TEAM")
    await forget_team(redis, "T0TEAM")
    assert await TeamSpaces(redis).all("T0TEAM") == []


async def test_a_setter_who_erases_what_is_kept_is_no_longer_the_spaces_setter(digest_bot, demarche, slack: FakeSlack, redis):
    from clients.person_erasure import Person, forget_person
    from clients.team_spaces import TeamSpaces

    await team(digest_bot, "101")
    await forget_person(redis, Person("T0TEAM", "U0ADA", "ada@example.gouv.fr", "app"))
    [space] = await TeamSpaces(redis).all("T0TEAM")
    assert space.by == "" and space.channel and space.room  # the space stays the team's
