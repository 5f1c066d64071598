"""Acks before work: once a listener has acked, its work waits while other Slack requests wait
for theirs.

Bolt answers Slack only when it next sees the ack (it looks every 10 ms), and the work that
follows an ack — Redis, the room service, the reply — shares the event loop with every request
still waiting for its ack. In a burst of 50 commands, that work made the last acks wait behind it
(ack p99 2.5–3× a bare Bolt app's, `python -m bench rooms`). Work waits here at most
`MOST_SECONDS`, so a steady stream of requests delays it a little and never starves it.

And an ack wakes Bolt at once (`AckWakeups`): its runner looks for the ack with
`asyncio.sleep(0.01)` in the request's own task, and since the listener's task starts only once the
runner first sleeps, every ack waited for that look — 10 ms at least, 13 ms at the median of
`python -m bench twin`'s 100 commands a second.

Neither wait starts a timer before one turn of the event loop has passed: the listener's task, started
just before Bolt's first look, mostly acks in that turn, and the request left pending after the ack
is mostly the listener's own, answered in the next. That spared each command two timers and a turn
of the loop: 26 µs of CPU from the socket to the ack (docs/benchmarks.md).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.listener import asyncio_runner
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
        await asyncio.sleep(0)  # the usual one left is this listener's own request, answered in this turn
        if self._none.is_set():
            return
        with contextlib.suppress(TimeoutError):  # waited long enough: work goes on
            async with asyncio.timeout(MOST_SECONDS):
                await self._none.wait()


class AckWakeups:
    """Sleeps that an ack cuts short: the one Bolt's runner takes, in a request's task, between two
    looks at whether the listener has acked (it still looks again at least every 10 ms, and gives up
    after its 3 s as before)."""

    def __init__(self) -> None:
        self._sleeping: dict[asyncio.Task[Any], asyncio.Future[None]] = {}

    async def sleep(self, delay: float, result: Any = None) -> Any:
        task = asyncio.current_task()
        if task is None:
            return await asyncio.sleep(delay, result)
        loop = asyncio.get_running_loop()
        woken: asyncio.Future[None] = loop.create_future()
        self._sleeping[task] = woken
        try:
            await asyncio.sleep(0)  # the listener's task, started just before the first look, mostly acks in this turn
            if not woken.done():
                timer = loop.call_later(delay, _wake, woken)
                try:
                    await woken
                finally:
                    timer.cancel()
        finally:
            self._sleeping.pop(task, None)
        return result

    def wake(self, task: asyncio.Task[Any] | None) -> None:
        """`task`'s sleep ends now, if it sleeps."""
        woken = self._sleeping.get(task) if task is not None else None
        if woken is not None:
            _wake(woken)


def _wake(woken: asyncio.Future[None]) -> None:
    if not woken.done():
        woken.set_result(None)


WAKEUPS = AckWakeups()


class _RunnersAsyncio:
    """What Bolt's listener runner sees as `asyncio`: the module, with a sleep an ack cuts short."""

    sleep = staticmethod(WAKEUPS.sleep)

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)


class AckThenYield(AsyncAck):
    """Bolt's ack, which wakes the request's task (`dispatch`) looking for it; then the listener
    goes on once no other request waits for its own."""

    def __init__(self, pending: PendingAcks, dispatch: asyncio.Task[Any] | None = None) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # left untyped by slack-bolt
        self._pending = pending
        self._dispatch = dispatch

    async def __call__(self, *args: Any, **kwargs: Any) -> BoltResponse:
        response = await super().__call__(*args, **kwargs)
        WAKEUPS.wake(self._dispatch)
        await self._pending.none_left()
        return response


class AcksThenYield(AsyncMiddleware):
    """Gives each request the `ack` that yields."""

    def __init__(self, pending: PendingAcks) -> None:
        self._pending = pending

    async def async_process(self, *, req: AsyncBoltRequest, resp: BoltResponse,
                            next: Callable[[], Awaitable[BoltResponse]]) -> BoltResponse | None:
        req.context["ack"] = AckThenYield(self._pending, asyncio.current_task())  # Bolt's runner looks for it in this task
        await next()
        return None


def register(app: AsyncApp, pending: PendingAcks) -> None:
    asyncio_runner.asyncio = _RunnersAsyncio()  # type: ignore[assignment]  # the module's one sleep is its look for the ack
    app.middleware(AcksThenYield(pending))
