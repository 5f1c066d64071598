"""Helpers of the `/digest` tests: who Alice is on the dossier service, a digest job as a bot
process makes it, and `/digest` typed by someone."""

from __future__ import annotations

from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.demo.ds import FakeDS
from bot.serving.slack_app import configure_slack_client
from clients.dossiers.service import DossierService
from handlers.digest.job import DigestJob
from tests.conftest import Bot, make_digest_job, text_of
from tests.slack_requests import command_body

#: Alice's e-mail as the dossier service lists her (the Slack profile has it in other case)
ALICE = "alice.martin@example.gouv.fr"


def make_job(settings: Settings, redis, ds: FakeDS) -> tuple[DigestJob, DossierService]:
    return make_digest_job(settings, redis, ds, configure_slack_client(AsyncWebClient(token="xoxb-test-bot-token"), settings))


async def digest(bot: Bot, text: str, channel: str = "C0TEAM", user: str = "U0ALICE", channel_name: str = "general") -> str:
    """Runs `/digest <text>` in `channel` as `user` and returns the last private answer."""
    return text_of(await bot.last_reply(command_body(text, user, bot.slack.response_url(), command="/digest", channel=channel,
                                                     channel_name=channel_name)))
