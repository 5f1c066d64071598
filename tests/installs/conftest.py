"""One deployment serving two workspaces and an organisation at once, as the tests of many
workspaces need it: each installed by OAuth, with a person and a channel in each."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from bot.demo.meet import FakeMeet
from tests.conftest import Bot, start_bot
from tests.fakes.slack import FakeSlack
from tests.installs.oauth import install, oauth_settings


@pytest.fixture
async def three_installs(redis: aioredis.Redis, slack: FakeSlack, meet: FakeMeet) -> AsyncIterator[Bot]:
    """Workspaces T0AAA and T0BBB on their own; organisation E0ORG for its workspace T0ORG1."""
    async for running in start_bot(oauth_settings(meet, slack), redis, slack):
        await install(running, slack, "T0AAA")
        await install(running, slack, "T0BBB")
        slack.team_orgs["T0ORG1"] = "E0ORG"
        await install(running, slack, None, enterprise="E0ORG", org=True)
        for user, team in (("U0ANNE", "T0AAA"), ("U0BRUNO", "T0BBB"), ("U0OLGA", "T0ORG1")):
            slack.add_user(user, f"{user[2:].lower()}@example.gouv.fr", team=team, locale="en-US")
            meet.add_user(f"{user[2:].lower()}@example.gouv.fr")
        for channel, team in (("C0AAA", "T0AAA"), ("C0BBB", "T0BBB"), ("C0ORG", "T0ORG1")):
            slack.channels[channel] = {"private": False, "member": True, "team": team}
        await running.runtime.tasks.drain(5)  # the organisation's workspaces, asked of Slack after its install
        yield running
