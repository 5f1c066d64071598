"""Installing by OAuth ("Add to Slack") into many workspaces, end to end over HTTP: the one-time
`state`, the code exchanged with `oauth.v2.access`, the installation kept encrypted, each
workspace's requests answered with its own token — and the callbacks an attacker would forge."""

from __future__ import annotations

import asyncio
import io
import time
from urllib.parse import parse_qs, urlsplit

import pytest
import redis.asyncio as aioredis

from bot import logs
from bot.config import Settings
from bot.demo.meet import FakeMeet
from clients.redis_keys import key as redis_key
from tests.conftest import Bot, start_bot, text_of
from tests.fakes.slack import CLIENT_SECRET, FakeSlack
from tests.installs.oauth import install, kept_installations, oauth_settings, room_command, start_install
from tests.slack_requests import command_body

pytestmark = pytest.mark.asyncio


@pytest.fixture
def settings(meet: FakeMeet, slack: FakeSlack) -> Settings:
    return oauth_settings(meet, slack)


@pytest.fixture
async def bot(settings: Settings, redis: aioredis.Redis, slack: FakeSlack):
    async for running in start_bot(settings, redis, slack):
        yield running


async def test_install_redirects_to_slack_with_a_one_time_state_in_a_cookie(bot: Bot, slack: FakeSlack) -> None:
    answer = await bot.http.get("/slack/install")
    assert answer.status_code == 302
    target = urlsplit(answer.headers["location"])
    asked = parse_qs(target.query)
    assert target.netloc == "slack.com" and target.path == "/oauth/v2/authorize"
    assert asked["client_id"] == ["1111.2222"] and "users:read.email" in asked["scope"][0].split(",")
    assert answer.cookies["slack-app-oauth-state"] == asked["state"][0]
    again = await bot.http.get("/slack/install")
    assert parse_qs(urlsplit(again.headers["location"]).query)["state"] != asked["state"]


async def test_an_installed_workspace_is_answered_with_its_own_token(bot: Bot, slack: FakeSlack, meet: FakeMeet,
                                                                     redis: aioredis.Redis) -> None:
    page = await install(bot, slack, "T0AAA", language="fr-FR,fr;q=0.9,en;q=0.8")
    assert page.status_code == 200 and "Salles de visio est installé dans Workspace T0AAA" in page.text
    assert "app_redirect?app=A0APP&amp;team=T0AAA" in page.text
    [token] = slack.grants
    stored = await kept_installations(redis)
    assert stored and all(token not in value for place in stored.values() for value in place.values())  # encrypted at rest

    slack.add_user("U0ANNE", "anne@example.gouv.fr", team="T0AAA", locale="en-US")
    meet.add_user("anne@example.gouv.fr")
    reply = await room_command(bot, "new restricted", "U0ANNE", "T0AAA")
    assert "Your video room is ready" in text_of(reply)
    assert {call.token for call in slack.calls if call.method == "users.info"} == {token}


async def test_english_readers_get_the_page_in_english(bot: Bot, slack: FakeSlack) -> None:
    page = await install(bot, slack, "T0AAA", language="en-GB,en;q=0.9")
    assert "Salles de visio is installed in Workspace T0AAA" in page.text and '<html lang="en">' in page.text
    assert "`" not in page.text  # a web page, not Slack's mrkdwn
    org = await install(bot, slack, None, enterprise="E0ORG", org=True, language="en")
    assert "installed for every workspace of Organisation E0ORG" in org.text and "app_redirect?app=A0APP\"" in org.text


async def test_a_denied_consent_says_nothing_was_installed(bot: Bot, slack: FakeSlack, redis: aioredis.Redis) -> None:
    state = await start_install(bot)
    page = await bot.http.get("/slack/oauth_redirect", params={"error": "access_denied", "state": state},
                              headers={"accept-language": "en"})
    assert page.status_code == 200 and "cancelled in Slack: nothing was installed" in page.text
    assert 'href="/slack/install"' in page.text
    assert await kept_installations(redis) == {}


async def test_a_forged_state_installs_nothing(bot: Bot, slack: FakeSlack, redis: aioredis.Redis) -> None:
    await start_install(bot)
    code = slack.consent("T0EVIL")
    bot.http.headers["cookie"] = "slack-app-oauth-state=forged"
    page = await bot.http.get("/slack/oauth_redirect", params={"code": code, "state": "forged"}, headers={"accept-language": "en"})
    assert page.status_code == 401 and "expired, was already used, or was opened in another browser" in page.text
    assert slack.called("oauth.v2.access") == [] and await kept_installations(redis) == {}


async def test_a_state_from_another_browser_installs_nothing(bot: Bot, slack: FakeSlack) -> None:
    state = await start_install(bot)
    del bot.http.headers["cookie"]  # the link was sent to someone else
    page = await bot.http.get("/slack/oauth_redirect", params={"code": slack.consent("T0AAA"), "state": state},
                              headers={"accept-language": "fr"})
    assert page.status_code == 400 and "ouvert dans un autre navigateur" in page.text
    assert slack.called("oauth.v2.access") == []


async def test_a_replayed_callback_is_refused_and_changes_nothing(bot: Bot, slack: FakeSlack, redis: aioredis.Redis) -> None:
    state = await start_install(bot)
    code = slack.consent("T0AAA")
    first = await bot.http.get("/slack/oauth_redirect", params={"code": code, "state": state})
    assert first.status_code == 200
    stored = await kept_installations(redis)

    replayed = await bot.http.get("/slack/oauth_redirect", params={"code": code, "state": state}, headers={"accept-language": "en"})
    assert replayed.status_code == 401 and "already used" in replayed.text
    fresh_state = await start_install(bot)  # the same code with a state of its own: Slack refuses a code twice
    again = await bot.http.get("/slack/oauth_redirect", params={"code": code, "state": fresh_state}, headers={"accept-language": "en"})
    assert again.status_code == 401 and "invalid, expired or already used" in again.text
    assert await kept_installations(redis) == stored and len(slack.grants) == 1


async def test_a_code_given_to_another_app_installs_nothing(bot: Bot, slack: FakeSlack, redis: aioredis.Redis) -> None:
    state = await start_install(bot)
    code = slack.consent("T0AAA", client_id="9999.other")
    page = await bot.http.get("/slack/oauth_redirect", params={"code": code, "state": state}, headers={"accept-language": "en"})
    assert page.status_code == 401 and "did not confirm this installation" in page.text
    assert slack.grants == {} and await kept_installations(redis) == {}


async def test_hostile_callbacks_get_a_page_never_a_traceback(bot: Bot, slack: FakeSlack) -> None:
    for params in ({}, {"state": "x" * 5000, "code": "y" * 5000}, {"error": "<script>alert(1)</script>"},
                   {"code": "\u0000\u202e", "state": "\ud7ff"}):
        page = await bot.http.get("/slack/oauth_redirect", params=params, headers={"accept-language": "en"})
        assert page.status_code in (200, 400, 401) and page.headers["content-type"].startswith("text/html")
        assert "Traceback" not in page.text and "<script>" not in page.text and "Start again" in page.text


async def test_a_workspace_that_never_installed_is_told_so(bot: Bot, slack: FakeSlack) -> None:
    await install(bot, slack, "T0AAA")
    answer = await bot.post(command_body("list", "U0NOBODY", slack.response_url(), team="T0NONE"))
    assert answer.status_code == 200
    [told] = await slack.wait_responses(1)
    assert "n'est plus installée" in told["text"] and "no longer installed" in told["text"]
    assert slack.called("users.info") == []


async def test_a_rotating_token_is_refreshed_once_across_processes(settings: Settings, redis: aioredis.Redis,
                                                                    slack: FakeSlack, meet: FakeMeet) -> None:
    slack.rotation = True
    bots = [start_bot(settings, redis, slack) for _ in range(2)]
    first, second = [await anext(each) for each in bots]
    try:
        await install(first, slack, "T0AAA")
        [(old, grant)] = slack.grants.items()
        assert old.startswith("xoxe.xoxb-")
        store = first.runtime.workspaces.store
        assert store is not None
        installed = await store.async_find_installation(enterprise_id=None, team_id="T0AAA")
        assert installed is not None and installed.bot_refresh_token
        installed.bot_token_expires_at = grant.expires_at = int(time.time()) + 30 * 60
        await store.async_save(installed)  # half an hour left: under the two hours of margin

        slack.add_user("U0ANNE", "anne@example.gouv.fr", team="T0AAA", locale="en-US")
        meet.add_user("anne@example.gouv.fr")
        replies = await asyncio.gather(*(room_command(bot, "list", "U0ANNE", "T0AAA") for bot in (first, second, first, second)))
        assert all("rooms" in text_of(reply).lower() for reply in replies)
        refreshes = [call for call in slack.called("oauth.v2.access") if call.args.get("grant_type") == "refresh_token"]
        assert len(refreshes) == 1
        [new] = [token for token in slack.grants if token != old]
        assert {call.token for call in slack.called("users.info")} <= {old, new}
        slack.add_user("U0ARNO", "arno@example.gouv.fr", team="T0AAA", locale="en-US")  # a request after the refresh
        await room_command(second, "help", "U0ARNO", "T0AAA")
        assert slack.called("users.info")[-1].token == new
        renewed = await store.async_find_installation(enterprise_id=None, team_id="T0AAA")
        assert renewed is not None and renewed.bot_token == new
    finally:
        for each in bots:
            with pytest.raises(StopAsyncIteration):
                await anext(each)


async def test_install_answers_when_redis_is_gone(settings: Settings, slack: FakeSlack) -> None:
    dead = aioredis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=1)  # nothing listens there
    async for bot in start_bot(settings, dead, slack):
        state = await start_install(bot)  # a link is signed, not stored: it is handed out without Redis
        page = await bot.http.get("/slack/oauth_redirect", params={"code": slack.consent("T0AAA"), "state": state},
                                  headers={"accept-language": "en"})
        assert page.status_code == 503 and "could not be saved on the bot" in page.text
        assert slack.called("oauth.v2.access") == []  # the code is not spent: the same consent works once Redis is back


@pytest.mark.parametrize("json_lines", [True, False])
async def test_no_code_token_or_secret_in_the_log_even_at_debug(meet: FakeMeet, slack: FakeSlack, redis: aioredis.Redis,
                                                                 restore_logging, monkeypatch, json_lines: bool) -> None:
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    logs.configure("DEBUG", json_lines=json_lines)
    slack.rotation = True
    for secret in ("a-wrong-secret", CLIENT_SECRET):  # a misconfiguration first, logged; then the install
        async for bot in start_bot(oauth_settings(meet, slack, slack_client_secret=secret), redis, slack):
            state = await start_install(bot)
            code = slack.consent("T0AAA")
            await bot.http.get("/slack/oauth_redirect", params={"code": code, "state": state})
            assert code not in stream.getvalue()
    written = stream.getvalue()
    assert "oauth.v2.access" in written and "bad_client_secret" in written  # DEBUG was on, the failure is told
    [token] = slack.grants
    secrets = [token, *slack.refresh_tokens, CLIENT_SECRET, "a-wrong-secret", state]
    assert [secret for secret in secrets if secret in written] == []


async def test_an_expired_token_waits_for_the_process_refreshing_it(redis: aioredis.Redis) -> None:
    from slack_sdk.oauth.installation_store import Installation
    from slack_sdk.oauth.token_rotation.async_rotator import AsyncTokenRotator

    from bot.serving.authorize import Rotation
    from bot.serving.installations import InstallationStore
    from clients.secret_box import SecretBox

    store = InstallationStore(redis, SecretBox())
    expired = Installation(app_id="A0APP", team_id="T0AAA", bot_token="xoxe.xoxb-old", bot_refresh_token="xoxe-1-r",
                           bot_token_expires_at=int(time.time()) - 5, user_id="U0INSTALLER")
    await store.async_save(expired)
    await redis.set(redis_key("slack-rotate:team:T0AAA"), "1", ex=30)  # another process is refreshing it
    rotation = Rotation(redis, store, AsyncTokenRotator(client_id="x", client_secret="y"))  # must not be called

    async def the_other_process() -> None:
        await asyncio.sleep(0.2)
        renewed = Installation(**{**expired.__dict__, "bot_token": "xoxe.xoxb-new", "bot_token_expires_at": int(time.time()) + 43200})
        await store.async_save(renewed)
        await redis.delete(redis_key("slack-rotate:team:T0AAA"))

    other = asyncio.create_task(the_other_process())
    fresh = await rotation.fresh(expired)
    await other
    assert fresh is not None and fresh.bot_token == "xoxe.xoxb-new"
