"""Keeps track of the listener tasks Bolt starts after `ack()`, so shutdown can let them finish.

AsyncApp runs each listener as a fire-and-forget task; on SIGTERM those would be cancelled
mid-reply. Bolt calls its listener start handler inside that very task, which is where we
note it down.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from slack_bolt.listener.async_listener_start_handler import AsyncListenerStartHandler
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

log = logging.getLogger(__name__)


class ListenerTasks(AsyncListenerStartHandler):
    def __init__(self) -> None:
        self._running: set[asyncio.Task[object]] = set()

    async def handle(self, request: AsyncBoltRequest, response: BoltResponse | None) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    def start(self, work: Coroutine[Any, Any, None]) -> None:
        """Background work of the app's own (not a listener's), drained at shutdown like them."""
        task = asyncio.get_running_loop().create_task(work)
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def drain(self, timeout: float) -> None:
        await asyncio.sleep(0)  # a task Bolt scheduled just now notes itself down on its first step
        if not self._running:
            return
        log.info("waiting for %d running listener(s)", len(self._running))
        _, pending = await asyncio.wait(set(self._running), timeout=timeout)
        for task in pending:
            task.cancel()
        if pending:
            log.warning("cancelled %d listener(s) still running at shutdown", len(pending))
