"""App Home, link previews, and Events API deliveries (signed JSON, retried, self-sent)."""

from __future__ import annotations

import json

from bot.demo.meet import FakeMeet
from tests.conftest import readable_pin, text_of
from tests.fakes.slack import BOT_USER, FakeSlack
from tests.slack_requests import home_choice, home_opened, send_event


def view_of(call) -> dict:
    view = call.args["view"]
    return json.loads(view) if isinstance(view, str) else view


async def test_home_lists_rooms_with_level_and_join_and_offers_a_new_room(bot, slack: FakeSlack, meet: FakeMeet, alice):
    for index in range(22):
        meet.add_room(alice, slug=f"room-{index:02d}-abc", access_level="restricted" if index == 0 else "trusted")
    await send_event(bot, home_opened())
    [publish] = slack.called("views.publish")
    assert publish.args["user_id"] == "U0ALICE"
    view = view_of(publish)
    words = text_of(view)
    assert view["type"] == "home" and "20 of your 22 rooms" in words
    assert "room-00-abc" in words and "restricted" in words
    joins = [b["accessory"] for b in view["blocks"] if b.get("accessory", {}).get("action_id") == "room_open"]
    assert len(joins) == 20 and joins[0]["url"].endswith("/room-00-abc")
    [control] = [e for b in view["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert control["action_id"] == "home_new_room"
    assert [o["value"] for o in control["options"]] == ["trusted", "restricted", "public"]


def offered_levels(view: dict) -> list[str]:
    [control] = [e for b in view["blocks"] if b["type"] == "actions" for e in b["elements"]]
    return [option["value"] for option in control["options"]]


async def test_home_after_a_refused_public_room_keeps_the_list_and_stops_offering_public(bot, slack: FakeSlack, meet: FakeMeet, alice):
    meet.add_room(alice, slug="abc-defg-hij")
    assert (await bot.post(home_choice("public"))).status_code == 200
    await bot.runtime.tasks.drain(5)
    view = view_of(slack.called("views.publish")[-1])
    words = text_of(view)
    assert "Public rooms are disabled" in words and "Pick another level in the menu above" in words
    assert "/room new" not in words
    assert "abc-defg-hij" in words  # the list stays
    assert offered_levels(view) == ["trusted", "restricted"]  # learned from the service's answer
    await send_event(bot, home_opened(), event_id="Ev0009")
    assert offered_levels(view_of(slack.called("views.publish")[-1])) == ["trusted", "restricted"]


async def test_home_shows_the_room_just_made_first(bot, slack: FakeSlack, meet: FakeMeet, alice):
    """The service lists by slug: a new room is usually past page 1. The bot shows it first."""
    for index in range(25):
        meet.add_room(alice, slug=f"aaa-{index:04d}-aaa")
    assert (await bot.post(home_choice("trusted"))).status_code == 200
    await bot.runtime.tasks.drain(5)
    [made] = [room for room in meet.rooms.values() if not room["slug"].startswith("aaa-")]
    await send_event(bot, home_opened(), event_id="Ev0010")
    view = view_of(slack.called("views.publish")[-1])
    joins = [b["accessory"]["url"] for b in view["blocks"] if b.get("accessory", {}).get("action_id") == "room_open"]
    assert joins[0] == made["url"] and len(joins) == 21


async def test_home_new_room_control_creates_and_republishes(bot, slack: FakeSlack, meet: FakeMeet, alice):
    body = json.dumps({"type": "block_actions", "team": {"id": "T0TEAM"}, "user": {"id": "U0ALICE", "team_id": "T0TEAM"},
                       "api_app_id": "A0APP", "trigger_id": "1.2.3", "container": {"type": "view", "view_id": "V0HOME"},
                       "view": {"id": "V0HOME", "type": "home"},
                       "actions": [{"action_id": "home_new_room", "type": "static_select", "block_id": "b",
                                    "selected_option": {"value": "restricted", "text": {"type": "plain_text", "text": "x"}}}]})
    from urllib.parse import urlencode
    response = await bot.post(urlencode({"payload": body}))
    assert response.status_code == 200
    await bot.runtime.tasks.drain(5)
    [room] = meet.rooms.values()
    assert room["access_level"] == "restricted"
    view = view_of(slack.called("views.publish")[-1])
    words = text_of(view)
    assert "Your video room is ready" in words and room["url"] in words
    actions = [e["action_id"] for b in view["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert "room_share_channel" not in actions and "room_send_dm" in actions  # no channel to share into from Home


async def test_home_shows_errors_instead_of_swallowing_them(bot, slack: FakeSlack, meet: FakeMeet):
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="en-US")  # no room-service account
    await send_event(bot, home_opened("U0BOB"))
    words = text_of(view_of(slack.called("views.publish")[-1]))
    assert "no account for bob@example.gouv.fr" in words

    slack.add_user("U0CAROL", "carol@example.gouv.fr", locale="en-US")
    meet.add_user("carol@example.gouv.fr")
    from bot.demo.meet import Fault
    meet.faults.append(Fault("GET", "/external-api/v1.0/rooms/", 503, "<h1>down</h1>", "text/html", times=3))
    await send_event(bot, home_opened("U0CAROL"), event_id="Ev0002")
    assert "unavailable right now" in text_of(view_of(slack.called("views.publish")[-1]))


async def test_messages_tab_opening_publishes_nothing(bot, slack: FakeSlack, alice):
    await send_event(bot, {**home_opened(), "tab": "messages"})
    assert slack.called("views.publish") == []


def link_shared(urls: list[str], user: str = "U0ALICE") -> dict:
    return {"type": "link_shared", "channel": "C0CHAN", "user": user, "message_ts": "1700000000.000300",
            "unfurl_id": "C0CHAN.1700000000.000300.abc", "source": "conversations_history",
            "links": [{"domain": "visio.example.gouv.fr", "url": url} for url in urls]}


async def test_unfurl_shows_details_to_someone_who_can_see_the_room_and_a_plain_preview_otherwise(bot, slack: FakeSlack,
                                                                                                   meet: FakeMeet, alice):
    mine = meet.add_room(alice, access_level="restricted")
    meet.add_user("other@example.gouv.fr")
    theirs = meet.add_room("other@example.gouv.fr")
    await send_event(bot, link_shared([mine["url"], theirs["url"]]))
    [call] = slack.called("chat.unfurl")
    unfurls = call.args["unfurls"] if isinstance(call.args["unfurls"], dict) else json.loads(call.args["unfurls"])
    assert call.args["unfurl_id"] == "C0CHAN.1700000000.000300.abc" and call.args["source"] == "conversations_history"
    detailed, plain = text_of(unfurls[mine["url"]]), text_of(unfurls[theirs["url"]])
    # everyone in the conversation sees the preview: worded for those who will wait for her
    assert "You will wait in the lobby until <@U0ALICE> lets you in." in detailed and readable_pin(mine) in detailed
    assert "Video room" in plain and readable_pin(theirs) not in plain and "trusted" not in plain.lower()
    for preview in unfurls.values():
        assert preview["blocks"][0]["accessory"]["url"] in (mine["url"], theirs["url"])


async def test_unfurl_uses_the_slug_directory_filled_by_listing(bot, slack: FakeSlack, meet: FakeMeet, alice):
    for index in range(30):
        meet.add_room(alice, slug=f"abc-{index:04d}-xyz")
    await bot.reply("list")  # page 1 only: the first 20 slugs are remembered
    meet.log.clear()
    room = next(r for r in meet.rooms.values() if r["slug"] == "abc-0003-xyz")
    await send_event(bot, link_shared([room["url"]]))
    assert [p for m, p in meet.log if "rooms" in p] == [f"/external-api/v1.0/rooms/{room['id']}/"]  # no paging


async def test_unfurl_for_someone_without_an_account_is_plain(bot, slack: FakeSlack, meet: FakeMeet, alice):
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="fr-FR")
    room = meet.add_room(alice)
    await send_event(bot, link_shared([room["url"]], user="U0BOB"))
    [call] = slack.called("chat.unfurl")
    assert "Salle de visio" in text_of(call.args["unfurls"][room["url"]])


async def test_a_retried_event_delivery_has_no_second_effect(bot, slack: FakeSlack, meet: FakeMeet, alice):
    room = meet.add_room(alice)
    await send_event(bot, link_shared([room["url"]]), event_id="Ev0RETRY")
    await send_event(bot, link_shared([room["url"]]), event_id="Ev0RETRY", retry=1)
    await send_event(bot, link_shared([room["url"]]), event_id="Ev0RETRY", retry=2)
    assert len(slack.called("chat.unfurl")) == 1
    await send_event(bot, link_shared([room["url"]]), event_id="Ev0OTHER")
    assert len(slack.called("chat.unfurl")) == 2


async def test_events_from_the_bot_itself_are_ignored(bot, slack: FakeSlack, meet: FakeMeet, alice):
    room = meet.add_room(alice)
    await send_event(bot, link_shared([room["url"]], user=BOT_USER))
    assert slack.called("chat.unfurl") == []
