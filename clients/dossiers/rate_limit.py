"""Spaces requests so one token never exceeds its per-minute allowance.

The dossier service counts requests per token in fixed windows aligned on the minute. Evenly
spaced requests (one every 60/N seconds) can never put more than N in any window, whatever the
alignment, unlike a bucket that could spend a full burst at the end of one window and refill
into the next.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


class RateLimiter:
    def __init__(
        self,
        per_minute: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.interval = 60.0 / per_minute * 1.02  # 2 % slack: clocks and windows are not ours
        self._clock = clock
        self._sleep = sleep
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            await self._sleep(start - now)
