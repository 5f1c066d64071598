"""Team spaces' people: démarche 101 "Subvention <vélo>" administered by Ada; its group 1 (Nord)
instructed by Alice, Bob and Nobody (no Slack account here), its group 2 (Sud) by Sud. Ada and
Alice have room-service accounts. The bot answers `/dossier team` and its buttons."""

from __future__ import annotations

import pytest

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from bot.demo.meet import FakeMeet
from tests.conftest import Bot
from tests.digest.commands import ALICE
from tests.fakes.slack import FakeSlack
from tests.slack_requests import action_body, command_body

BOB, SUD, ADA, NOBODY = "bob.durand@example.gouv.fr", "sud@example.gouv.fr", "ada@example.gouv.fr", "nobody.here@example.gouv.fr"
ROOMS = "/external-api/v1.0/rooms/"


@pytest.fixture
def demarche(ds: FakeDS, slack: FakeSlack, meet: FakeMeet) -> FakeDemarche:
    slack.add_user("U0BOB", "Bob.Durand@Example.gouv.fr", locale="fr-FR")
    slack.add_user("U0SUD", SUD, locale="en-US")
    slack.add_user("U0ADA", ADA, locale="en-US")
    slack.add_user("U0MAL", "mallory@example.gouv.fr", locale="en-US")
    meet.add_user(ADA)
    return ds.add_demarche(101, "Subvention <vélo>", admins=(ADA,), groups={1: ("Nord", [ALICE, BOB, NOBODY]), 2: ("Sud", [SUD])})


async def team(bot: Bot, words: str, user: str = "U0ADA", channel: str = "C0CHAN") -> dict:
    """`/dossier team <words>` as `user`: the private answer."""
    return await bot.last_reply(command_body(f"team {words}", user, bot.slack.response_url(f"cmd-{user}", channel),
                                             command="/dossier", channel=channel))


async def click(bot: Bot, action_id: str, value: str, user: str = "U0ADA", channel: str = "C0CHAN") -> dict:
    return await bot.last_reply(action_body(action_id, value, user, bot.slack.response_url(f"click-{user}", channel), channel=channel))


def made_channels(slack: FakeSlack) -> dict[str, dict]:
    return {channel: info for channel, info in slack.channels.items() if info.get("name")}
