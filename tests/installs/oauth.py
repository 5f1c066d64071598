"""Helpers for the OAuth tests: the settings of an app installed by OAuth, and an install as a
person's browser makes it (the state's cookie kept by the client)."""

from __future__ import annotations

import httpx
import redis.asyncio as aioredis
from cryptography.fernet import Fernet

from bot.config import Settings
from bot.demo.meet import FakeMeet
from clients.redis_keys import key
from tests.conftest import Bot, bot_env
from tests.fakes.slack import CLIENT_ID, CLIENT_SECRET, FakeSlack
from tests.slack_requests import command_body, event_body, signed_headers

KEY = Fernet.generate_key().decode()


def oauth_settings(meet: FakeMeet, slack: FakeSlack, **more: object) -> Settings:
    values: dict[str, object] = {name.lower(): value for name, value in bot_env(meet, slack).items() if name != "SLACK_BOT_TOKEN"}
    values |= {"slack_client_id": CLIENT_ID, "slack_client_secret": CLIENT_SECRET, "token_encryption_key": KEY, **more}
    return Settings(_env_file=None, **values)  # type: ignore[arg-type]


async def kept_installations(redis: aioredis.Redis) -> dict[str, dict[str, str]]:
    """What the installation store keeps, by place: each field as stored (sealed)."""
    return {str(name): {str(field): str(value) for field, value in (await redis.hgetall(name)).items()}
            for name in await redis.keys(key("slack-place", "*"))}


async def start_install(bot: Bot) -> str:
    """Opens /slack/install: the state Slack will hand back. Its cookie is `Secure`, so the client
    (talking plain HTTP to the app) is handed it as a browser on HTTPS would send it."""
    answer = await bot.http.get("/slack/install")
    assert answer.status_code == 302, answer.text
    state = answer.cookies["slack-app-oauth-state"]
    assert "Secure" in answer.headers["set-cookie"] and "HttpOnly" in answer.headers["set-cookie"]
    bot.http.headers["cookie"] = f"slack-app-oauth-state={state}"
    return state


async def install(bot: Bot, slack: FakeSlack, team: str | None, *, enterprise: str | None = None, org: bool = False,
                  language: str = "fr") -> httpx.Response:
    """A whole install: the page, consent on Slack for `team` (or the organisation), the callback."""
    state = await start_install(bot)
    code = slack.consent(team, enterprise=enterprise, org=org)
    page = await bot.http.get("/slack/oauth_redirect", params={"code": code, "state": state},
                              headers={"accept-language": language})
    assert page.status_code == 200, page.text
    return page


async def room_command(bot: Bot, text: str, user: str, team: str, *, channel: str = "C0CHAN", enterprise: str | None = None,
                       org: bool = False, command: str = "/room") -> dict:
    """A command typed in `team`; the private reply."""
    before = len(bot.slack.responses)
    body = command_body(text, user, bot.slack.response_url(channel=channel), team=team, enterprise=enterprise, org=org,
                        channel=channel, command=command)
    answer = await bot.post(body)
    assert answer.status_code == 200, answer.text
    return (await bot.slack.wait_responses(before + 1, timeout=12))[before]


def token_of(slack: FakeSlack, place: str) -> str:
    """The live token Slack issued for a workspace or an organisation."""
    [token] = [token for token, grant in slack.grants.items() if place in (grant.team, grant.enterprise) and not grant.revoked]
    return token


async def event(bot: Bot, body_event: dict, *, event_id: str, team: str | None, enterprise: str | None = None, org: bool = False) -> None:
    """An Events API delivery, shaped as Slack sends it for that kind of installation."""
    body = event_body(body_event, event_id=event_id, team=team, enterprise=enterprise, org=org)
    answer = await bot.post(body, signed_headers(body))
    assert answer.status_code == 200, answer.text
    await bot.runtime.tasks.drain(5)
