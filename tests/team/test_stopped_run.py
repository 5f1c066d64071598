"""A run that stopped between Slack making the channel and the bot saving it (a crash, a deploy):
the next run finds the channel it made under the name it had saved, and adopts it rather than making
`-2`; a channel of that name someone else made is never taken."""

from __future__ import annotations

from clients.team_spaces import TeamSpace, TeamSpaces
from tests.conftest import text_of
from tests.fakes.slack import BOT_USER, FakeSlack
from tests.team.conftest import made_channels, team

NAME = "dn-101-subvention-velo"


async def stopped_after_asking(redis, slack: FakeSlack, creator: str) -> None:
    """What such a run leaves: the name saved as asked, no channel saved; a channel of that name, in
    which the bot is (made by it, or by `creator` who invited it)."""
    await TeamSpaces(redis).save(TeamSpace("T0TEAM", 101, by="U0ADA", naming=NAME))
    slack.channels["G0MADE"] = {"private": True, "member": True, "name": NAME, "team": None, "members": [BOT_USER, creator],
                                "creator": creator}


async def test_the_next_run_adopts_the_channel_a_stopped_run_made(digest_bot, demarche, slack: FakeSlack, redis):
    await stopped_after_asking(redis, slack, BOT_USER)
    said = text_of(await team(digest_bot, "101"))
    assert list(made_channels(slack)) == ["G0MADE"]  # no dn-101-subvention-velo-2
    [space] = await TeamSpaces(redis).all("T0TEAM")
    assert space.channel == "G0MADE" and space.pinned and space.digest
    assert {"U0ALICE", "U0BOB", "U0SUD", "U0ADA"} <= set(slack.channels["G0MADE"]["members"])
    assert "ready" in said


async def test_a_persons_channel_of_that_name_is_never_adopted(digest_bot, demarche, slack: FakeSlack, redis):
    await stopped_after_asking(redis, slack, "U0MAL")
    await team(digest_bot, "101")
    [space] = await TeamSpaces(redis).all("T0TEAM")
    assert space.channel != "G0MADE" and slack.channels[space.channel]["name"] == f"{NAME}-2"
    assert slack.channels["G0MADE"]["members"] == [BOT_USER, "U0MAL"]  # nobody invited into Mallory's channel


async def test_the_bots_channel_of_that_name_is_not_adopted_by_a_space_that_never_asked_for_it(digest_bot, demarche,
                                                                                               slack: FakeSlack, redis):
    await stopped_after_asking(redis, slack, BOT_USER)
    await TeamSpaces(redis).save(TeamSpace("T0TEAM", 101, by="U0ADA"))  # nothing asked: the channel is not this space's
    await team(digest_bot, "101")
    [space] = await TeamSpaces(redis).all("T0TEAM")
    assert slack.channels[space.channel]["name"] == f"{NAME}-2"


async def test_a_run_that_dies_on_slacks_answer_has_saved_the_name_and_the_next_adopts_the_channel(digest_bot, demarche,
                                                                                                 slack: FakeSlack, redis):
    slack.hollow.add("conversations.create")  # an answer the run cannot read: it stops there, as in a crash
    assert "Please try again" in text_of(await team(digest_bot, "101"))
    saved = await TeamSpaces(redis).get("T0TEAM", 101, None)
    assert saved is not None and saved.naming == NAME and not saved.channel  # the name was saved before Slack was asked

    slack.hollow.clear()  # Slack had made it, as the bot's: the next run adopts it
    slack.channels["G0MADE"] = {"private": True, "member": True, "name": NAME, "team": None, "members": [BOT_USER], "creator": BOT_USER}
    await team(digest_bot, "101")
    assert list(made_channels(slack)) == ["G0MADE"] and (await TeamSpaces(redis).get("T0TEAM", 101, None)).channel == "G0MADE"


async def test_a_refused_channel_keeps_the_name_asked(digest_bot, demarche, slack: FakeSlack, redis):
    slack.creation_restricted = True
    await team(digest_bot, "101")
    assert [call.args["name"] for call in slack.called("conversations.create")] == [NAME]
    assert (await TeamSpaces(redis).get("T0TEAM", 101, None)).naming == NAME
