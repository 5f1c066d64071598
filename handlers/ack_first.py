"""Acks before work: once a listener has acked, its work waits while other Slack requests wait
for theirs.

Bolt answers Slack only when it next sees the ack (it looks every 10 ms), and the work that
follows an ack — Redis, the room service, the reply — shares the event loop with every request
still waiting for its ack. In a burst of 50 commands, that work made the last acks wait behind it
(ack p99 2.5–3× a bare Bolt app's, `python -m bench rooms`). Work waits here at most
`MOST_SECONDS`, so a steady stream of requests delays it a little and never starves it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

MOST_SECONDS = 0.2


class PendingAcks:
    """How many Slack requests over HTTP still wait for their answer (counted by the endpoint)."""

    def __init__(self) -> None:
        self._count = 0
        self._none = asyncio.Event()
        self._none.set()

    def started(self) -> None:
        self._count += 1
        self._none.clear()

    def answered(self) -> None:
        self._count -= 1
        if self._count == 0:
            self._none.set()

    async def none_left(self) -> None:
        """At once when none waits; else until none does, or `MOST_SECONDS`. Bounded in the caller's
        task (`asyncio.timeout`): `wait_for` made a Task of every command's wait."""
        if self._none.is_set():
            return
        with contextlib.suppress(TimeoutError):  # waited long enough: work goes on
            async with asyncio.timeout(MOST_SECONDS):
                await self._none.wait()


class AckThenYield(AsyncAck):
    """Bolt's ack; then the listener goes on once no other request waits for its own."""

    def __init__(self, pending: PendingAcks) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # left untyped by slack-bolt
        self._pending = pending

    async def __call__(self, *args: Any, **kwargs: Any) -> BoltResponse:
        response = await super().__call__(*args, **kwargs)
        await self._pending.none_left()
        return response


class AcksThenYield(AsyncMiddleware):
    """Gives each request the `ack` that yields."""

    def __init__(self, pending: PendingAcks) -> None:
        self._pending = pending

    async def async_process(self, *, req: AsyncBoltRequest, resp: BoltResponse,
                            next: Callable[[], Awaitable[BoltResponse]]) -> BoltResponse | None:
        req.context["ack"] = AckThenYield(self._pending)
        await next()
        return None


def register(app: AsyncApp, pending: PendingAcks) -> None:
    app.middleware(AcksThenYield(pending))
