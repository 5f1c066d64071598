"""Requests that come while one is on its way go together, in the next round trip (group commit).

A Redis round trip costs the bot some 60 µs of CPU whatever it carries (the pool, the write, the
wake-ups, the parse): under a burst, one then serves every caller that came meanwhile. A caller
alone goes at once, as it would without this, and waits for nobody.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

Q = TypeVar("Q")
A = TypeVar("A")


class Batched(Generic[Q, A]):
    """`send(requests)` answers each of `requests`, in order, in one round trip."""

    def __init__(self, send: Callable[[list[Q]], Awaitable[list[A]]]) -> None:
        self._send = send
        self._next: list[tuple[Q, asyncio.Future[A]]] | None = None  # None: nothing on its way
        self._sending: set[asyncio.Task[None]] = set()

    async def __call__(self, request: Q) -> A:
        if self._next is not None:  # one on its way: go with the next
            future: asyncio.Future[A] = asyncio.get_running_loop().create_future()
            self._next.append((request, future))
            return await future
        self._next = []
        try:
            return (await self._send([request]))[0]
        finally:
            self._send_next()

    def _send_next(self) -> None:
        """What came meanwhile goes now, in a task of its own: a caller that gives up (cancelled)
        does not take the others' answers with it."""
        batch = [(request, future) for request, future in self._next or () if not future.done()]
        self._next = None  # a caller that gave up while it waited sends nothing (a ticket, a claim)
        if batch:
            self._next = []
            task = asyncio.ensure_future(self._send_for(batch))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _send_for(self, batch: list[tuple[Q, asyncio.Future[A]]]) -> None:
        try:
            answers = await self._send([request for request, _ in batch])
        except asyncio.CancelledError:  # the loop is closing: so are the callers
            waiting, self._next = [*batch, *(self._next or [])], None
            for _, future in waiting:
                future.cancel()
            raise
        except Exception as error:  # each caller handles it as its own (RedisError: degraded)
            for _, future in batch:
                if not future.done():
                    future.set_exception(error)
        else:
            for (_, future), answer in zip(batch, answers, strict=True):
                if not future.done():  # a caller gone: its answer is dropped
                    future.set_result(answer)
        self._send_next()
