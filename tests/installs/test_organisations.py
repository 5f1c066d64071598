"""Organisation-wide installs as Slack really sends them (slack-platform.md §13): buttons and modals
with `"team": null`, events whose grant is in `authorizations[0]`; which workspaces belong to an
organisation is learnt from Slack only; an organisation's uninstall removes only what is its own."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import redis.asyncio as aioredis

from bot.demo.meet import FakeMeet
from clients.dossiers.subscriptions import Followed, Subscription, Subscriptions
from clients.redis_keys import key as redis_key
from tests.conftest import Bot, text_of
from tests.fakes.slack import FakeSlack
from tests.installs.oauth import event, install, room_command, token_of
from tests.slack_requests import choice, home_opened, interaction

pytestmark = pytest.mark.asyncio


@pytest.fixture
def bot(three_installs: Bot) -> Bot:
    return three_installs


def views_of(slack: FakeSlack, method: str) -> list[dict]:
    return [json.loads(call.args["view"]) if isinstance(call.args["view"], str) else call.args["view"]
            for call in slack.called(method)]


async def test_buttons_and_modals_of_an_organisation_install_work(bot: Bot, slack: FakeSlack, meet: FakeMeet) -> None:
    org_token = token_of(slack, "E0ORG")
    click = interaction("block_actions", "U0OLGA", team="T0ORG1", enterprise="E0ORG", org=True,
                        container={"type": "view", "view_id": "V0HOME"}, view={"id": "V0HOME", "type": "home", "team_id": "T0ORG1"},
                        actions=[{"action_id": "home_new_room", "type": "static_select", "block_id": "b",
                                  "selected_option": {"value": "restricted", "text": {"type": "plain_text", "text": "x"}}}])
    assert (await bot.post(click)).status_code == 200
    await bot.runtime.tasks.drain(5)
    [published] = [call for call in slack.called("views.publish") if call.token == org_token]
    assert published.args["team_id"] == "T0ORG1" and "Your video room is ready" in text_of(views_of(slack, "views.publish")[-1])

    submitted = interaction("view_submission", "U0OLGA", team="T0ORG1", enterprise="E0ORG", org=True, view={
        "id": "V0NEW", "type": "modal", "callback_id": "room_new_modal", "private_metadata": "", "hash": "1.2",
        "team_id": "T0ORG1", "state": {"values": choice("trusted")}})
    assert (await bot.post(submitted)).status_code == 200
    await bot.runtime.tasks.drain(5)
    assert len(meet.rooms) == 2
    [dm] = slack.posted("U0OLGA")
    assert "Your video room is ready" in text_of(dm)
    made = [call for call in slack.calls if call.token == org_token and not call.method.startswith("auth.")]
    assert {call.args.get("team_id") for call in made} == {"T0ORG1"}


async def test_home_of_an_organisation_workspace_opens(bot: Bot, slack: FakeSlack) -> None:
    await event(bot, home_opened("U0OLGA"), event_id="Ev0ORGHOME", team="T0ORG1", enterprise="E0ORG", org=True)
    [published] = slack.called("views.publish")
    assert published.token == token_of(slack, "E0ORG") and published.args["team_id"] == "T0ORG1"


async def test_a_request_naming_an_organisation_does_not_make_a_workspace_its_member(
        bot: Bot, slack: FakeSlack, redis: aioredis.Redis) -> None:
    """T0BBB is installed on its own; a request saying it belongs to E0ORG (a Slack Connect channel
    brings such ids) is served, but Slack does not list T0BBB among E0ORG's workspaces: E0ORG's
    uninstall leaves it whole."""
    subscriptions = Subscriptions(redis)
    await subscriptions.save(Subscription("C0BBB", (Followed(101, "U0BRUNO"),), dt.time(9), team="T0BBB"))
    await room_command(bot, "list", "U0BRUNO", "T0BBB", channel="C0BBB")  # its profile is cached
    await room_command(bot, "help", "U0BRUNO", "T0BBB", channel="C0BBB", enterprise="E0ORG", org=True)
    await bot.runtime.tasks.drain(5)
    assert await bot.runtime.workspaces.enterprise_of("T0BBB") is None
    assert await bot.runtime.workspaces.enterprise_of("T0ORG1") == "E0ORG"  # what Slack listed

    slack.revoke(enterprise="E0ORG")
    await event(bot, {"type": "app_uninstalled"}, event_id="Ev0ORGGONE", team="T0ORG1", enterprise="E0ORG", org=True)
    assert await subscriptions.get("T0BBB", "C0BBB") is not None
    assert await redis.keys(redis_key("profile:T0BBB:*"))
    assert await bot.runtime.workspaces.client("T0BBB") is not None
    assert await bot.runtime.workspaces.client("T0ORG1") is None


async def test_a_workspace_of_the_organisation_installed_on_its_own_too_keeps_its_data(
        bot: Bot, slack: FakeSlack, redis: aioredis.Redis) -> None:
    subscriptions = Subscriptions(redis)
    await subscriptions.save(Subscription("C0ORG", (Followed(101, "U0OLGA"),), dt.time(9), team="T0ORG1"))
    await install(bot, slack, "T0ORG1", enterprise="E0ORG")  # its own install as well
    slack.revoke(enterprise="E0ORG")
    await event(bot, {"type": "app_uninstalled"}, event_id="Ev0ORGGONE", team="T0ORG1", enterprise="E0ORG", org=True)
    assert await subscriptions.get("T0ORG1", "C0ORG") is not None
    client = await bot.runtime.workspaces.client("T0ORG1")
    assert client is not None and client.token == token_of(slack, "T0ORG1")


async def test_workspaces_added_to_and_removed_from_an_organisation_install(bot: Bot, slack: FakeSlack, redis: aioredis.Redis) -> None:
    slack.team_orgs["T0ORG2"] = "E0ORG"
    await event(bot, {"type": "team_access_granted", "team_ids": ["T0ORG2"]}, event_id="Ev0GRANT", team="T0ORG1",
                enterprise="E0ORG", org=True)
    client = await bot.runtime.workspaces.client("T0ORG2")
    assert client is not None and client.token == token_of(slack, "E0ORG") and client.default_params["team_id"] == "T0ORG2"

    subscriptions = Subscriptions(redis)
    await subscriptions.save(Subscription("C0ORG2", (Followed(101, "U0X"),), dt.time(9), team="T0ORG2"))
    await event(bot, {"type": "team_access_revoked", "team_ids": ["T0ORG2"]}, event_id="Ev0REVOKE", team="T0ORG1",
                enterprise="E0ORG", org=True)
    assert await bot.runtime.workspaces.client("T0ORG2") is None
    assert await subscriptions.get("T0ORG2", "C0ORG2") is None
    assert await bot.runtime.workspaces.client("T0ORG1") is not None  # the rest of the organisation stays


async def test_a_persons_revoked_token_removes_only_their_grant(bot: Bot, slack: FakeSlack) -> None:
    store = bot.runtime.workspaces.store
    assert store is not None
    await event(bot, {"type": "tokens_revoked", "tokens": {"oauth": ["U0INSTALLER"]}}, event_id="Ev0PEOPLE", team="T0AAA")
    assert await store.async_find_installation(enterprise_id=None, team_id="T0AAA", user_id="U0INSTALLER") is None
    assert await store.async_find_installation(enterprise_id=None, team_id="T0AAA") is not None
    reply = await room_command(bot, "list", "U0ANNE", "T0AAA", channel="C0AAA")
    assert "no longer installed" not in text_of(reply)
