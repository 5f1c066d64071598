"""Rooms from anywhere in Slack, end to end through signed requests: the new-room modal (global
shortcut and Home), a room about a message, invitations in one `/room new`, the Workflow step."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from bot.demo.meet import FakeMeet
from tests.conftest import text_of
from tests.fakes.slack import TEAM, FakeSlack
from tests.slack_requests import choice, event_body, interaction, signed_headers, submission

ROOMS = "/external-api/v1.0/rooms/"


def opened_view(slack: FakeSlack) -> dict:
    view = slack.called("views.open")[-1].args["view"]
    return json.loads(view) if isinstance(view, str) else view


async def test_the_global_shortcut_opens_a_modal_offering_only_accepted_levels(bot, slack: FakeSlack, meet: FakeMeet, alice):
    meet.add_room(alice)
    await bot.post(urlencode({"payload": json.dumps({"type": "block_actions", "team": {"id": TEAM},
                   "user": {"id": "U0ALICE", "team_id": TEAM}, "trigger_id": "1.2", "container": {"type": "view"},
                   "actions": [{"action_id": "home_new_room", "type": "static_select",
                                "selected_option": {"value": "public"}}]})}))  # the service refuses public: learned
    await bot.runtime.tasks.drain(5)
    response = await bot.post(interaction("shortcut", callback_id="room_new_shortcut"))
    assert response.status_code == 200
    await bot.runtime.tasks.drain(5)
    view = opened_view(slack)
    assert view["callback_id"] == "room_new_modal" and view["title"]["text"] == "New video room"
    blocks = {b["block_id"]: b["element"] for b in view["blocks"]}
    assert [o["value"] for o in blocks["level"]["options"]] == ["trusted", "restricted"]
    assert [o["value"] for o in blocks["publish"]["options"]] == ["camera", "microphone", "screen_share", "screen_share_audio"]
    assert [o["value"] for o in blocks["mute"]["options"]] == ["everyone_can_mute"]


async def test_home_offers_the_modal_too(bot, slack: FakeSlack, alice):
    response = await bot.post(interaction("block_actions", container={"type": "view"},
                                          actions=[{"action_id": "home_new_room_options", "type": "button"}]))
    assert response.status_code == 200
    await bot.runtime.tasks.drain(5)
    assert opened_view(slack)["callback_id"] == "room_new_modal"


async def test_a_submitted_modal_makes_one_room_with_its_settings_sent_by_dm_and_posted(bot, slack: FakeSlack, meet: FakeMeet, alice):
    body = submission(choice("restricted", ["camera", "screen_share"], mute=True, post_in="C0PUBLIC"))
    first = await bot.post(body)
    again = await bot.post(body)  # a double submission
    assert first.status_code == again.status_code == 200 and first.text == ""
    await bot.runtime.tasks.drain(5)
    [room] = meet.rooms.values()
    assert room["access_level"] == "restricted"
    assert room["configuration"] == {"can_publish_sources": ["camera", "screen_share"], "everyone_can_mute": True}
    [dm] = slack.posted("U0ALICE")
    actions = [e["action_id"] for b in dm["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert "Your video room is ready" in text_of(dm) and "room_send_dm" in actions
    assert "Invitation posted in <#C0PUBLIC>" in text_of(dm)
    [posted] = slack.posted("C0PUBLIC")
    assert room["url"] in json.dumps(posted)


async def test_a_refused_level_comes_back_on_the_modals_field(bot, slack: FakeSlack, meet: FakeMeet, alice):
    response = await bot.post(submission(choice("public")))
    assert response.status_code == 200
    answer = response.json()
    assert answer["response_action"] == "errors" and "Public rooms are disabled" in answer["errors"]["level"]
    assert meet.rooms == {} and slack.posted("U0ALICE") == []
    meet.public_allowed = True  # the person picks again and submits the same modal: it works
    assert (await bot.post(submission(choice("public")))).text == ""
    await bot.runtime.tasks.drain(5)
    assert len(meet.rooms) == 1


async def test_a_room_about_a_message_is_posted_in_its_thread(bot, slack: FakeSlack, meet: FakeMeet, alice):
    message = {"type": "message", "user": "U0BOB", "ts": "1700000000.000500", "text": "on en parle ?"}
    for _ in range(2):  # a double click
        response = await bot.post(interaction("message_action", callback_id="room_from_message", channel={"id": "C0PUBLIC"},
                                              message=message, response_url=slack.response_url("shortcut")))
        assert response.status_code == 200
    await bot.runtime.tasks.drain(5)
    [room] = meet.rooms.values()
    [posted] = slack.posted("C0PUBLIC")
    assert posted["thread_ts"] == "1700000000.000500" and room["url"] in json.dumps(posted)
    assert slack.responses == []


async def test_a_room_about_a_message_where_the_bot_cannot_post_comes_privately_with_why(bot, slack: FakeSlack, meet: FakeMeet, alice):
    slack.channels["G0SECRET"] = {"private": True, "member": False}
    message = {"type": "message", "user": "U0BOB", "ts": "1700000000.000600"}
    await bot.post(interaction("message_action", callback_id="room_from_message", channel={"id": "G0SECRET"},
                               message=message, response_url=slack.response_url("shortcut")))
    await bot.runtime.tasks.drain(5)
    [room] = meet.rooms.values()
    [reply] = await slack.wait_responses(1)
    words = text_of(reply)
    assert "could not post in that conversation: I cannot see the channel (it is private and I am not in it" in words
    assert "Invite me with `/invite`" in words and room["url"] in words
    assert slack.posted("G0SECRET") == []


async def test_room_new_sends_to_the_people_and_the_channel_mentioned(bot, slack: FakeSlack, meet: FakeMeet, alice):
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="fr-FR")
    slack.add_user("U0ROBOT", "robot@example.gouv.fr", is_bot=True)
    reply = await bot.reply("new restricted <@U0BOB|bob> <@U0ROBOT|robot> <#C0PUBLIC|general>")
    [room] = meet.rooms.values()
    assert room["access_level"] == "restricted"
    words = text_of(reply)
    assert "Your video room is ready" in words and "<@U0BOB>" in words and "Invitation posted in <#C0PUBLIC>" in words
    assert "Not sent to <@U0ROBOT>: bots and apps don't join rooms" in words  # skipped, and said so
    [to_bob] = slack.posted("DU0BOB")
    assert "vous invite" in text_of(to_bob)  # in Bob's language
    assert len(slack.posted("C0PUBLIC")) == 1


async def test_room_new_mentions_parse_without_changing_other_words():
    from clients.rooms.models import AccessLevel
    from handlers.rooms.command import Help, New, parse

    assert parse("new <@U0BOB|Bob Martin> trusted <#C0ABC|général>") == New(AccessLevel.TRUSTED, ("U0BOB",), "C0ABC")
    assert parse("new <@U0BOB> <@U0BOB>") == New(None, ("U0BOB",), None)
    assert isinstance(parse("new trusted please"), Help) and isinstance(parse("new <#C1AB> <#C2AB>"), Help)


def step_event(owner: str, level: str | None = None) -> dict:
    inputs = {"owner": owner} | ({"access_level": level} if level is not None else {})
    return {"type": "function_executed", "function": {"id": "Fn0ROOM", "callback_id": "create_room", "title": "Create a video room"},
            "inputs": inputs, "function_execution_id": "Fx0001", "workflow_execution_id": "Wx0001",
            "event_ts": "1700000000.1", "bot_access_token": "xwfp-step-token"}


async def post_event(bot, event: dict, event_id: str) -> None:
    body = event_body(event, event_id=event_id)
    assert (await bot.post(body, signed_headers(body))).status_code == 200
    await bot.runtime.tasks.drain(5)


async def test_the_workflow_step_creates_the_owners_room_and_completes_with_its_outputs(bot, slack: FakeSlack, meet: FakeMeet, alice):
    await post_event(bot, step_event("U0ALICE", "restricted"), "EvStep1")
    [room] = meet.rooms.values()
    [done] = slack.called("functions.completeSuccess")
    outputs = done.args["outputs"] if isinstance(done.args["outputs"], dict) else json.loads(done.args["outputs"])
    assert outputs == {"room_url": room["url"], "room_id": room["id"], "access_level": "restricted"}
    assert done.args["function_execution_id"] == "Fx0001" and len(meet.token_requests) == 1
    await post_event(bot, step_event("U0ALICE", "restricted"), "EvStep1")  # Slack re-delivers it
    assert len(meet.rooms) == 1 and len(slack.called("functions.completeSuccess")) == 1


async def test_the_workflow_step_fails_in_the_owners_language(bot, slack: FakeSlack, meet: FakeMeet):
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="fr-FR")  # no room-service account
    await post_event(bot, step_event("U0BOB"), "EvStep2")
    [failed] = slack.called("functions.completeError")
    assert "pas encore de compte" in failed.args["error"] and meet.rooms == {}
    slack.add_user("U0CAROL", "carol@example.gouv.fr", locale="en-US")
    meet.add_user("carol@example.gouv.fr")
    await post_event(bot, step_event("U0CAROL", "everyone"), "EvStep3")
    assert "is not an access level" in slack.called("functions.completeError")[-1].args["error"]


async def test_a_slow_room_service_still_gets_the_modal_acked_in_time_and_the_room_by_dm(bot, slack: FakeSlack, meet: FakeMeet, alice):
    meet.delay = 1.0  # token, then creation: 2 s in all, past what the modal waits for (1.2 s)
    response = await bot.post(submission(choice("trusted")))
    # answered before the room existed: the modal says where the room will come
    assert meet.rooms == {} or slack.posted("U0ALICE") == []
    assert response.json()["response_action"] == "update" and "arrive in a direct message" in json.dumps(response.json())
    await bot.runtime.tasks.drain(10)
    [dm] = slack.posted("U0ALICE")
    assert "Your video room is ready" in text_of(dm) and len(meet.rooms) == 1


async def test_the_modal_is_answered_in_time_when_both_the_room_service_and_slack_profiles_are_slow(
        bot, slack: FakeSlack, meet: FakeMeet, alice, redis):
    import asyncio

    await redis.flushdb()  # no profile cached: the language comes from a slow users.info
    slack.slow["users.info"] = 2.5
    meet.delay = 1.0
    started = asyncio.get_running_loop().time()
    response = await bot.post(submission(choice("trusted")))
    took = asyncio.get_running_loop().time() - started
    assert response.json()["response_action"] == "update"
    # 1.2 s of creation, then the answer at once: waiting for the profile as well took 2.2 s or more
    assert took < 2.0, took
    await bot.runtime.tasks.drain(15)
    [dm] = slack.posted("U0ALICE")
    assert "Your video room is ready" in text_of(dm)
