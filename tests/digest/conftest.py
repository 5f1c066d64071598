"""The digest tests' shared pieces: the operator's settings pointed at the fakes, digest jobs made
as separate bot processes would have them, and a bot taking `/digest` in channels."""

from __future__ import annotations

import pytest
from pydantic import SecretStr
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.demo.ds import FakeDS
from bot.serving.slack_app import configure_slack_client
from clients.dossiers.service import DossierService
from handlers.digest.job import DigestJob
from tests.conftest import make_digest_job
from tests.fakes.slack import FakeSlack

CHANNEL = "C0DIGEST"


@pytest.fixture
def digest_settings(settings: Settings, ds: FakeDS) -> Settings:
    return settings.model_copy(update={
        "ds_api_url": ds.url, "ds_api_token": SecretStr(ds.token), "digest_channel": CHANNEL,
        "digest_demarches": [101, 102], "default_language": "en",
    })


@pytest.fixture
async def jobs(digest_settings: Settings, redis, ds: FakeDS):
    """Makes digest jobs as separate bot processes would have them (own clients, one Redis)."""
    made: list[DossierService] = []

    def make() -> DigestJob:
        slack = configure_slack_client(AsyncWebClient(token="xoxb-test-bot-token"), digest_settings)
        job, service = make_digest_job(digest_settings, redis, ds, slack)
        made.append(service)
        return job

    yield make
    for service in made:
        await service.aclose()


@pytest.fixture
def people(slack: FakeSlack) -> dict[str, str]:
    """Slack users by role: Mallory works on no démarche; Bob instructs démarche 101's Paris group."""
    slack.add_user("U0MAL", "mallory@example.gouv.fr", locale="en-US")
    slack.add_user("U0BOB", "Bob.Durand@Example.gouv.fr", locale="en-US")
    return {"mallory": "U0MAL", "bob": "U0BOB"}
