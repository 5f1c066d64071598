"""Rights read again before the invitations, the step that acts for the person on others and comes
after the slow ones: what changed on the service meanwhile is what counts."""

from __future__ import annotations

import asyncio
import threading

from bot.demo.ds import FakeDS
from tests.conftest import text_of
from tests.fakes.slack import BOT_USER, FakeSlack
from tests.team.conftest import ADA, BOB, made_channels, team


async def while_looking_up(bot, slack: FakeSlack, change) -> str:
    """Runs `/dossier team 101` as Ada, and `change`s the service while Slack holds the look-ups."""
    held = slack.held["users.lookupByEmail"] = threading.Event()
    running = asyncio.create_task(team(bot, "101"))
    try:
        async with asyncio.timeout(20):
            while not slack.called("users.lookupByEmail"):
                await asyncio.sleep(0.01)
        change()
    finally:
        held.set()
    return text_of(await running)


async def test_an_administrator_removed_during_the_run_invites_nobody(digest_bot, demarche, ds: FakeDS, slack: FakeSlack):
    said = await while_looking_up(digest_bot, slack, lambda: ds.demarches[101].administrateurs.remove(ADA))
    [info] = made_channels(slack).values()
    assert info["members"] == [BOT_USER]  # nobody invited, not even Ada
    assert "inviting the instructeurs: your rights, read again just before, no longer allow it" in said
    assert "Only an administrator of démarche n° 101" in said


async def test_an_instructeur_who_left_during_the_run_is_not_invited(digest_bot, demarche, ds: FakeDS, slack: FakeSlack):
    nord = next(group for group in ds.demarches[101].groups if group.number == 1)
    said = await while_looking_up(digest_bot, slack, lambda: nord.instructeurs.remove(BOB))
    [info] = made_channels(slack).values()
    assert "U0BOB" not in info["members"] and {"U0ALICE", "U0SUD", "U0ADA"} <= set(info["members"])
    assert "ready" in said
