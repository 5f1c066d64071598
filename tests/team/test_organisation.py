"""A team space is one workspace's: on an organisation-wide install, the space goes to the workspace
the person types the command in (their pick), its channel is made there (`team_id` on the
organisation's token), its people are that workspace's, and another workspace of the organisation
neither sees nor reuses it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from pydantic import SecretStr

from bot.demo.ds import FakeDS
from bot.demo.meet import FakeMeet
from clients.team_spaces import TeamSpaces
from tests.conftest import Bot, make_digest_job, start_bot, text_of
from tests.fakes.slack import FakeSlack
from tests.installs.oauth import install, oauth_settings, room_command, token_of
from tests.team.conftest import ADA, made_channels


@pytest.fixture
async def org_bot(redis: aioredis.Redis, slack: FakeSlack, meet: FakeMeet, ds: FakeDS) -> AsyncIterator[Bot]:
    settings = oauth_settings(meet, slack, ds_api_url=ds.url, ds_api_token=SecretStr(ds.token), default_language="en")
    job, service = make_digest_job(settings, redis, ds, None)
    async for running in start_bot(settings, redis, slack, digests=job):
        slack.team_orgs |= {"T0ORG1": "E0ORG", "T0ORG2": "E0ORG"}
        await install(running, slack, None, enterprise="E0ORG", org=True)
        slack.add_user("U0ADA1", ADA, team="T0ORG1", locale="en-US")
        slack.add_user("U0ADA2", ADA, team="T0ORG2", locale="en-US")
        slack.add_user("U0BOB1", "bob@example.gouv.fr", team="T0ORG1", locale="en-US")
        slack.add_user("U0BOB2", "bob@example.gouv.fr", team="T0ORG2", locale="en-US")
        meet.add_user(ADA)
        ds.add_demarche(101, "Subvention", admins=(ADA,), groups={1: ("Nord", ["bob@example.gouv.fr"])})
        await running.runtime.tasks.drain(5)
        yield running
    await service.aclose()


async def test_each_workspace_of_an_organisation_gets_its_own_space(org_bot: Bot, slack: FakeSlack, redis) -> None:
    said = text_of(await room_command(org_bot, "team 101", "U0ADA1", "T0ORG1", channel="C0ONE", enterprise="E0ORG", org=True,
                                      command="/dossier"))
    await org_bot.runtime.tasks.drain(10)
    assert "ready" in said
    org_token = token_of(slack, "E0ORG")
    [made] = [call for call in slack.called("conversations.create")]
    assert made.token == org_token and made.args.get("team_id") == "T0ORG1"
    [(first, info)] = made_channels(slack).items()
    assert info["team"] == "T0ORG1" and set(info["members"]) >= {"U0ADA1", "U0BOB1"}  # that workspace's people

    checked = text_of(await room_command(org_bot, "team 101 check", "U0ADA2", "T0ORG2", channel="C0TWO", enterprise="E0ORG",
                                         org=True, command="/dossier"))
    assert "no team space in this workspace yet" in checked  # the other workspace's space is not this one's

    await room_command(org_bot, "team 101", "U0ADA2", "T0ORG2", channel="C0TWO", enterprise="E0ORG", org=True, command="/dossier")
    await org_bot.runtime.tasks.drain(10)
    spaces = TeamSpaces(redis)
    one, two = await spaces.get("T0ORG1", 101, None), await spaces.get("T0ORG2", 101, None)
    assert one is not None and two is not None and one.channel == first and two.channel != first
    assert slack.channels[two.channel]["team"] == "T0ORG2" and "U0BOB2" in slack.channels[two.channel]["members"]
