"""One read at a time per key, shared by whoever asks while it runs.

A burst asks the same thing at once — a démarche's members on a burst of clicks, the application's
missing-scope mark on a burst of commands — and each ask would cost a request or a round trip.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SharedReads(Generic[K, V]):
    def __init__(self) -> None:
        self._reading: dict[K, asyncio.Future[V]] = {}

    async def read(self, key: K, read: Callable[[], Awaitable[V]]) -> V:
        """`read()`'s answer, from the read of `key` already running if there is one."""
        reading = self._reading.get(key)
        if reading is None:
            reading = self._reading[key] = asyncio.ensure_future(read())
            reading.add_done_callback(functools.partial(self._done, key))
        return await asyncio.shield(reading)  # one asker given up does not give up the others' read

    def _done(self, key: K, done: asyncio.Future[V]) -> None:
        self._reading.pop(key, None)
        if not done.cancelled():
            done.exception()  # retrieved here too: every asker may have given up before it came
