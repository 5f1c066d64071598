"""Sharing a room in a channel and by direct message, end to end through signed requests."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.demo.meet import FakeMeet
from tests.conftest import readable_pin, text_of
from tests.fakes.slack import FakeSlack
from tests.slack_requests import action_body, view_submission_body


async def share(bot, room_id: str, channel: str, user: str = "U0ALICE"):
    body = action_body("room_share_channel", room_id, user, bot.slack.response_url("action"), channel=channel)
    response = await bot.post(body)
    assert response.status_code == 200
    await bot.runtime.tasks.drain(5)


def invitation_in(message: dict) -> str:
    return text_of(message)


async def test_share_in_a_public_channel_posts_an_invitation_with_join_level_and_dial_in(bot, slack: FakeSlack, meet: FakeMeet, alice):
    room = meet.add_room(alice, access_level="restricted")
    await share(bot, room["id"], "C0PUBLIC")
    [posted] = slack.posted("C0PUBLIC")
    words = text_of(posted)
    assert "<@U0ALICE> invites you to a video room" in words
    # worded for the people invited, not for the owner
    assert "You will wait in the lobby until <@U0ALICE> lets you in." in words and readable_pin(room) in words
    assert "only people you admit" not in words
    [join] = [b["accessory"] for b in posted["blocks"] if b.get("accessory")]
    assert join["url"] == room["url"] and join["action_id"] == "room_open"
    assert "Shared in <#C0PUBLIC>" in text_of(slack.responses[-1])


async def test_public_channel_the_bot_is_not_in_uses_chat_write_public(bot, slack: FakeSlack, meet: FakeMeet, alice):
    slack.channels["C0OTHER"] = {"private": False, "member": False}
    room = meet.add_room(alice)
    await share(bot, room["id"], "C0OTHER")
    assert len(slack.posted("C0OTHER")) == 1


async def test_private_channel_falls_back_to_response_url_in_channel(bot, slack: FakeSlack, meet: FakeMeet, alice):
    slack.channels["G0SECRET"] = {"private": True, "member": False}
    room = meet.add_room(alice)
    await share(bot, room["id"], "G0SECRET")
    [reply] = slack.responses
    assert reply["response_type"] == "in_channel" and reply["replace_original"] is False
    assert "<@U0ALICE> invites you to a video room" in text_of(reply)


async def test_when_nothing_can_post_the_person_is_told_privately_with_the_link(bot, slack: FakeSlack, meet: FakeMeet, alice):
    slack.channels["D0THEIRS"] = {"private": True, "member": False}
    slack.dead_response_urls.add("action")
    room = meet.add_room(alice)
    await share(bot, room["id"], "D0THEIRS")
    [told] = slack.posted("U0ALICE")  # the app's DM with the person
    assert "I can't post here: I cannot see the channel" in text_of(told) and room["url"] in text_of(told)
    # nothing was shared, so trying again (after inviting the bot) is not refused as a double
    slack.channels["D0THEIRS"]["member"] = True
    await share(bot, room["id"], "D0THEIRS")
    assert len(slack.posted("D0THEIRS")) == 1


async def test_double_click_shares_once(bot, slack: FakeSlack, meet: FakeMeet, alice):
    room = meet.add_room(alice)
    await asyncio.gather(share(bot, room["id"], "C0PUBLIC"), share(bot, room["id"], "C0PUBLIC"))
    assert len(slack.posted("C0PUBLIC")) == 1
    assert sorted("moment ago" in text_of(r) for r in slack.responses) == [False, True]
    await share(bot, room["id"], "C0ELSEWHERE")  # another destination is another share
    assert len(slack.posted("C0ELSEWHERE")) == 1


async def test_cannot_share_someone_elses_room(bot, slack: FakeSlack, meet: FakeMeet, alice):
    meet.add_user("other@example.gouv.fr")
    theirs = meet.add_room("other@example.gouv.fr")
    await share(bot, theirs["id"], "C0PUBLIC")
    assert slack.posted("C0PUBLIC") == []
    assert "not one of yours" in text_of(slack.responses[-1])


def _values(people: list[str], note: str | None) -> dict:
    return {"people": {"people": {"type": "multi_users_select", "selected_users": people}},
            "note": {"note": {"type": "plain_text_input", "value": note}}}


async def open_modal(bot, room_id: str) -> dict:
    response = await bot.click("room_send_dm", room_id)
    assert response.status_code == 200
    await bot.runtime.tasks.drain(5)
    [call] = bot.slack.called("views.open")
    view = call.args["view"]
    return json.loads(view) if isinstance(view, str) else view


async def submit(bot, modal: dict, people: list[str], note: str | None = None):
    body = view_submission_body(modal["callback_id"], _values(people, note), modal["private_metadata"], "U0ALICE")
    response = await bot.post(body)
    await bot.runtime.tasks.drain(5)
    return response


async def test_send_by_dm_modal_round_trip(bot, slack: FakeSlack, meet: FakeMeet, alice):
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="en-GB")
    slack.add_user("U0CAMILLE", "camille@example.gouv.fr", locale="fr-FR")
    slack.add_user("U0ROBOT", None, is_bot=True)
    slack.add_user("U0GONE", "gone@example.gouv.fr", deleted=True)
    room = meet.add_room(alice)

    modal = await open_modal(bot, room["id"])
    assert slack.called("views.open")[0].args["trigger_id"]
    [people_select] = [b["element"] for b in modal["blocks"] if b["block_id"] == "people"]
    assert people_select["type"] == "multi_users_select" and people_select["max_selected_items"] == 20
    assert json.loads(modal["private_metadata"]) == {"room": room["id"], "channel": "C0CHAN"}

    response = await submit(bot, modal, ["U0BOB", "U0CAMILLE", "U0ALICE", "U0ROBOT", "U0GONE"], note="Standup <now> & then")
    assert response.json()["response_action"] == "update"

    to_bob, to_camille = slack.posted("D" + "U0BOB"), slack.posted("D" + "U0CAMILLE")
    assert len(to_bob) == 1 and len(to_camille) == 1
    assert "<@U0ALICE> invites you to a video room" in text_of(to_bob[0]) and room["url"] in text_of(to_bob[0])
    assert "> Standup &lt;now&gt; &amp; then" in text_of(to_bob[0])
    assert "vous invite dans une salle de visio" in text_of(to_camille[0])  # each in their own language

    [update] = slack.called("views.update")
    result = text_of(update.args["view"] if isinstance(update.args["view"], dict) else json.loads(update.args["view"]))
    assert "Sent to <@U0BOB>, <@U0CAMILLE>." in result
    assert "Not sent to <@U0ALICE>: that's you." in result
    assert "Not sent to <@U0ROBOT>: bots and apps don't join rooms." in result
    assert "Not sent to <@U0GONE>: their account is deactivated." in result

    await submit(bot, modal, ["U0BOB"])  # submitted again at once: not sent twice
    assert len(slack.posted("D" + "U0BOB")) == 1
    last = slack.called("views.update")[-1].args["view"]
    assert "already sent a moment ago" in text_of(last if isinstance(last, dict) else json.loads(last))


async def test_modal_refuses_an_empty_or_oversized_choice(bot, slack: FakeSlack, meet: FakeMeet, alice):
    room = meet.add_room(alice)
    modal = await open_modal(bot, room["id"])
    for people in ([], [f"U{i:04d}" for i in range(21)]):
        response = await submit(bot, modal, people)
        assert response.json()["response_action"] == "errors"
        assert "between 1 and 20" in response.json()["errors"]["people"]
    assert slack.called("conversations.open") == []


async def test_rate_limited_slack_calls_are_retried_after_retry_after(bot, slack: FakeSlack, meet: FakeMeet, alice):
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="en-GB")
    slack.rate_limited = {"conversations.open": 1, "chat.postMessage": 1}
    room = meet.add_room(alice)
    modal = await open_modal(bot, room["id"])
    await submit(bot, modal, ["U0BOB"])
    assert len(slack.posted("DU0BOB")) == 1
    assert len(slack.called("conversations.open")) == 2  # the 429, then the retry


async def test_a_slow_slack_profile_does_not_delay_the_modal_ack(bot, slack: FakeSlack, meet: FakeMeet, alice, redis):
    slack.add_user("U0BOB", "bob@example.gouv.fr")
    room = meet.add_room(alice)
    modal = await open_modal(bot, room["id"])
    await redis.flushdb()  # profile no longer cached
    slack.slow["users.info"] = 2.5
    started = asyncio.get_running_loop().time()
    body = view_submission_body(modal["callback_id"], _values(["U0BOB"], None), modal["private_metadata"], "U0ALICE")
    response = await bot.post(body)
    assert response.json()["response_action"] == "update"
    assert asyncio.get_running_loop().time() - started < 1.6  # Slack allows 3 s
    await bot.runtime.tasks.drain(10)
    assert len(slack.posted("DU0BOB")) == 1  # and the work still happens after the ack


RESTRICTED = [
    ("restricted_action", "only some members may post in the channel"),
    ("restricted_action_read_only_channel", "the channel is read-only (announcements)"),
    ("restricted_action_thread_locked", "the thread is locked"),
    ("restricted_action_thread_only_channel", "messages in the channel must go in threads"),
    ("restricted_action_non_threadable_channel", "the channel does not take threads"),
    ("is_archived", "the channel is archived"),
]


@pytest.mark.parametrize(("code", "words"), RESTRICTED)
async def test_sharing_into_a_channel_that_refuses_posts_says_why_in_words(bot, slack: FakeSlack, meet: FakeMeet, alice,
                                                                          code, words):
    slack.channels["C0NEWS"] = {"private": False, "member": True, "restricted": code}
    if code == "is_archived":
        slack.channels["C0NEWS"] = {"private": False, "member": True, "archived": True}
    room = meet.add_room(alice)
    await bot.post(action_body("room_share_channel", room["id"], "U0ALICE", slack.response_url("action", channel="C0NEWS"),
                               channel="C0NEWS"))
    await bot.runtime.tasks.drain(5)
    said = text_of((await slack.wait_responses(1))[-1])
    assert f"I can't post here: {words}." in said and room["url"] in said and "went wrong" not in said
    assert "/invite" not in said  # inviting the bot would not help


@pytest.mark.parametrize(("code", "words"), RESTRICTED[:2])
async def test_a_new_room_for_a_channel_that_refuses_posts_is_still_the_persons(bot, slack: FakeSlack, meet: FakeMeet, alice,
                                                                               code, words):
    slack.channels["C0NEWS"] = {"private": False, "member": True, "restricted": code}
    said = text_of(await bot.reply("new <#C0NEWS|news>"))
    [room] = meet.rooms.values()
    assert "Your video room is ready" in said and room["url"] in said
    assert f"I could not post the invitation in <#C0NEWS>: {words}. Share the link yourself." in said


async def test_the_message_shortcut_and_the_modal_in_a_read_only_channel_give_the_room_and_say_why(bot, slack: FakeSlack,
                                                                                                  meet: FakeMeet, alice):
    from tests.slack_requests import choice, interaction, submission

    slack.channels["C0NEWS"] = {"private": False, "member": True, "restricted": "restricted_action_read_only_channel"}
    message = {"type": "message", "user": "U0BOB", "ts": "1700000000.000700"}
    await bot.post(interaction("message_action", callback_id="room_from_message", channel={"id": "C0NEWS"},
                               message=message, response_url=slack.response_url("shortcut", channel="C0NEWS")))
    await bot.runtime.tasks.drain(5)
    said = text_of((await slack.wait_responses(1))[-1])
    assert "could not post in that conversation: the channel is read-only (announcements). So here is your room." in said
    assert "went wrong" not in said
    await bot.post(submission(choice(post_in="C0NEWS")))
    await bot.runtime.tasks.drain(5)
    [shortcut_room, modal_room] = meet.rooms.values()
    [dm] = slack.posted("U0ALICE")  # the modal's room comes by DM, with why it was not posted
    assert modal_room["url"] in text_of(dm) and "in <#C0NEWS>: the channel is read-only (announcements)" in text_of(dm)
    assert shortcut_room["url"] in said
