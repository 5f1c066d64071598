"""What an operator of OAuth installs sees: `check` lists every installation and tries its token,
a wrong client secret is named, and `serve` refuses to start without an encryption key."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from bot.commands.check import run_checks
from bot.config import ConfigError
from bot.demo.meet import FakeMeet
from bot.scopes import REQUIRED_SCOPES
from tests.conftest import start_bot
from tests.fakes.slack import FakeSlack
from tests.installs.oauth import install, oauth_settings

pytestmark = pytest.mark.asyncio


async def test_check_lists_each_installation_and_tries_its_token(meet: FakeMeet, slack: FakeSlack, redis: aioredis.Redis) -> None:
    slack.scopes |= REQUIRED_SCOPES
    settings = oauth_settings(meet, slack)
    async for bot in start_bot(settings, redis, slack):
        await install(bot, slack, "T0AAA")
        await install(bot, slack, "T0BBB")
    slack.revoke(team="T0BBB")
    lines = [result.line() for result in await run_checks(settings, redis) if result.part.startswith("Slack")]
    assert lines == [
        "✓ Slack: OAuth installs of app 1111.2222: 2 installation(s)",
        "✓ Slack workspace T0AAA (Workspace T0AAA): bot roombot, every scope granted",
        "✗ Slack workspace T0BBB (Workspace T0BBB): its token is refused (token_revoked): someone there removed the app; "
        "it can be installed again from /slack/install",
    ]


async def test_check_names_a_wrong_client_secret(meet: FakeMeet, slack: FakeSlack, redis: aioredis.Redis) -> None:
    settings = oauth_settings(meet, slack, slack_client_secret="not-the-secret")
    [slack_line] = [result for result in await run_checks(settings, redis) if result.part == "Slack"]
    assert not slack_line.ok and "bad_client_secret" in slack_line.says and "SLACK_CLIENT_SECRET" in slack_line.says
    assert "not-the-secret" not in slack_line.line()


async def test_oauth_installs_need_an_encryption_key(meet: FakeMeet, slack: FakeSlack, redis: aioredis.Redis) -> None:
    settings = oauth_settings(meet, slack).model_copy(update={"token_encryption_key": None})
    with pytest.raises(ConfigError, match="TOKEN_ENCRYPTION_KEY"):
        settings.require_for("serve")
    [slack_line] = [result for result in await run_checks(settings, redis) if result.part == "Slack"]
    assert not slack_line.ok and "TOKEN_ENCRYPTION_KEY" in slack_line.says


async def test_a_bot_token_beside_oauth_variables_in_the_environment_stays_one_workspace(
        monkeypatch: pytest.MonkeyPatch, settings, redis: aioredis.Redis, slack: FakeSlack, alice: str) -> None:
    """Bolt reads SLACK_CLIENT_ID and SLACK_CLIENT_SECRET from the environment by itself: without
    care, the bot token is ignored and every request is refused as "not installed"."""
    monkeypatch.setenv("SLACK_CLIENT_ID", "1111.2222")
    monkeypatch.setenv("SLACK_CLIENT_SECRET", "fake-client-secret")
    async for bot in start_bot(settings, redis, slack):
        assert bot.runtime.app.oauth_flow is None
        reply = await bot.reply("new")
        assert "ready" in reply["text"] and {call.token for call in slack.called("users.info")} == {"xoxb-test-bot-token"}
