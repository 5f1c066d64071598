"""The one retry policy every outside-service client sends its requests through.

Rules (from the services' real behaviour, see the reference notes):
- 429: wait `Retry-After` (seconds or HTTP date), else the `x-ratelimit-reset-*` durations or
  the `RateLimit-Reset` instant, else exponential backoff with full jitter; a request rejected
  with 429 was not processed, so it is retried even when it is not idempotent — except for a
  daily quota, which no wait within a call can outlast: that 429 is returned to be reported;
- 503: `Retry-After` when present, else backoff; 500/502/504 and read errors: backoff —
  only for idempotent requests, since the server may have acted already;
- connection errors (the request never reached the server): backoff, always;
- anything else, including every other 4xx: returned to the caller at once.
Each call is bounded by a number of attempts and a total time budget (which also cuts an attempt
still waiting). A 429 is the exception to the count: the server asked us to slow down, not said
it failed, so it is retried, backing off, as long as the budget lasts (at most `RATE_LIMITED_TRIES`
times) — a per-minute limit without reset information is outwaited rather than given up on.
The clock, the sleep and the randomness are injectable so tests run instantly.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import httpx
from prometheus_client import Counter, Histogram

from clients.errors import Answered
from clients.telemetry import UPSTREAM_CALLS, UPSTREAM_SECONDS

log = logging.getLogger("roombot.upstream")

RETRY_ALWAYS = frozenset({429})
RATE_LIMITED_TRIES = 12
RETRY_IF_IDEMPOTENT = frozenset({500, 502, 503, 504})
# Errors raised before a single byte of the request could have been processed.
NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)

A = TypeVar("A", bound=Answered)

_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$")


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 3
    budget: float = 10.0
    base_delay: float = 0.25
    max_delay: float = 8.0
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    clock: Callable[[], float] = time.monotonic
    wall_clock: Callable[[], float] = time.time
    jitter: Callable[[], float] = field(default=random.random)

    async def send(
        self,
        service: str,
        attempt: Callable[[], Awaitable[A]],
        *,
        idempotent: bool,
    ) -> A:
        """Run `attempt` until it gives a final answer; transport errors re-raise when retries run out."""
        deadline = self.clock() + self.budget
        for number in range(1, max(self.attempts, RATE_LIMITED_TRIES) + 1):
            started = self.clock()
            try:
                # the budget bounds the attempt in flight too, not only whether to start another (in
                # this task: `wait_for` made a Task of each attempt, 2 % of a /dossier's CPU)
                async with asyncio.timeout(max(deadline - started, 0.001)):
                    response = await attempt()
            except TimeoutError:
                _record(service, "timeout", self.clock() - started)
                raise httpx.ReadTimeout(f"no answer within the {self.budget:.0f} s budget") from None
            except httpx.TransportError as error:
                _record(service, _error_label(error), self.clock() - started)
                retriable = isinstance(error, NOT_SENT) or idempotent
                delay = self.backoff(number)
                if not retriable or number >= self.attempts or self.clock() + delay > deadline:
                    raise
            else:
                _record(service, str(response.status_code), self.clock() - started)
                if not self._retriable(response, idempotent):
                    return response
                delay = self.delay_for(response, number)
                last = number >= (RATE_LIMITED_TRIES if response.status_code in RETRY_ALWAYS else self.attempts)
                if last or self.clock() + delay > deadline:
                    return response
                await response.aclose()
            await self.sleep(delay)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _retriable(self, response: Answered, idempotent: bool) -> bool:
        status = response.status_code
        if status in RETRY_ALWAYS:
            return not daily_quota_exhausted(response)
        return status in RETRY_IF_IDEMPOTENT and idempotent

    def delay_for(self, response: Answered, attempt: int) -> float:
        """What the server asked for when it said, else backoff."""
        asked = retry_after(response, self.wall_clock())
        if asked is None and response.status_code == 429:
            asked = ratelimit_reset(response, self.wall_clock())
        return asked if asked is not None else self.backoff(attempt)

    def backoff(self, attempt: int) -> float:
        """Exponential backoff with full jitter (AWS architecture blog's 'full jitter')."""
        return float(self.jitter() * min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))


def daily_quota_exhausted(response: Answered) -> bool:
    """A 429 for a daily quota (`… requests per day exceeded`, `… tokens per day …`) lasts until
    tomorrow: waiting within one call's budget cannot help, so it is reported, not retried."""
    if response.status_code != 429:
        return False
    text = response.text.lower()
    return any(words in text for words in ("per day", "par jour", "daily", "quotidien"))


def retry_after(response: Answered, now: float) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)


def ratelimit_reset(response: Answered, now: float) -> float | None:
    """When the server says its limit resets.

    `x-ratelimit-reset-*` hold durations (`"45s"`, `"1m30s"`; the inference service);
    `RateLimit-Reset` holds the absolute Unix time the window ends (the dossier service), or a
    delta on servers that follow the IETF draft — a small value cannot be an epoch.
    """
    waits = []
    for name, value in response.headers.items():
        name = name.lower()
        if name.startswith("x-ratelimit-reset") and (seconds := parse_duration(value)) is not None:
            waits.append(seconds)
        elif name == "ratelimit-reset" and (seconds := parse_duration(value)) is not None:
            waits.append(max(0.0, seconds - now) if seconds > 1_000_000_000 else seconds)
    return max(waits) if waits else None


def parse_duration(text: str) -> float | None:
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    match = _DURATION.match(text)
    if not match or not any(match.groups()):
        return None
    hours, minutes, seconds, millis = (float(part) if part else 0.0 for part in match.groups())
    return hours * 3600 + minutes * 60 + seconds + millis / 1000


def _error_label(error: httpx.TransportError) -> str:
    if isinstance(error, httpx.TimeoutException):
        return "timeout"
    return "connect_error" if isinstance(error, httpx.ConnectError) else "transport_error"


#: each (service, status)'s series, made once: `.labels()` checks its arguments and takes a lock each time
_SERIES: dict[tuple[str, str], tuple[Counter, Histogram]] = {}


def _record(service: str, status: str, seconds: float) -> None:
    series = _SERIES.get((service, status))
    if series is None:
        series = _SERIES[service, status] = (UPSTREAM_CALLS.labels(service=service, status=status),
                                             UPSTREAM_SECONDS.labels(service=service))
    series[0].inc()
    series[1].observe(max(seconds, 0.0))
    duration_ms = round(max(seconds, 0.0) * 1000, 1)
    log.info("%s answered %s in %.0f ms", service, status, duration_ms,
             extra={"service": service, "status": status, "duration_ms": duration_ms})
