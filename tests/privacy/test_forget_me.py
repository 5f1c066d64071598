"""`/room forget me` and Home's "What the bot keeps about me": a person sees what the bot keeps of
them and erases it after Slack's confirm dialog; nobody else's data goes, and what others rely on
(planned meetings, a channel's digest) is said, not silently broken."""

from __future__ import annotations

import datetime as dt
import json
from urllib.parse import urlencode

import redis.asyncio as aioredis

from bot.config import Settings
from bot.demo.meet import FakeMeet
from clients.dossiers.subscriptions import Followed, Subscription, Subscriptions
from clients.dossiers.watch import Watches
from clients.redis_keys import application_tag, email_digest, key
from tests.conftest import Bot, text_of
from tests.fakes.slack import FakeSlack
from tests.slack_requests import TEAM, home_opened, send_event

BOB = "bob@example.gouv.fr"


def token_of(settings: Settings, email: str) -> str:
    return key("token", application_tag(settings.meet_client_id or ""), email_digest(email))


def buttons(reply: dict) -> list[dict]:
    return [e for b in reply["blocks"] if b["type"] == "actions" for e in b["elements"]] + \
        [b["accessory"] for b in reply["blocks"] if "accessory" in b]


async def two_people_with_data(bot: Bot, redis: aioredis.Redis, slack: FakeSlack, meet: FakeMeet) -> None:
    slack.add_user("U0BOB", BOB, locale="en-US")
    meet.add_user(BOB)
    for user in ("U0ALICE", "U0BOB"):
        await bot.reply("new", user=user)
        await Watches(redis).start(TEAM, user, [12345])
    await Subscriptions(redis).save(Subscription("C0CHAN", (Followed(101, "U0ALICE"), Followed(102, "U0BOB")), dt.time(9), team=TEAM))


async def test_forget_me_shows_what_is_kept_and_erases_it_after_the_confirm(bot: Bot, redis: aioredis.Redis, slack: FakeSlack,
                                                                            meet: FakeMeet, settings: Settings, alice: str):
    await two_people_with_data(bot, redis, slack, meet)
    shown = await bot.reply("forget me")
    words = text_of(shown)
    assert "What the bot keeps about you" in words
    assert "copy of your Slack profile" in words and "room-service token" in words
    assert "The room you made lately" in words and "(n° 12345)" in words and "Your name on a démarche" in words
    assert "Erasing keeps planned meetings" in words
    [erase] = [b for b in buttons(shown) if b["action_id"] == "privacy_forget"]
    assert erase["style"] == "danger" and erase["confirm"]["title"]["text"] == "Erase what the bot keeps?"

    erased = await bot.click_reply("privacy_forget", "me")
    assert erased["replace_original"] is True and "Erased." in text_of(erased)
    assert not await redis.exists(token_of(settings, alice))
    assert not await redis.exists(key("recent", application_tag(settings.meet_client_id or ""), email_digest(alice)))
    assert not await redis.exists(key("profile", TEAM, "U0ALICE"))
    assert await Watches(redis).of(TEAM, "U0ALICE") is None
    [channel] = await Subscriptions(redis).all(TEAM)
    assert channel.follows == (Followed(101, "", lapsed=True), Followed(102, "U0BOB"))  # nothing posted on her rights
    # Bob's stay
    assert await redis.exists(token_of(settings, BOB)) and await Watches(redis).of(TEAM, "U0BOB") == [12345]
    assert await redis.exists(key("profile", TEAM, "U0BOB"))

    again = text_of(await bot.reply("forget me"))  # asking reads the profile again, nothing else
    assert "copy of your Slack profile" in again
    assert "room-service token" not in again and "lately" not in again and "12345" not in again and "Your name" not in again


def last_home(slack: FakeSlack) -> dict:
    view = slack.called("views.publish")[-1].args["view"]
    return json.loads(view) if isinstance(view, str) else view


def home_click(action_id: str, user: str = "U0ALICE") -> str:
    return urlencode({"payload": json.dumps({
        "type": "block_actions", "team": {"id": TEAM}, "user": {"id": user, "team_id": TEAM}, "api_app_id": "A0APP",
        "trigger_id": "1.2.3", "container": {"type": "view", "view_id": "V0HOME"}, "view": {"id": "V0HOME", "type": "home"},
        "actions": [{"action_id": action_id, "type": "button", "block_id": "b", "value": "me"}]})})


async def test_home_shows_what_is_kept_and_erases_it_without_reading_anything_again(bot: Bot, redis: aioredis.Redis,
                                                                                   slack: FakeSlack, meet: FakeMeet,
                                                                                   settings: Settings, alice: str):
    await two_people_with_data(bot, redis, slack, meet)
    await send_event(bot, home_opened())
    assert "privacy_show" in [b["action_id"] for b in buttons(last_home(slack))]

    published = len(slack.called("views.publish"))
    assert (await bot.post(home_click("privacy_show"))).status_code == 200
    await bot.runtime.tasks.drain(5)
    assert len(slack.called("views.publish")) == published + 1
    view = last_home(slack)
    assert "What the bot keeps about you" in text_of(view) and "privacy_forget" in [b["action_id"] for b in buttons(view)]

    asked = len(slack.called("users.info"))
    assert (await bot.post(home_click("privacy_forget"))).status_code == 200
    await bot.runtime.tasks.drain(5)
    assert "Erased." in text_of(last_home(slack))
    assert not await redis.exists(token_of(settings, alice)) and not await redis.exists(key("profile", TEAM, "U0ALICE"))
    assert len(slack.called("users.info")) <= asked + 1  # the profile read once, for the click, and not kept
    assert await redis.exists(token_of(settings, BOB))
