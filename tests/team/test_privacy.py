"""A team space's setter sees it in "What the bot keeps about me" (which démarche, which channel,
since when) and what erasing does to it: their name goes, the space stays the team's."""

from __future__ import annotations

import datetime as dt

from babel.dates import format_date

from clients.team_spaces import TeamSpaces
from tests.conftest import text_of
from tests.fakes.slack import FakeSlack
from tests.team.conftest import made_channels, team


async def test_the_setter_sees_the_space_kept_and_erasing_leaves_it_to_the_team(digest_bot, demarche, slack: FakeSlack, redis):
    before = dt.datetime.now(dt.UTC).date()
    await team(digest_bot, "101")
    after = dt.datetime.now(dt.UTC).date()
    [channel] = made_channels(slack)
    [space] = await TeamSpaces(redis).all("T0TEAM")
    assert before <= dt.date.fromisoformat(space.since) <= after  # the day its channel was made

    shown = text_of(await digest_bot.reply("forget me", user="U0ADA"))
    day = format_date(dt.date.fromisoformat(space.since), "long", locale="en")
    assert f"Your name on the team space you set up (n° 101 in <#{channel}> since {day})" in shown
    assert "Erasing takes your name off it; its channel, room and digest stay the team's" in shown
    assert "team space" not in text_of(await digest_bot.reply("forget me", user="U0BOB"))  # not Bob's: he did not set it up

    await digest_bot.click_reply("privacy_forget", "me", user="U0ADA")
    [space] = await TeamSpaces(redis).all("T0TEAM")
    assert space.by == "" and space.channel == channel and space.room and space.digest  # the team's still
    assert "team space" not in text_of(await digest_bot.reply("forget me", user="U0ADA"))


async def test_a_group_space_is_named_with_its_group_in_french(digest_bot, demarche, slack: FakeSlack):
    await team(digest_bot, "101 group 1", user="U0BOB")
    [channel] = made_channels(slack)
    shown = text_of(await digest_bot.reply("forget me", user="U0BOB"))
    assert f"Votre nom sur l'espace d'équipe que vous avez mis en place (n° 101 · groupe 1 dans <#{channel}> depuis le " in shown
