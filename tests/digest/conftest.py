"""The digest tests' shared pieces: the operator's settings pointed at the fakes, digest jobs made
as separate bot processes would have them, and a bot taking `/digest` in channels."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator

import httpx
import pytest
from pydantic import SecretStr
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.server import create_web_app
from bot.slack_app import build_app, configure_slack_client
from clients.dossiers.service import DossierService
from clients.rooms.service import RoomService
from handlers.digest.job import DigestJob
from tests.conftest import Bot, instant_policy, make_digest_job
from tests.digest.commands import make_job
from tests.fakes.ds import FakeDS
from tests.fakes.slack import FakeSlack
from tests.slack_requests import SIGNING_SECRET

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
def channel_settings(settings: Settings, ds: FakeDS) -> Settings:
    """Digests that channels subscribe to (no operator's digest), in English, at 09:00 in Paris."""
    return settings.model_copy(update={"ds_api_url": ds.url, "ds_api_token": SecretStr(ds.token), "default_language": "en",
                                       "digest_time": dt.time(9, 0), "digest_timezone": "Europe/Paris"})


@pytest.fixture
async def digest_bot(channel_settings: Settings, redis, slack: FakeSlack, ds: FakeDS, alice) -> AsyncIterator[Bot]:
    job, service = make_job(channel_settings, redis, ds)
    assert channel_settings.meet_api_url and channel_settings.meet_client_id and channel_settings.meet_client_secret
    rooms = RoomService(str(channel_settings.meet_api_url), channel_settings.meet_client_id, channel_settings.meet_client_secret,
                        policy=instant_policy())
    runtime = build_app(channel_settings, redis, rooms, digests=job)
    transport = httpx.ASGITransport(app=create_web_app(runtime, signing_secret=SIGNING_SECRET))
    async with httpx.AsyncClient(transport=transport, base_url="http://bot") as http:
        yield Bot(runtime, http, slack)
        await runtime.tasks.drain(10)
    await runtime.aclose()
    await rooms.aclose()
    await service.aclose()


@pytest.fixture
def people(slack: FakeSlack) -> dict[str, str]:
    """Slack users by role: Mallory works on no démarche; Bob instructs démarche 101's Paris group."""
    slack.add_user("U0MAL", "mallory@example.gouv.fr", locale="en-US")
    slack.add_user("U0BOB", "Bob.Durand@Example.gouv.fr", locale="en-US")
    return {"mallory": "U0MAL", "bob": "U0BOB"}
