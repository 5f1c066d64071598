"""`/room` end to end: signed Slack requests in, private replies out, the fake room service behind."""

from __future__ import annotations

from bot.demo.meet import FakeMeet
from tests.conftest import readable_pin, text_of
from tests.fakes.slack import FakeSlack


async def test_new_restricted_room_replies_privately_with_link_level_dial_in_and_buttons(bot, meet: FakeMeet, alice):
    reply = await bot.reply("new restricted")

    [room] = meet.rooms.values()
    assert room["access_level"] == "restricted"
    assert room["_owner"] == meet.users[alice]["id"]
    assert reply["response_type"] == "ephemeral"
    words = text_of(reply)
    assert room["url"] in words
    assert "only people you admit" in words.lower()
    assert "+33 1 85 14 90 00" in words
    assert readable_pin(room) in words
    buttons = {e["action_id"]: e for b in reply["blocks"] if b["type"] == "actions" for e in b["elements"]}
    assert buttons["room_share_channel"]["value"] == room["id"]
    assert buttons["room_send_dm"]["value"] == room["id"]
    assert buttons["room_open"]["url"] == room["url"]


async def test_ack_is_empty_and_immediate_then_work_follows(bot, meet: FakeMeet, alice):
    meet.delay = 0.3
    response = await bot.command("new")
    assert response.status_code == 200
    assert response.text == ""
    assert meet.rooms == {}  # the room is created after the ack, not before
    await bot.slack.wait_responses(1)
    assert len(meet.rooms) == 1


async def test_level_is_case_insensitive_and_absent_level_uses_service_default(bot, meet: FakeMeet, alice):
    await bot.reply("NEW Trusted")
    await bot.reply("new")
    levels = sorted(r["access_level"] for r in meet.rooms.values())
    assert levels == ["trusted", "trusted"]
    assert meet.count("POST", "/external-api/v1.0/rooms/") == 2


async def test_room_without_telephony_or_url_is_still_presented(bot, meet: FakeMeet, alice):
    meet.telephony = False
    meet.room_base_url = None
    reply = await bot.reply("new")
    [room] = meet.rooms.values()
    words = text_of(reply)
    assert "phone" not in words.lower()
    # no url from the service: the link is built on the service's own site
    assert f"{meet.base}/{room['slug']}" in words


async def test_list_shows_total_real_page_size_and_paging_buttons(bot, meet: FakeMeet, alice):
    for index in range(26):
        meet.add_room(alice, slug=f"room-{index:02d}-aaa")
    first = await bot.reply("list")
    words = text_of(first)
    assert "26 rooms · page 1 of 2" in words
    assert "room-00-aaa" in words and "room-19-aaa" in words and "room-20-aaa" not in words
    paging = [e for b in first["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert [(e["action_id"], e["value"]) for e in paging] == [("room_list_page_next", "2")]

    await bot.click("room_list_page_next", "2")
    second = (await bot.slack.wait_responses(2))[1]
    assert second["replace_original"] is True
    assert "26 rooms · page 2 of 2" in text_of(second)
    paging = [e for b in second["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert [(e["action_id"], e["value"]) for e in paging] == [("room_list_page_previous", "1")]


async def test_list_page_past_the_end_and_empty_list(bot, meet: FakeMeet, alice):
    assert "no video room yet" in text_of(await bot.reply("list"))
    meet.add_room(alice)
    assert "There is no page 5" in text_of(await bot.reply("list 5"))


async def test_show_by_id_and_by_url_including_slack_wrapped_links(bot, meet: FakeMeet, alice):
    for index in range(25):
        meet.add_room(alice, slug=f"abc-{index:04d}-xyz")
    target = meet.add_room(alice, slug="zzz-last-one")  # on page 2: found by paging through
    by_id = await bot.reply(f"show {target['id']}")
    assert "Video room zzz-last-one" in text_of(by_id)
    by_url = await bot.reply(f"show <{target['url']}>")
    assert "Video room zzz-last-one" in text_of(by_url)
    by_label = await bot.reply(f"show <{target['url']}|the room>")
    assert target["url"] in text_of(by_label)


async def test_show_details_button_from_the_list(bot, meet: FakeMeet, alice):
    room = meet.add_room(alice, slug="abc-defg-hij")
    await bot.click("room_show", room["id"])
    [reply] = await bot.slack.wait_responses(1)
    assert "Video room abc-defg-hij" in text_of(reply)


async def test_help_and_usage(bot, alice):
    for text in ("", "help", "aide", "AIDE", "?"):  # help as a French speaker types it too
        words = text_of(await bot.reply(text))
        assert "/room new [public|trusted|restricted]" in words and "I don't know" not in words, text
    assert "I don't know `dance`" in text_of(await bot.reply("dance"))
    assert "`secret` is not an access level" in text_of(await bot.reply("new secret"))
    assert "`two` is not a page number" in text_of(await bot.reply("list two"))
    assert "Which room?" in text_of(await bot.reply("show"))
    assert "neither a room id nor a room link" in text_of(await bot.reply("show hello"))


async def test_very_long_typed_text_still_gets_an_answer(bot, alice):
    words = text_of(await bot.reply("dance " + "x" * 3900))
    assert "I don't know `dance xxx" in words and "…`" in words


async def test_typed_text_is_escaped_in_replies(bot, alice):
    words = text_of(await bot.reply("new <!channel>&"))
    assert "&lt;!channel&gt;&amp;" in words
    assert "<!channel>" not in words


async def test_email_comes_from_the_slack_profile_not_from_typed_text(bot, meet: FakeMeet, slack: FakeSlack, alice):
    meet.add_user("mallory@example.gouv.fr")
    await bot.reply("new mallory@example.gouv.fr")  # not a level: usage, nothing created
    await bot.reply("new")
    assert meet.token_requests == ["Alice.Martin@Example.gouv.fr"]
    [room] = meet.rooms.values()
    assert room["_owner"] == meet.users[alice]["id"]


async def test_french_speaker_gets_french(bot, meet: FakeMeet, slack: FakeSlack):
    slack.add_user("U0CAMILLE", "camille@example.gouv.fr", locale="fr-FR")
    meet.add_user("camille@example.gouv.fr")
    reply = await bot.reply("new restricted", user="U0CAMILLE")
    assert "Votre salle de visio est prête" in text_of(reply)
    assert "Restreinte" in text_of(reply)


async def test_join_link_button_is_acked(bot, meet: FakeMeet, alice):
    room = meet.add_room(alice)
    response = await bot.click("room_open", room["id"])
    assert response.status_code == 200 and response.text == ""


async def test_room_list_shows_the_rooms_made_lately_first_and_says_how_the_rest_is_ordered(bot, meet: FakeMeet, alice):
    for index in range(25):  # the service orders by name: these fill page 1
        meet.add_room(alice, slug=f"aaa-{index:04d}-xyz")
    made = text_of(await bot.reply("new"))
    [room] = [r for r in meet.rooms.values() if not r["slug"].startswith("aaa-")]
    assert room["url"] in made
    listed = await bot.reply("list")
    entries = [b["text"]["text"] for b in listed["blocks"] if b["type"] == "section"]
    assert room["slug"] in entries[0]  # not on the service's page 1, shown first all the same
    assert "The first is the room you made lately; the others come in the order the room service keeps them" in text_of(listed)
    second = await bot.reply("list 2")
    assert "made lately" not in text_of(second)  # only page 1 leads with them


async def test_a_list_of_only_the_rooms_made_lately_says_nothing_of_others(bot, alice):
    for _ in range(2):
        await bot.reply("new")
    listed = text_of(await bot.reply("list"))
    assert "2 rooms" in listed and "made lately" not in listed and "the others" not in listed


async def test_replies_and_web_api_calls_share_kept_alive_connections_to_slack(bot, slack: FakeSlack, meet: FakeMeet, alice):
    """A connection (and against Slack, a TLS handshake) per reply cost a third of each command's CPU."""
    for _ in range(10):
        await bot.reply("help")
    await bot.reply("new")  # users.info, then the reply
    assert len(slack.responses) == 11
    assert len(slack.connections) <= 2, slack.connections


async def test_rooms_made_lately_are_shown_once_and_as_the_service_has_them(bot, meet: FakeMeet, alice):
    for index in range(28):
        meet.add_room(alice, slug=f"aaa-{index:02d}-aaa")  # they come first in the service's order
    made = [await bot.reply("new") for _ in range(3)]
    assert all("Your video room is ready" in text_of(reply) for reply in made)  # their random names: page 2

    def listed(reply: dict) -> list[str]:
        return [b["text"]["text"] for b in reply["blocks"] if b.get("type") == "section" and b.get("accessory")]

    first = await bot.reply("list")
    second = await bot.click_reply("room_list_page_next", "2")
    shown = listed(first) + listed(second)
    assert len(shown) == len(set(shown)) == 31  # each room once across the pages
    assert "31 rooms · page 1 of 2" in text_of(first) and "31 rooms · page 2 of 2" in text_of(second)

    new = [room for room in meet.rooms.values() if not room["slug"].startswith("aaa-")]
    new[0]["access_level"] = "public"  # changed on the service
    del meet.rooms[new[1]["id"]]  # deleted on the service
    again = text_of(await bot.reply("list"))
    assert f"{new[0]['slug']}|{new[0]['slug']}>* · public" in again
    assert new[1]["slug"] not in again and "30 rooms" in again
    gone = text_of(await bot.click_reply("room_show", new[1]["id"]))  # an old list's Details button
    assert "no longer on the room service" in gone and new[1]["id"] not in gone


async def test_the_level_as_the_french_answer_shows_it_is_understood(bot, meet: FakeMeet, slack: FakeSlack):
    slack.add_user("U0CAMILLE", "camille@example.gouv.fr", locale="fr-FR")
    meet.add_user("camille@example.gouv.fr")
    reply = await bot.reply("new Restreinte", user="U0CAMILLE")
    [room] = meet.rooms.values()
    assert room["access_level"] == "restricted" and "Restreinte" in text_of(reply)


async def test_a_list_whose_recent_rooms_redis_refuses_to_read_still_lists_the_rooms(bot, meet: FakeMeet, redis, alice):
    """The token and the rooms made lately are read in one round trip: Redis refusing one read
    (here a key of the wrong type) loses neither the token nor the list."""
    for index in range(3):
        meet.add_room(alice, slug=f"aaa-{index:02d}-aaa")
    await bot.reply("new")
    [recent] = await redis.keys("*recent*")
    await redis.delete(recent)
    await redis.set(recent, "not a list")
    tokens = len(meet.token_requests)
    listed = text_of(await bot.reply("list"))
    assert "4 rooms" in listed and all(f"aaa-{index:02d}-aaa" in listed for index in range(3))
    assert "made lately" not in listed  # shown without them, as when Redis is away
    assert len(meet.token_requests) == tokens  # the cached token read again, not a new one asked for
