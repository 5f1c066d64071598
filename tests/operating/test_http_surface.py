"""The routes Slack and operators use: signed /slack/events, /healthz, /readyz, /metrics."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import redis.asyncio as aioredis

from bot.demo.meet import FakeMeet
from bot.serving.server import create_web_app
from bot.serving.slack_app import build_app
from clients.rooms.service import RoomService
from tests.conftest import VERSION, text_of
from tests.fakes.slack import FakeSlack
from tests.slack_requests import command_body, signed_headers


async def test_bad_signature_is_refused_and_nothing_happens(bot, slack: FakeSlack, meet: FakeMeet, alice):
    body = command_body("new", "U0ALICE", slack.response_url())
    forged = await bot.post(body, signed_headers(body, secret="not-the-signing-secret"))
    stale = await bot.post(body, signed_headers(body, timestamp=int(time.time()) - 301))
    tampered = await bot.post(body.replace("new", "list"), signed_headers(body))
    assert [r.status_code for r in (forged, stale, tampered)] == [401, 401, 401]
    await bot.runtime.tasks.drain(1)
    assert slack.called("users.info") == [] and slack.responses == []
    assert meet.log == []


async def test_healthz_and_readyz_report_redis(bot, settings, meet: FakeMeet, tmp_path: Path):
    """Over HTTP, Slack comes to the bot: ready is alive with its Redis (Socket Mode adds Slack:
    tests/operating/test_socket_mode.py); liveness also says which version runs."""
    healthy = await bot.http.get("/healthz")
    assert healthy.status_code == 200 and healthy.json() == {"status": "ok", "version": VERSION}
    ready = await bot.http.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"status": "ok"}

    unreachable = aioredis.Redis.from_url(f"unix://{tmp_path}/no-redis.sock")
    rooms = RoomService(str(settings.meet_api_url), settings.meet_client_id, settings.meet_client_secret)
    runtime = build_app(settings, unreachable, rooms)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=create_web_app(runtime)), base_url="http://bot") as http:
        sick = [await http.get(route) for route in ("/healthz", "/readyz")]
    await runtime.aclose()
    await rooms.aclose()
    assert all(answer.status_code == 503 and answer.json()["redis"] == "unreachable" for answer in sick)


def _sample(metrics: str, name: str, **labels: str) -> float:
    wanted = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in metrics.splitlines():
        if line.startswith(f"{name}{{") and line.split("}")[0][len(name) + 1 :] == wanted:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def test_metrics_count_commands_by_outcome_and_upstream_calls_by_status(bot, meet: FakeMeet, alice):
    before = (await bot.http.get("/metrics")).text
    await bot.reply("new")
    await bot.reply("new public")
    after = await bot.http.get("/metrics")
    assert after.headers["content-type"].startswith("text/plain")
    delta = lambda name, **labels: _sample(after.text, name, **labels) - _sample(before, name, **labels)  # noqa: E731
    assert delta("roombot_commands_total", command="new", outcome="ok") == 1
    assert delta("roombot_commands_total", command="new", outcome="user_error") == 1
    assert delta("roombot_upstream_requests_total", service="rooms", status="201") == 1
    assert delta("roombot_upstream_requests_total", service="rooms", status="400") == 1
    assert delta("roombot_upstream_requests_total", service="rooms", status="200") == 1  # one token request
    assert delta("roombot_upstream_request_seconds_count", service="rooms") == 3  # each attempt timed


async def test_unknown_routes_and_methods(bot):
    assert (await bot.http.get("/slack/events")).status_code == 405
    assert (await bot.http.get("/nothing-here")).status_code == 404


async def test_slacks_route_answers_post_only_at_its_path_and_every_other_request_as_before(bot, slack: FakeSlack, alice):
    """POST /slack/events goes straight to its endpoint (bot.serving.server.WebApp): what Starlette's
    router answered to any other method or path stays its answer."""
    body, other = (command_body("list", "U0ALICE", slack.response_url()) for _ in range(2))
    signed = signed_headers(body)
    asked = {
        "POST /slack/events": await bot.http.post("/slack/events", content=body, headers=signed),
        "POST /slack/events?retry=1": await bot.http.post("/slack/events?retry=1", content=other, headers=signed_headers(other)),
        "POST unsigned": await bot.http.post("/slack/events", content=body),
        "GET": await bot.http.get("/slack/events", headers=signed),
        "HEAD": await bot.http.head("/slack/events", headers=signed),
        "PUT": await bot.http.put("/slack/events", content=body, headers=signed),
        "POST /slack/events/": await bot.http.post("/slack/events/", content=body, headers=signed),
        "POST /slack/event": await bot.http.post("/slack/event", content=body, headers=signed),
        "POST /healthz": await bot.http.post("/healthz", content=body, headers=signed),
    }
    assert {request: answer.status_code for request, answer in asked.items()} == {
        "POST /slack/events": 200, "POST /slack/events?retry=1": 200, "POST unsigned": 401, "GET": 405, "HEAD": 405,
        "PUT": 405, "POST /slack/events/": 307, "POST /slack/event": 404, "POST /healthz": 405}
    assert asked["GET"].headers["allow"] == "POST" and asked["POST /slack/events/"].headers["location"] == "http://bot/slack/events"
    assert asked["POST unsigned"].text == "bad or stale signature"
    await slack.wait_responses(2, timeout=12)  # both signed ones listed the rooms, each once


async def test_secrets_stay_out_of_replies_and_redis_keys(bot, meet: FakeMeet, redis, alice):
    reply = await bot.reply("new")
    token = next(iter(meet.tokens))
    assert token not in text_of(reply) and meet.app_config.client_secret not in text_of(reply)
    names = " ".join(await redis.keys("*"))
    assert token not in names and alice not in names.lower() and "example.gouv.fr" not in names.lower()


async def test_an_app_rate_limited_callback_gets_200_and_one_warning(bot, caplog):
    import json
    import logging

    from tests.slack_requests import signed_headers

    body = json.dumps({"token": "legacy", "type": "app_rate_limited", "team_id": "T0TEAM", "minute_rate_limited": 1518467820,
                       "api_app_id": "A0APP"})
    with caplog.at_level(logging.WARNING):
        response = await bot.post(body, signed_headers(body))
    assert response.status_code == 200
    [warning] = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert "Slack is dropping this app's events for the minute starting at 1518467820" in warning
