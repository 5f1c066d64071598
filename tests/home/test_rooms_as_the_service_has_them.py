"""Home and `/room list` against the room service's pages (20 rooms each, by name: meet-api.md §4)
and the rooms the bot made lately, which both show first (issue 41, item 5): Home counts the rooms
it shows, shows them as the service has them now, and no list offers a page that would be empty."""

from __future__ import annotations

from bot.demo.meet import FakeMeet
from tests.conftest import text_of
from tests.fakes.slack import FakeSlack
from tests.home.test_home_and_previews import view_of
from tests.slack_requests import home_choice, home_opened, send_event


async def made_on_home(bot, meet: FakeMeet, slugs: list[str], level: str = "trusted") -> list[dict]:
    """Rooms made with Home's control, named `slugs` by the service (their names order them)."""
    meet.next_slugs += slugs
    for _ in slugs:
        assert (await bot.post(home_choice(level))).status_code == 200
        await bot.runtime.tasks.drain(5)
    return [next(room for room in meet.rooms.values() if room["slug"] == slug) for slug in slugs]


async def home(bot, slack: FakeSlack, event_id: str) -> dict:
    await send_event(bot, home_opened(), event_id=event_id)
    return view_of(slack.called("views.publish")[-1])


def joins(view: dict) -> list[str]:
    return [b["accessory"]["url"] for b in view["blocks"] if b.get("accessory", {}).get("action_id") == "room_open"]


async def test_home_counts_the_rooms_it_shows(bot, slack: FakeSlack, meet: FakeMeet, alice):
    for index in range(43):
        meet.add_room(alice, slug=f"aaa-{index:04d}-aaa")  # the service's first pages
    made = await made_on_home(bot, meet, [f"zzz-{index:04d}-zzz" for index in range(4)])  # its last page
    view = await home(bot, slack, "Ev0101")
    assert joins(view)[:4] == [room["url"] for room in reversed(made)] and len(joins(view)) == 24
    assert "24 of your 47 rooms" in text_of(view)  # not "20 of your 47" above 24 rooms


async def test_home_says_all_when_it_shows_all(bot, slack: FakeSlack, meet: FakeMeet, alice):
    for index in range(20):
        meet.add_room(alice, slug=f"aaa-{index:04d}-aaa")
    await made_on_home(bot, meet, ["zzz-0000-zzz", "zzz-0001-zzz"])  # page 2: shown first on Home all the same
    view = await home(bot, slack, "Ev0102")
    assert len(joins(view)) == 22 and "Your 22 rooms" in text_of(view) and " of your " not in text_of(view)


async def test_home_shows_the_rooms_made_lately_as_the_service_has_them_now(bot, slack: FakeSlack, meet: FakeMeet, alice):
    changed, deleted = await made_on_home(bot, meet, ["zzz-0000-zzz", "zzz-0001-zzz"], level="restricted")
    changed["access_level"] = "trusted"  # changed in the web app
    del meet.rooms[deleted["id"]]  # deleted in the web app
    view = await home(bot, slack, "Ev0103")
    words = text_of(view)
    [entry] = [b["text"]["text"] for b in view["blocks"] if b.get("accessory", {}).get("action_id") == "room_open"]
    assert entry == f"*<{changed['url']}|{changed['slug']}>* · trusted"  # its level now, not when it was made
    assert deleted["slug"] not in words and deleted["url"] not in joins(view)  # no Join button to a room that is gone
    assert "Your room" in words


async def test_no_next_page_when_only_rooms_made_lately_are_left(bot, meet: FakeMeet, alice):
    def paging(reply: dict) -> list[str]:
        return [e["action_id"] for b in reply["blocks"] if b["type"] == "actions" for e in b["elements"]]

    for index in range(20):
        meet.add_room(alice, slug=f"aaa-{index:04d}-aaa")
    made = ["zzz-0000-zzz", "zzz-0001-zzz"]
    meet.next_slugs += made
    for _ in made:
        await bot.reply("new")
    first = await bot.reply("list")  # the service's page 2 holds only the two made lately, shown here first
    assert all(slug in text_of(first) for slug in made) and paging(first) == []
    assert "22 rooms · page 1 of 1" in text_of(first)

    for index in range(20, 40):  # now page 2 is the service's, page 3 holds only the two made lately
        meet.add_room(alice, slug=f"aaa-{index:04d}-aaa")
    assert paging(await bot.reply("list")) == ["room_list_page_next"]
    second = await bot.click_reply("room_list_page_next", "2")
    assert "aaa-0039-aaa" in text_of(second) and paging(second) == ["room_list_page_previous"]
    assert "42 rooms · page 2 of 2" in text_of(second)
    third = text_of(await bot.reply("list 3"))  # typed: the service's page 3 holds only the two made lately
    assert "The rooms of this page are the ones you made lately: page 1 shows them first." in third
