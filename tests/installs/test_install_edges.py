"""The install flow's edges and a changed encryption key: the state's cookie is cleared, Bolt takes
no OAuth setting from the environment behind the configuration's back, `?team=` cannot reshape
Slack's URL, opening the install page costs no storage, Slack being down is a page, the access
log keeps no code or state, and installations sealed with a changed key are reported, not lost."""

from __future__ import annotations

import asyncio
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import redis.asyncio as aioredis
from cryptography.fernet import Fernet
from pydantic import SecretStr

from bot.commands.check import run_checks
from bot.demo.meet import FakeMeet
from tests.conftest import bot_env, start_bot, text_of
from tests.fakes.slack import CLIENT_ID, CLIENT_SECRET, FakeSlack
from tests.installs.oauth import KEY, install, oauth_settings, room_command, start_install
from tests.processes import free_port, python_env, start_server
from tests.slack_requests import command_body


def cleared(response: httpx.Response) -> bool:
    cookie = response.headers.get("set-cookie", "")
    return "slack-app-oauth-state=" in cookie and ("Max-Age=0" in cookie or "01 Jan 1970" in cookie)


async def test_the_state_cookie_is_cleared_once_the_install_ends(meet: FakeMeet, slack: FakeSlack, redis: aioredis.Redis) -> None:
    async for bot in start_bot(oauth_settings(meet, slack), redis, slack):
        state = await start_install(bot)
        done = await bot.http.get("/slack/oauth_redirect", params={"code": slack.consent("T0AAA"), "state": state})
        assert done.status_code == 200 and cleared(done)
        state = await start_install(bot)
        refused = await bot.http.get("/slack/oauth_redirect", params={"error": "access_denied", "state": state},
                                     headers={"accept-language": "en"})
        assert "nothing was installed" in refused.text
        assert cleared(refused)


async def test_bolt_takes_no_oauth_setting_from_the_environment(meet: FakeMeet, slack: FakeSlack, redis: aioredis.Redis,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_REDIRECT_URI", "https://evil.example/steal")
    monkeypatch.setenv("SLACK_USER_SCOPES", "admin,chat:write")
    monkeypatch.setenv("SLACK_SCOPES", "admin")
    async for bot in start_bot(oauth_settings(meet, slack), redis, slack):
        answer = await bot.http.get("/slack/install")
        asked = parse_qs(urlsplit(answer.headers["location"]).query)
        assert "redirect_uri" not in asked and asked.get("user_scope", [""]) == [""]
        assert "admin" not in asked["scope"][0].split(",") and "users:read.email" in asked["scope"][0].split(",")


async def test_a_team_in_the_install_link_cannot_reshape_slacks_url(meet: FakeMeet, slack: FakeSlack, redis: aioredis.Redis) -> None:
    async for bot in start_bot(oauth_settings(meet, slack), redis, slack):
        kept = await bot.http.get("/slack/install", params={"team": "T0AAA"})
        assert parse_qs(urlsplit(kept.headers["location"]).query)["team"] == ["T0AAA"]
        forged = await bot.http.get("/slack/install", params={"team": "T0AAA&scope=admin&redirect_uri=https://evil.example"})
        asked = parse_qs(urlsplit(forged.headers["location"]).query)
        assert "team" not in asked and "redirect_uri" not in asked and "admin" not in asked["scope"][0]


async def test_opening_the_install_page_stores_nothing(meet: FakeMeet, slack: FakeSlack, redis: aioredis.Redis) -> None:
    async for bot in start_bot(oauth_settings(meet, slack), redis, slack):
        before = await redis.dbsize()
        answers = await asyncio.gather(*(bot.http.get("/slack/install") for _ in range(500)))
        assert {answer.status_code for answer in answers} == {302}
        assert await redis.dbsize() == before


async def test_slack_unreachable_at_the_callback_is_a_page_to_start_again(meet: FakeMeet, slack: FakeSlack,
                                                                         redis: aioredis.Redis) -> None:
    settings = oauth_settings(meet, slack, slack_api_url=f"http://127.0.0.1:{free_port()}/api/")  # nothing listens
    async for bot in start_bot(settings, redis, slack):
        state = await start_install(bot)
        page = await bot.http.get("/slack/oauth_redirect", params={"code": "code-1", "state": state}, headers={"accept-language": "en"})
        assert page.status_code == 503 and page.headers["content-type"].startswith("text/html")
        assert "Slack could not be reached" in page.text and "Start again" in page.text and "Traceback" not in page.text


def test_the_access_log_keeps_no_code_or_state(tmp_path: Path, meet: FakeMeet, slack: FakeSlack) -> None:
    env = {name: value for name, value in bot_env(meet, slack).items() if name != "SLACK_BOT_TOKEN"}
    env |= {"SLACK_CLIENT_ID": CLIENT_ID, "SLACK_CLIENT_SECRET": CLIENT_SECRET, "TOKEN_ENCRYPTION_KEY": KEY,
            "LOG_LEVEL": "DEBUG", "DATA_DIR": str(tmp_path / "data")}
    process, base = start_server(["-m", "bot", "serve"], python_env(**env), cwd=tmp_path)
    try:
        with httpx.Client(base_url=base) as http:
            state = http.get("/slack/install").cookies["slack-app-oauth-state"]
            code = slack.consent("T0AAA")
            page = http.get("/slack/oauth_redirect", params={"code": code, "state": state},
                            headers={"cookie": f"slack-app-oauth-state={state}"})
            assert page.status_code == 200, page.text
    finally:
        process.terminate()
        output = process.communicate(timeout=30)[0]
    assert "/slack/oauth_redirect?code=[redacted]&state=[redacted]" in output  # the access log line is there
    assert code not in output and state not in output
    assert process.returncode == 0


async def test_a_changed_key_is_reported_and_a_key_list_reads_both(meet: FakeMeet, slack: FakeSlack, redis: aioredis.Redis) -> None:
    old, new = KEY, Fernet.generate_key().decode()
    async for bot in start_bot(oauth_settings(meet, slack), redis, slack):
        await install(bot, slack, "T0AAA")
    slack.add_user("U0ANNE", "anne@example.gouv.fr", team="T0AAA", locale="en-US")
    meet.add_user("anne@example.gouv.fr")

    changed = oauth_settings(meet, slack, token_encryption_key=new)
    async for bot in start_bot(changed, redis, slack):
        answer = await bot.post(_command(slack, "list"))
        assert answer.status_code == 200
        told = answer.json()["text"]
        assert "being repaired" in told and "no longer installed" not in told
        assert slack.responses == []
    lines = [result.line() for result in await run_checks(changed, redis) if result.part == "Slack"]
    assert len(lines) == 1 and lines[0].startswith("✗") and "TOKEN_ENCRYPTION_KEY" in lines[0] and "nothing was deleted" in lines[0]
    assert "roombot_slack_installations 1.0" in await _metrics(changed, redis, slack)

    both = oauth_settings(meet, slack, token_encryption_key=SecretStr(f"{new},{old}"))
    async for bot in start_bot(both, redis, slack):
        reply = await room_command(bot, "list", "U0ANNE", "T0AAA")
        assert "no video room yet" in text_of(reply)
    lines = [result.line() for result in await run_checks(both, redis) if result.part == "Slack"]
    assert lines[0].startswith("✓")


def _command(slack: FakeSlack, text: str) -> str:
    return command_body(text, "U0ANNE", slack.response_url(), team="T0AAA")


async def _metrics(settings, redis: aioredis.Redis, slack: FakeSlack) -> str:
    async for bot in start_bot(settings, redis, slack):
        return (await bot.http.get("/metrics")).text
    raise AssertionError("the bot did not start")
