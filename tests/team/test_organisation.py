"""A team space is one workspace's: on an organisation-wide install, the command's space goes to the
workspace it is typed in, Home's to the workspace picked in its window (one the install serves, where
the person has an account); its channel is made there (`team_id` on the organisation's token), its
people are that workspace's, and another workspace of the organisation neither sees nor reuses it."""

from __future__ import annotations

import json
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
from tests.slack_requests import interaction
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


def home_click(user: str, team: str) -> str:
    return interaction("block_actions", user, team=team, enterprise="E0ORG", org=True,
                       container={"type": "view", "view_id": "V0HOME"}, view={"id": "V0HOME", "type": "home", "team_id": team},
                       actions=[{"action_id": "team_home", "type": "button", "block_id": "b", "action_ts": "1.2"}])


def window(user: str, team: str, picked: str, view_id: str) -> str:
    values: dict[str, dict[str, dict[str, object]]] = {name: {name: {"type": "plain_text_input", "value": value}}
              for name, value in (("team_demarche", "101"), ("team_group", None), ("team_hour", None))}
    values["team_workspace"] = {"team_workspace": {"type": "static_select", "selected_option": {"value": picked}}}
    return interaction("view_submission", user, team=team, enterprise="E0ORG", org=True, view={
        "id": view_id, "type": "modal", "callback_id": "team_space_modal", "private_metadata": "", "team_id": team,
        "state": {"values": values}})


async def test_homes_window_offers_the_organisations_workspaces_and_the_space_goes_to_the_one_picked(org_bot: Bot, slack: FakeSlack,
                                                                                                    redis) -> None:
    assert (await org_bot.post(home_click("U0ADA1", "T0ORG1"))).status_code == 200
    await org_bot.runtime.tasks.drain(10)
    [select] = _picker(slack)
    assert [o["value"] for o in select["options"]] == ["T0ORG1", "T0ORG2"] and select["initial_option"]["value"] == "T0ORG1"

    assert (await org_bot.post(window("U0ADA1", "T0ORG1", "T0ORG2", "V0PICK"))).status_code == 200
    await org_bot.runtime.tasks.drain(10)
    [made] = slack.called("conversations.create")
    assert made.args.get("team_id") == "T0ORG2"
    space = await TeamSpaces(redis).get("T0ORG2", 101, None)
    assert space is not None and space.by == "U0ADA2"  # Ada's account there hears of its roster
    assert await TeamSpaces(redis).get("T0ORG1", 101, None) is None
    assert "U0BOB2" in slack.channels[space.channel]["members"] and "U0BOB1" not in slack.channels[space.channel]["members"]
    [told] = [m for m in slack.posted("U0ADA1") if "Team space" in str(m)]
    assert "ready" in text_of(told)


def _picker(slack: FakeSlack) -> list[dict]:
    """The workspace picker of the team-space window, once Slack has it: the window opens at once, and
    an organisation's workspaces are offered in it by `views.update` when listed."""
    assert len(slack.called("views.open")) == 1
    [offered] = slack.called("views.update")
    assert offered.args["view_id"] == "V0MODAL"
    view = json.loads(offered.args["view"]) if isinstance(offered.args["view"], str) else offered.args["view"]
    return [block["element"] for block in view["blocks"] if block.get("block_id") == "team_workspace"]


async def test_homes_window_opens_before_slack_lists_the_organisations_workspaces(org_bot: Bot, slack: FakeSlack) -> None:
    """The trigger lives 3 s; listing an organisation's workspaces may take longer: the window opens
    first, and the workspaces are offered in it when they come."""
    slack.slow["auth.teams.list"] = 3.5
    before = len(slack.calls)
    assert (await org_bot.post(home_click("U0ADA1", "T0ORG1"))).status_code == 200
    await org_bot.runtime.tasks.drain(15)
    order = [call.method for call in slack.calls[before:] if call.method in ("views.open", "auth.teams.list")]
    assert order == ["views.open", "auth.teams.list"]
    [select] = _picker(slack)
    assert [o["value"] for o in select["options"]] == ["T0ORG1", "T0ORG2"]


async def test_a_workspace_the_install_does_not_serve_or_where_the_person_has_no_account_sets_nothing_up(org_bot: Bot,
                                                                                                         slack: FakeSlack) -> None:
    slack.remove_user("U0ADA2")  # Ada has no account in the organisation's second workspace any more
    await org_bot.post(window("U0ADA1", "T0ORG1", "T0ELSE", "V0ELSE"))  # a workspace the install does not serve
    await org_bot.post(window("U0ADA1", "T0ORG1", "T0ORG2", "V0ORG2"))
    await org_bot.runtime.tasks.drain(10)
    assert not slack.called("conversations.create")
    said = [text_of(m) for m in slack.posted("U0ADA1")]
    assert any("The app does not serve that workspace of your organisation" in words for words in said)
    assert any("You have no account in the workspace you picked" in words for words in said)
