"""A workspace's own dossier-service token, given by one of its administrators on Home's Settings:
tried before it is kept, kept sealed, never shown, replaceable and removable; only that
workspace's digests and previews read with it, and the operator's token serves only the
workspaces the operator named."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeGroup
from bot.demo.meet import FakeMeet
from bot.wiring import digest_job
from clients.redis_keys import key as redis_key
from tests.conftest import Bot, eventually, start_bot, text_of
from tests.fakes.slack import FakeSlack
from tests.installs.oauth import install, oauth_settings, room_command
from tests.slack_requests import event_body, home_opened, interaction, signed_headers

pytestmark = pytest.mark.asyncio

B_TOKEN = "ds-token-of-workspace-b"


@pytest.fixture
async def bot(meet: FakeMeet, slack: FakeSlack, redis: aioredis.Redis, ds: FakeDS) -> AsyncIterator[Bot]:
    ds.add_demarche(101, "Aides A", 3, admins=("anne@example.gouv.fr",))
    ds.add_demarche(202, "Aides B", 4, admins=("boss@example.gouv.fr",))
    ds.tokens[B_TOKEN] = {202}
    settings = oauth_settings(meet, slack, ds_api_url=ds.url, ds_api_token=ds.token, ds_api_token_teams="T0AAA")
    async with digest_job(settings, redis, None, with_ai=False) as job:
        async for running in start_bot(settings, redis, slack, digests=job):
            await install(running, slack, "T0AAA")
            await install(running, slack, "T0BBB")
            slack.add_user("U0ANNE", "anne@example.gouv.fr", team="T0AAA", locale="en-US", is_admin=True)
            slack.add_user("U0BOSS", "boss@example.gouv.fr", team="T0BBB", locale="en-US", is_admin=True)
            slack.add_user("U0BRUNO", "bruno@example.gouv.fr", team="T0BBB", locale="en-US")
            for channel, team in (("C0AAA", "T0AAA"), ("C0BBB", "T0BBB")):
                slack.channels[channel] = {"private": False, "member": True, "team": team}
            yield running


async def home(bot: Bot, user: str, team: str) -> str:
    """Opens the Home tab; the words of the view published."""
    before = len(bot.slack.called("views.publish"))
    body = event_body(home_opened(user), event_id=f"Ev{len(bot.slack.calls)}", team=team)
    assert (await bot.post(body, signed_headers(body))).status_code == 200
    await bot.runtime.tasks.drain(5)
    published = bot.slack.called("views.publish")[before:]
    assert published, "no Home published"
    return text_of(json.loads(published[-1].args["view"]) if isinstance(published[-1].args["view"], str) else published[-1].args["view"])


async def submit(bot: Bot, token: str, user: str = "U0BOSS", team: str = "T0BBB") -> dict:
    view = {"id": "V0TOKEN", "type": "modal", "callback_id": "ds_token_modal", "private_metadata": "", "hash": "1.2",
            "state": {"values": {"ds_token": {"ds_token": {"type": "plain_text_input", "value": token}}}}}
    body = interaction("view_submission", user, team=team, view=view)
    answer = await bot.post(body, signed_headers(body))
    assert answer.status_code == 200
    await bot.runtime.tasks.drain(5)
    return answer.json() if answer.content else {}


async def test_only_administrators_see_settings_and_what_serves_them(bot: Bot) -> None:
    assert "Settings" in await home(bot, "U0ANNE", "T0AAA") and "bot operator's token" in await home(bot, "U0ANNE", "T0AAA")
    assert "Digests are off in this workspace" in await home(bot, "U0BOSS", "T0BBB")
    assert "Settings" not in await home(bot, "U0BRUNO", "T0BBB")


async def test_a_token_is_tried_before_it_is_kept(bot: Bot, slack: FakeSlack, ds: FakeDS, redis: aioredis.Redis) -> None:
    refused = await submit(bot, "not-a-token-the-service-knows")
    assert refused["response_action"] == "errors"
    assert "refused this token: the dossier service does not know the token (revoked or mistyped)" in refused["errors"]["ds_token"]
    for garbage in ("", "   ", "two words", "x" * 500, "\u0000abc"):
        assert "does not look like a token" in (await submit(bot, garbage))["errors"]["ds_token"]
    assert await redis.keys(redis_key("ds-token:*")) == []

    assert await submit(bot, f"  {B_TOKEN}\n") == {}
    [kept] = await redis.keys(redis_key("ds-token:*"))
    assert kept == redis_key("ds-token:T0BBB") and B_TOKEN not in str(await redis.get(kept))  # sealed
    said = await home(bot, "U0BOSS", "T0BBB")
    assert "with the token <@U0BOSS> gave on" in said and B_TOKEN not in said and "Replace the token" in said
    published = [call.args for call in slack.calls if call.method in ("views.publish", "views.open")]
    assert all(B_TOKEN not in json.dumps(args) for args in published)


async def test_someone_not_an_administrator_cannot_set_it_even_by_forging_the_modal(bot: Bot, redis: aioredis.Redis) -> None:
    answer = await submit(bot, B_TOKEN, user="U0BRUNO")
    assert "Only a workspace administrator" in answer["errors"]["ds_token"]
    assert await redis.keys(redis_key("ds-token:*")) == []


def token_of_b(slack: FakeSlack) -> str:
    [token] = [token for token, grant in slack.grants.items() if grant.team == "T0BBB"]
    return token


async def test_the_workspaces_token_reads_for_it_and_for_nobody_else(bot: Bot, ds: FakeDS, slack: FakeSlack) -> None:
    off = await room_command(bot, "subscribe 202", "U0BOSS", "T0BBB", channel="C0BBB", command="/digest")
    assert "not set up for this workspace" in text_of(off) and "DS_API_TOKEN_TEAMS" in text_of(off)
    assert "A workspace administrator can give one in the app's Home tab" in text_of(off) and ds.asked_with == []

    assert await submit(bot, B_TOKEN) == {}
    ds.asked_with.clear()
    said = await room_command(bot, "subscribe 202", "U0BOSS", "T0BBB", channel="C0BBB", command="/digest")
    assert "202" in text_of(said) and "not set up" not in text_of(said)
    assert ds.asked_with and set(ds.asked_with) == {B_TOKEN}
    ds.asked_with.clear()
    await room_command(bot, "now", "U0BOSS", "T0BBB", channel="C0BBB", command="/digest")
    await eventually(lambda: [m for m in slack.posted("C0BBB") if "Aides B" in text_of(m)], what="B's digest")
    [posted] = [m for m in slack.posted("C0BBB") if "Aides B" in text_of(m)]
    assert "*4* dossiers" in text_of(posted) and set(ds.asked_with) == {B_TOKEN}
    assert {call.token for call in slack.called("chat.postMessage")} == {token_of_b(slack)}
    refused = await room_command(bot, "subscribe 101", "U0BOSS", "T0BBB", channel="C0BBB", command="/digest")
    assert "101" in text_of(refused)  # the operator's token reads 101, this workspace's does not
    assert set(ds.asked_with) == {B_TOKEN}

    ds.asked_with.clear()
    await room_command(bot, "list", "U0ANNE", "T0AAA", channel="C0AAA", command="/digest")
    await room_command(bot, "subscribe 101", "U0ANNE", "T0AAA", channel="C0AAA", command="/digest")
    assert ds.asked_with and set(ds.asked_with) == {ds.token}


async def test_an_administrator_removes_it_and_digests_stop(bot: Bot, redis: aioredis.Redis) -> None:
    assert await submit(bot, B_TOKEN) == {}
    body = interaction("block_actions", "U0BOSS", team="T0BBB", actions=[
        {"action_id": "ds_token_remove", "block_id": "b", "type": "button", "value": "", "action_ts": "1.2"}],
        container={"type": "view", "view_id": "V0HOME"}, view={"id": "V0HOME", "type": "home"})
    assert (await bot.post(body, signed_headers(body))).status_code == 200
    await bot.runtime.tasks.drain(5)
    assert await redis.keys(redis_key("ds-token:*")) == []
    said = await room_command(bot, "list", "U0BOSS", "T0BBB", channel="C0BBB", command="/digest")
    assert "not set up for this workspace" in text_of(said)


async def test_dossier_links_are_previewed_with_the_workspaces_own_token_only(bot: Bot, ds: FakeDS, slack: FakeSlack) -> None:
    dossier = ds.deposit(202)
    link = f"{ds.url.removesuffix('/api/v2/graphql')}/procedures/202/dossiers/{dossier.number}"

    async def preview(event_id: str) -> str:
        body = event_body({"type": "link_shared", "channel": "C0BBB", "user": "U0BOSS", "message_ts": "1700000000.000300",
                           "unfurl_id": f"C0BBB.{event_id}", "source": "conversations_history",
                           "links": [{"domain": "127.0.0.1", "url": link}]}, event_id=event_id, team="T0BBB")
        assert (await bot.post(body, signed_headers(body))).status_code == 200
        await bot.runtime.tasks.drain(10)
        unfurls = slack.called("chat.unfurl")[-1].args["unfurls"]
        return text_of((json.loads(unfurls) if isinstance(unfurls, str) else unfurls)[link])

    assert (await preview("EvB1")).strip() == f"*Dossier n° {dossier.number}*" and ds.asked_with == []
    assert await submit(bot, B_TOKEN) == {}
    assert "*Aides B* · n° 202" in await preview("EvB2")
    assert set(ds.asked_with) == {B_TOKEN}


async def test_a_service_too_slow_for_slacks_three_seconds_keeps_nothing(bot: Bot, ds: FakeDS, redis: aioredis.Redis) -> None:
    ds.slow[0] = 2.0  # the probe asks for démarche 0; Slack waits 3 s for the whole answer
    answer = await submit(bot, B_TOKEN)
    assert "did not answer in time: nothing was changed" in answer["errors"]["ds_token"]
    assert await redis.keys(redis_key("ds-token:*")) == []


async def test_dossiers_are_read_and_acted_on_with_the_workspaces_own_token(bot: Bot, slack: FakeSlack, ds: FakeDS) -> None:
    assert await submit(bot, B_TOKEN) == {}
    ds.demarches[202].groups = [FakeGroup(1, "G", ["boss@example.gouv.fr"])]
    theirs, ours = ds.demarches[202].dossiers[0], ds.demarches[101].dossiers[0]
    theirs.state = "en_construction"
    asked = len(ds.asked_with)
    reply = await room_command(bot, str(theirs.number), "U0BOSS", "T0BBB", channel="C0BBB", command="/dossier")
    assert f"Dossier n° {theirs.number}" in text_of(reply) and "Start review" in text_of(reply)
    assert set(ds.asked_with[asked:]) == {B_TOKEN}  # read with the workspace's token only
    # the operator's token reads démarche 101; the workspace's does not: nothing crosses
    denied = await room_command(bot, str(ours.number), "U0BOSS", "T0BBB", channel="C0BBB", command="/dossier")
    assert "I can show you no dossier" in text_of(denied)
