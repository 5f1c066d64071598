"""Shared fixtures: a real Redis, loopback fakes of Slack and the room service, the bot itself."""

from __future__ import annotations

import logging
import os
import tomllib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from starlette.types import ASGIApp

from bot.config import Settings
from bot.demo.loopback import LoopbackServer
from bot.demo.meet import FakeMeet
from bot.redis_server import EmbeddedRedis, connect
from bot.serving.server import create_web_app
from bot.serving.slack_app import Runtime, build_app
from clients.retry import RetryPolicy
from clients.rooms.service import RoomService
from tests.fakes.slack import FakeSlack
from tests.slack_requests import (
    SIGNING_SECRET,
    action_body,
    command_body,
    signed_headers,
)

#: Copies of the outside world's published files (schemas, manifest schema, OpenAPI): tests/data/README.md
ROOT = Path(__file__).resolve().parents[1]  # the repository
DATA = ROOT / "tests" / "data"
#: The version pyproject.toml gives the package: what --version, check, /healthz and serve say
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


class Swappable:
    """An ASGI app whose target each test replaces, so one loopback server serves fresh state."""

    def __init__(self) -> None:
        self.target: ASGIApp | None = None

    async def __call__(self, scope, receive, send) -> None:
        assert self.target is not None, "the test set no app behind this server"
        await self.target(scope, receive, send)


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """For tests that configure logging as the bot does: their handler writes to a stream that is
    gone after the test, and every later log line would print an error with its whole stack."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    yield
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])


@pytest.fixture(scope="session", autouse=True)
def nothing_left_running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The suite leaves no process behind: once every other fixture is gone, no process runs in,
    or keeps its data under, the session's folders (the bots the tests start, their embedded Redis
    servers) — waited for a while, since a server saves its data before it exits."""
    base = tmp_path_factory.getbasetemp().resolve()
    yield
    import time

    from tests.processes import processes_under

    deadline = time.monotonic() + 30
    while (left := processes_under(base)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == [], f"processes left running by the tests: {left}"


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`REDIS_URL` when set (it is flushed: point it at a disposable server), else an embedded one."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server.url
    server.stop()


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = connect(redis_url)
    await client.flushdb()
    yield client
    await client.aclose()


def _loopback() -> Iterator[tuple[LoopbackServer, Swappable]]:
    app = Swappable()
    server = LoopbackServer(app).start()
    yield server, app
    server.stop()


meet_server = pytest.fixture(scope="session", name="meet_server")(_loopback)
slack_server = pytest.fixture(scope="session", name="slack_server")(_loopback)
ds_server = pytest.fixture(scope="session", name="ds_server")(_loopback)
albert_server = pytest.fixture(scope="session", name="albert_server")(_loopback)


@pytest.fixture
def albert(albert_server):
    """The inference service fake, fresh for each test."""
    from bot.demo.albert import FakeAlbert

    server, app = albert_server
    fake = FakeAlbert()
    fake.url = server.url
    app.target = fake.asgi()
    return fake


@pytest.fixture(scope="session")
def ds_schema():
    from bot.demo.ds import SCHEMA, load_schema

    return load_schema(SCHEMA)


@pytest.fixture
def ds(ds_server, ds_schema):
    """The dossier service fake, fresh for each test, behind one loopback server."""
    from bot.demo.ds import FakeDS

    server, app = ds_server
    fake = FakeDS(ds_schema)
    fake.url = f"{server.url}/api/v2/graphql"
    app.target = fake.asgi()
    return fake


@pytest.fixture
def meet(meet_server) -> FakeMeet:
    server, app = meet_server
    fake = FakeMeet()
    fake.base = server.url
    app.target = fake.asgi()
    return fake


#: Refusals that say the bot itself sent Slack something wrong (not that Slack's state refused it).
MALFORMED = {"invalid_arguments", "invalid_blocks", "unknown_method"}


@pytest.fixture
def slack(slack_server) -> Iterator[FakeSlack]:
    """Slack's fake, fresh for each test; the test fails if the bot sent it a call Slack would
    refuse as malformed, whatever else the test checks."""
    server, app = slack_server
    fake = FakeSlack(base=server.url)
    app.target = fake.asgi()
    yield fake
    malformed = [(method, refusal) for method, refusal in fake.refusals if refusal.get("error") in MALFORMED]
    assert malformed == [], f"the bot sent Slack calls it would refuse: {malformed}"


def bot_env(meet: FakeMeet, slack: FakeSlack) -> dict[str, str]:
    """The environment that points a bot at the fakes, as an operator would write it."""
    return {
        "SLACK_BOT_TOKEN": "xoxb-test-bot-token",
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": f"{slack.base}/api/",
        "MEET_API_URL": f"{meet.base}/external-api/v1.0",
        "MEET_CLIENT_ID": meet.app_config.client_id,
        "MEET_CLIENT_SECRET": meet.app_config.client_secret,
    }


@pytest.fixture
def settings(meet: FakeMeet, slack: FakeSlack) -> Settings:
    values: dict[str, Any] = {name.lower(): value for name, value in bot_env(meet, slack).items()}
    return Settings(_env_file=None, **values)


async def eventually(condition: Any, what: str = "the condition", timeout: float = 30.0) -> None:
    """Waits until `condition()` (a value or an awaitable's) holds, failing after `timeout` seconds:
    a condition, never a guessed delay."""
    import asyncio
    import inspect
    import time

    deadline = time.monotonic() + timeout
    while True:
        held = condition()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        await asyncio.sleep(0.02)


def make_digest_job(settings: Settings, redis: aioredis.Redis, ds: Any, slack: Any, inference: Any = None, *,
                    shared_limiter: bool = False, limiter: Any = None) -> tuple[Any, Any]:
    """A digest job as the bot builds one, over the dossier fake, without waits (unless `limiter`
    says otherwise): (job, its dossier client, to close)."""
    from pydantic import SecretStr

    from bot.wiring import digest_config
    from clients.dossiers.access import MEMBERS_TTL, DemarcheAccess
    from clients.dossiers.accounts import DossierAccount
    from clients.dossiers.counts import DossierCounter
    from clients.dossiers.digest_store import DigestStore
    from clients.dossiers.rate_limit import RateLimiter
    from clients.dossiers.service import DossierService
    from clients.json_cache import JsonCache
    from handlers.digest.job import DigestJob

    limiter = limiter or (RateLimiter(1_000_000, redis=redis, name="test-token") if shared_limiter else RateLimiter(1_000_000))
    service = DossierService(ds.url, SecretStr(ds.token), limiter=limiter, policy=instant_policy())
    access = DemarcheAccess(service, JsonCache(redis, "ds-members", MEMBERS_TTL))
    from clients.dossiers.previews import PREVIEW_TTL, DossierPreviews

    counter = DossierCounter(service, redis, now=lambda: ds.now, late_days=settings.digest_late_days)
    previews = DossierPreviews(service, JsonCache(redis, "ds-dossier", PREVIEW_TTL), access)
    from bot.serving.workspace_clients import Workspaces

    workspaces = Workspaces(slack) if slack is not None else None
    from clients.dossiers.desk import DossierDesk

    desk = DossierDesk(service, policy=instant_policy(), refusal_floor=0.0)  # the floor has its own test (tests/desk)
    account = DossierAccount(counter, access, previews, desk, "test-token")
    job = DigestJob(digest_config(settings), DigestStore(redis), account, workspaces, inference)
    return job, service


def instant_policy() -> RetryPolicy:
    async def no_wait(seconds: float) -> None:
        return None

    return RetryPolicy(attempts=3, budget=8.0, sleep=no_wait)


@dataclass
class Bot:
    """The bot as Slack sees it: signed HTTP requests to /slack/events."""

    runtime: Runtime
    http: httpx.AsyncClient
    slack: FakeSlack

    async def post(self, body: str, headers: dict[str, str] | None = None) -> httpx.Response:
        return await self.http.post("/slack/events", content=body, headers=headers or signed_headers(body))

    async def last_reply(self, body: str) -> dict:
        """Posts a signed request, waits for the work it started, and returns the last reply to a response_url."""
        before = len(self.slack.responses)
        answer = await self.post(body)
        assert answer.status_code == 200
        await self.runtime.tasks.drain(20)
        replies = self.slack.responses[before:]
        assert replies, "no answer"
        return replies[-1]

    async def command(self, text: str, user: str = "U0ALICE") -> httpx.Response:
        return await self.post(command_body(text, user, self.slack.response_url()))

    async def click(self, action_id: str, value: str, user: str = "U0ALICE") -> httpx.Response:
        return await self.post(action_body(action_id, value, user, self.slack.response_url("action")))

    async def click_reply(self, action_id: str, value: str, user: str = "U0ALICE") -> dict:
        """Clicks a button and returns the private answer the person sees."""
        before = len(self.slack.responses)
        response = await self.click(action_id, value, user)
        assert response.status_code == 200, response.text
        return (await self.slack.wait_responses(before + 1, timeout=12))[before]

    async def reply(self, text: str, user: str = "U0ALICE") -> dict:
        """Runs `/room <text>` and returns the private reply the person sees."""
        before = len(self.slack.responses)
        response = await self.command(text, user)
        assert response.status_code == 200, response.text
        replies = await self.slack.wait_responses(before + 1, timeout=12)
        return replies[before]


async def start_bot(settings: Settings, redis: aioredis.Redis, slack: FakeSlack, *, timeout: float = 5.0,
                    digests: Any = None) -> AsyncIterator[Bot]:
    assert settings.meet_api_url and settings.meet_client_id and settings.meet_client_secret
    rooms = RoomService(str(settings.meet_api_url), settings.meet_client_id, settings.meet_client_secret,
                        policy=instant_policy(), timeout=timeout)
    runtime = build_app(settings, redis, rooms, digests=digests)
    if digests is not None:
        digests.workspaces = runtime.workspaces
    transport = httpx.ASGITransport(app=create_web_app(runtime, signing_secret=SIGNING_SECRET))
    async with httpx.AsyncClient(transport=transport, base_url="http://bot") as http:
        yield Bot(runtime, http, slack)
        await runtime.tasks.drain(5)
    await runtime.aclose()
    await rooms.aclose()


@pytest.fixture
async def bot(settings: Settings, redis: aioredis.Redis, slack: FakeSlack) -> AsyncIterator[Bot]:
    async for running_bot in start_bot(settings, redis, slack):
        yield running_bot


@pytest.fixture
def alice(meet: FakeMeet, slack: FakeSlack) -> str:
    """A person with a Slack profile and a room-service account under the same e-mail."""
    slack.add_user("U0ALICE", "Alice.Martin@Example.gouv.fr", locale="en-US")
    meet.add_user("alice.martin@example.gouv.fr")
    return "alice.martin@example.gouv.fr"


def text_of(reply: dict) -> str:
    """All words of a reply as a person reads them: top-level text and every block's texts."""
    parts = [reply.get("text", "")]

    def walk(node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "text" and isinstance(value, str):
                    parts.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(reply.get("blocks", []))
    return "\n".join(parts)


def readable_pin(room: dict) -> str:
    """A 10-digit PIN as people read it in the bot's messages: `0123 4567 89`."""
    pin = room["telephony"]["pin_code"]
    return f"{pin[:4]} {pin[4:8]} {pin[8:]}"


@pytest.fixture
def channel_settings(settings: Settings, ds: Any) -> Settings:
    """Digests that channels subscribe to (no operator's digest), in English, at 09:00 in Paris."""
    import datetime as dt

    from pydantic import SecretStr

    return settings.model_copy(update={"ds_api_url": ds.url, "ds_api_token": SecretStr(ds.token), "default_language": "en",
                                       "digest_time": dt.time(9, 0), "digest_timezone": "Europe/Paris"})


@pytest.fixture
async def digest_bot(channel_settings: Settings, redis: aioredis.Redis, slack: FakeSlack, ds: Any, alice: str) -> AsyncIterator[Bot]:
    """A bot answering `/digest`, `/dossier` and their buttons, over the dossier fake."""
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.serving.slack_app import configure_slack_client

    job, service = make_digest_job(channel_settings, redis, ds, configure_slack_client(AsyncWebClient(token="xoxb-test-bot-token"),
                                                                                        channel_settings))
    async for bot in start_bot(channel_settings, redis, slack, digests=job):
        yield bot
    await service.aclose()
