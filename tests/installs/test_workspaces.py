"""Many workspaces and an organisation served at once by one deployment: each is answered with its
own token, nothing of one is reached from another, and an uninstall removes one and only one."""

from __future__ import annotations

import datetime as dt

import pytest
import redis.asyncio as aioredis

from clients.dossiers.subscriptions import Followed, Subscription, Subscriptions
from clients.redis_keys import key as redis_key
from tests.conftest import Bot, text_of
from tests.fakes.slack import FakeSlack
from tests.installs.oauth import event, install, room_command, token_of
from tests.slack_requests import home_opened

pytestmark = pytest.mark.asyncio


@pytest.fixture
def bot(three_installs: Bot) -> Bot:
    return three_installs


async def kept_of(redis: aioredis.Redis, place: str) -> list[str]:
    """What Redis still holds of a workspace, less the marks that a request was handled (they
    expire within the hour and serve nothing)."""
    return [str(name) for name in await redis.keys(f"*{place}*") if not str(name).startswith(redis_key("once:"))]


async def test_each_workspace_is_answered_with_its_own_token(bot: Bot, slack: FakeSlack) -> None:
    for user, team in (("U0ANNE", "T0AAA"), ("U0BRUNO", "T0BBB")):
        reply = await room_command(bot, "new", user, team, channel=f"C0{team[2:]}")
        assert "Your video room is ready" in text_of(reply)
    by_user = {call.args["user"]: call.token for call in slack.called("users.info")}
    assert by_user == {"U0ANNE": token_of(slack, "T0AAA"), "U0BRUNO": token_of(slack, "T0BBB")}


async def test_a_channel_of_another_workspace_is_not_reached(bot: Bot, slack: FakeSlack) -> None:
    reply = await room_command(bot, "new <#C0BBB|their-channel>", "U0ANNE", "T0AAA", channel="C0AAA")
    assert slack.posted("C0BBB") == []
    assert "C0BBB" in text_of(reply) and "Your video room is ready" in text_of(reply)
    assert [refusal for method, refusal in slack.refusals if method == "chat.postMessage"] == [
        {"ok": False, "error": "channel_not_found"}]


async def test_the_same_event_id_in_two_workspaces_acts_in_both(bot: Bot, slack: FakeSlack) -> None:
    await event(bot, home_opened("U0ANNE"), event_id="Ev0SAME", team="T0AAA")
    await event(bot, home_opened("U0BRUNO"), event_id="Ev0SAME", team="T0BBB")
    await event(bot, home_opened("U0BRUNO"), event_id="Ev0SAME", team="T0BBB")  # Slack's retry: once
    published = {(call.args["user_id"], call.token) for call in slack.called("views.publish")}
    assert published == {("U0ANNE", token_of(slack, "T0AAA")), ("U0BRUNO", token_of(slack, "T0BBB"))}
    assert len(slack.called("views.publish")) == 2


async def test_digest_subscriptions_are_each_workspaces_own(redis: aioredis.Redis) -> None:
    subscriptions = Subscriptions(redis)
    await subscriptions.save(Subscription("C0SAME", (Followed(101, "U0ANNE"),), dt.time(9), team="T0AAA"))
    await subscriptions.save(Subscription("C0SAME", (Followed(202, "U0BRUNO"),), dt.time(10), team="T0BBB"))
    a, b = await subscriptions.get("T0AAA", "C0SAME"), await subscriptions.get("T0BBB", "C0SAME")
    assert a is not None and b is not None and (a.demarches, b.demarches) == ((101,), (202,))
    assert await subscriptions.get("T0CCC", "C0SAME") is None
    assert [s.team for s in await subscriptions.all()] == ["T0AAA", "T0BBB"]


async def test_an_organisation_install_serves_its_workspaces_with_team_id_on_every_call(bot: Bot, slack: FakeSlack) -> None:
    reply = await room_command(bot, "new <#C0ORG|team>", "U0OLGA", "T0ORG1", channel="C0ORG", enterprise="E0ORG", org=True)
    assert "Your video room is ready" in text_of(reply)
    org_token = token_of(slack, "E0ORG")
    made = [call for call in slack.calls if call.token == org_token and not call.method.startswith("auth.")]  # auth.*: about the token
    assert made and all(call.args.get("team_id") == "T0ORG1" for call in made)
    assert len(slack.posted("C0ORG")) == 1
    # background work (digests, weekly reminders) finds the organisation's token by the workspace
    client = await bot.runtime.workspaces.client("T0ORG1")
    assert client is not None and client.token == org_token and client.default_params["team_id"] == "T0ORG1"
    assert await bot.runtime.workspaces.client("T0NEVER") is None


async def test_an_uninstall_removes_that_workspace_and_nothing_else(bot: Bot, slack: FakeSlack, redis: aioredis.Redis) -> None:
    await room_command(bot, "new", "U0ANNE", "T0AAA", channel="C0AAA")
    await room_command(bot, "new", "U0BRUNO", "T0BBB", channel="C0BBB")
    subscriptions = Subscriptions(redis)
    for team in ("T0AAA", "T0BBB"):
        await subscriptions.save(Subscription(f"C0{team[2:]}", (Followed(101, "U0X"),), dt.time(9), team=team))
    assert await redis.keys(redis_key("profile:T0AAA:*"))

    slack.revoke(team="T0AAA")
    await event(bot, {"type": "app_uninstalled"}, event_id="Ev0GONE", team="T0AAA")

    assert await kept_of(redis, "T0AAA") == []
    assert await redis.keys(redis_key("profile:T0BBB:*")) and await subscriptions.get("T0BBB", "C0BBB") is not None
    assert await bot.runtime.workspaces.client("T0AAA") is None
    told = await room_command(bot, "list", "U0ANNE", "T0AAA")
    assert "no longer installed" in told["text"]
    reply = await room_command(bot, "list", "U0BRUNO", "T0BBB")
    assert "no longer installed" not in text_of(reply)
    assert (await bot.http.get("/metrics")).text.count("roombot_slack_installations 2.0") == 1


async def test_an_organisation_uninstall_removes_all_of_its_workspaces(bot: Bot, slack: FakeSlack, redis: aioredis.Redis) -> None:
    await room_command(bot, "list", "U0OLGA", "T0ORG1", channel="C0ORG", enterprise="E0ORG", org=True)
    assert await redis.keys(redis_key("profile:T0ORG1:*"))
    slack.revoke(enterprise="E0ORG")
    # as Slack sends it: the top-level team is one workspace, the grant the organisation's
    await event(bot, {"type": "app_uninstalled"}, event_id="Ev0ORGGONE", team="T0ORG1", enterprise="E0ORG", org=True)
    assert await bot.runtime.workspaces.client("T0ORG1") is None
    assert await kept_of(redis, "T0ORG1") == [] and await kept_of(redis, "E0ORG") == []
    assert await bot.runtime.workspaces.client("T0AAA") is not None

    slack.team_orgs["T0ORG1"] = "E0ORG"
    await install(bot, slack, None, enterprise="E0ORG", org=True)  # installed again at once
    await room_command(bot, "list", "U0OLGA", "T0ORG1", channel="C0ORG", enterprise="E0ORG", org=True)
    client = await bot.runtime.workspaces.client("T0ORG1")  # its background work finds it again
    assert client is not None and client.token == token_of(slack, "E0ORG")


async def test_a_revoked_bot_token_is_an_uninstall_but_people_tokens_are_not(bot: Bot, slack: FakeSlack) -> None:
    await event(bot, {"type": "tokens_revoked", "tokens": {"oauth": ["U0ANNE"]}}, event_id="Ev0PEOPLE", team="T0AAA")
    assert await bot.runtime.workspaces.client("T0AAA") is not None
    await event(bot, {"type": "tokens_revoked", "tokens": {"bot": ["U0BOT"]}}, event_id="Ev0BOT", team="T0AAA")
    assert await bot.runtime.workspaces.client("T0AAA") is None
    assert await bot.runtime.workspaces.client("T0BBB") is not None

