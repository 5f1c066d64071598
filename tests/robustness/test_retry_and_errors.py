"""The retry policy and the error-body reader every outside-service client goes through."""

from __future__ import annotations

import email.utils

import httpx
import pytest

from clients.errors import describe_error, field_errors
from clients.retry import RetryPolicy, parse_duration


class Clock:
    """An injected clock whose sleep moves time, so waits are checked without waiting."""

    def __init__(self) -> None:
        self.now = 1_000.0
        self.slept: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def policy(self, **overrides) -> RetryPolicy:
        return RetryPolicy(sleep=self.sleep, clock=lambda: self.now, wall_clock=lambda: self.now,
                           jitter=lambda: 1.0, **overrides)


def answers(*replies):
    """An attempt function that gives each reply in turn (a Response, or an exception to raise)."""
    calls: list[object] = []

    async def attempt() -> httpx.Response:
        reply = replies[len(calls)]
        calls.append(reply)
        if isinstance(reply, Exception):
            raise reply
        return reply

    return attempt, calls


def response(status: int, headers: dict | None = None, **kwargs) -> httpx.Response:
    return httpx.Response(status, headers=headers, request=httpx.Request("GET", "http://service/"), **kwargs)


async def test_429_waits_retry_after_seconds_then_succeeds_even_for_a_create():
    clock = Clock()
    attempt, _calls = answers(response(429, {"Retry-After": "7"}), response(201))
    result = await clock.policy().send("svc", attempt, idempotent=False)
    assert result.status_code == 201 and clock.slept == [7.0]


async def test_429_retry_after_as_http_date_and_ratelimit_reset_durations():
    clock = Clock()
    date = email.utils.formatdate(clock.now + 30, usegmt=True)
    attempt, _ = answers(response(429, {"Retry-After": date}), response(429, {"x-ratelimit-reset-requests": "1m30s"}), response(200))
    await clock.policy(budget=200).send("svc", attempt, idempotent=True)
    assert clock.slept == [pytest.approx(30, abs=1), 90.0]


async def test_5xx_is_retried_with_backoff_only_when_idempotent():
    clock = Clock()
    attempt, calls = answers(response(502), response(503), response(200))
    assert (await clock.policy().send("svc", attempt, idempotent=True)).status_code == 200
    assert clock.slept == [0.25, 0.5]  # full jitter at its maximum: base · 2^(n-1)

    attempt, calls = answers(response(500), response(201))
    assert (await clock.policy().send("svc", attempt, idempotent=False)).status_code == 500
    assert len(calls) == 1


async def test_503_honours_retry_after():
    clock = Clock()
    attempt, _ = answers(response(503, {"Retry-After": "10"}), response(200))
    await clock.policy(budget=30).send("svc", attempt, idempotent=True)
    assert clock.slept == [10.0]


async def test_other_4xx_are_never_retried():
    for status in (400, 401, 403, 404, 409, 422):
        clock = Clock()
        attempt, calls = answers(response(status), response(200))
        assert (await clock.policy().send("svc", attempt, idempotent=True)).status_code == status
        assert len(calls) == 1


async def test_connection_errors_are_retried_even_for_a_create_but_read_errors_are_not():
    request = httpx.Request("POST", "http://service/rooms/")
    clock = Clock()
    attempt, calls = answers(httpx.ConnectError("refused", request=request), response(201))
    assert (await clock.policy().send("svc", attempt, idempotent=False)).status_code == 201

    attempt, calls = answers(httpx.ReadTimeout("slow", request=request), response(201))
    with pytest.raises(httpx.ReadTimeout):
        await clock.policy().send("svc", attempt, idempotent=False)
    assert len(calls) == 1


async def test_attempts_and_time_budget_bound_every_call():
    clock = Clock()
    attempt, calls = answers(*[response(503)] * 5)
    assert (await clock.policy(attempts=3).send("svc", attempt, idempotent=True)).status_code == 503
    assert len(calls) == 3

    clock = Clock()
    attempt, calls = answers(response(429, {"Retry-After": "120"}), response(200))
    assert (await clock.policy(budget=10).send("svc", attempt, idempotent=True)).status_code == 429
    assert clock.slept == []  # waiting 120 s would overrun the 10 s budget: give the 429 back now


def test_durations():
    assert [parse_duration(v) for v in ("45s", "1m30s", "1h2m3s", "250ms", "3", "soon")] == [45, 90, 3723, 0.25, 3, None]


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (404, {"detail": "User not found."}, "User not found."),
        (403, {"error": "This application is not authorized for this email domain."},
         "This application is not authorized for this email domain."),
        (400, {"access_level": ["Public rooms are disabled for the external API."]},
         "access_level: Public rooms are disabled for the external API."),
        (400, {"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]},
         "Invalid data. Expected a dictionary, but got str."),
        (400, {"configuration": [{"type": "extra_forbidden", "loc": ["unsupported_flag"], "msg": "Extra inputs are not permitted"}]},
         "configuration: unsupported_flag: Extra inputs are not permitted"),
        (422, {"detail": [{"type": "missing", "loc": ["body", "messages"], "msg": "Field required"}]}, "messages: Field required"),
        (500, {"status_code": 500, "detail": "boom", "headers": {}}, "boom"),
        (400, {"detail": {"reason": "odd"}}, "reason: odd"),
        (400, {"detail": 42}, "42"),
    ],
)
def test_error_bodies_of_every_shape_read_as_one_sentence(status, body, expected):
    assert describe_error(response(status, json=body)) == expected


def test_non_json_bodies_give_the_status_never_html():
    assert describe_error(response(504, text="<html><center>nginx/1.27.0</center></html>")) == "504 Gateway Timeout"
    assert describe_error(response(400, text="")) == "400 Bad Request"


def test_field_errors_only_for_field_keyed_bodies():
    assert field_errors(response(400, json={"access_level": ["bad"]})) == {"access_level": "bad"}
    assert field_errors(response(400, json={"error": "Scope should be a valid email address."})) == {}


async def test_a_daily_quota_429_is_not_retried_but_a_per_minute_one_is():
    clock = Clock()
    attempt, calls = answers(response(429, json={"detail": "10 requests per day exceeded (remaining: 0)."}), response(200))
    assert (await clock.policy().send("svc", attempt, idempotent=True)).status_code == 429
    assert len(calls) == 1 and clock.slept == []

    attempt, calls = answers(response(429, json={"detail": "3 requests per minute exceeded (remaining: 0)."}), response(200))
    assert (await clock.policy().send("svc", attempt, idempotent=True)).status_code == 200
    assert clock.slept == [0.25]  # no Retry-After, no rate headers: backoff


async def test_the_budget_also_cuts_an_attempt_that_hangs():
    import asyncio

    async def hangs() -> httpx.Response:
        await asyncio.sleep(30)
        return response(200)

    started = asyncio.get_running_loop().time()
    with pytest.raises(httpx.ReadTimeout, match="budget"):
        await RetryPolicy(budget=0.2).send("svc", hangs, idempotent=True)
    assert asyncio.get_running_loop().time() - started < 1.0
