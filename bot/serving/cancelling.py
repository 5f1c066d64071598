"""Cancelling tasks at shutdown so that they end, even those that lose the cancellation.

On Python 3.11, `asyncio.wait_for` returns the result instead of raising when what it waited for
finished in the same turn of the loop as the cancel (CPython gh-86296, fixed in 3.12); redis-py
sends every command through it when the client has a socket timeout. A task cancelled at that
moment goes on — `serve`'s start-up checks, stopped while they asked Redis, went on to ask a
silent Slack for 30 s more, and the stop waited for them. Hence: cancel, and cancel again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

log = logging.getLogger(__name__)

#: a task still running this long after its cancel is cancelled again
AGAIN_SECONDS = 0.5


async def cancel_and_wait(tasks: Iterable[asyncio.Task[Any] | None], within: float, what: str) -> None:
    """Cancels the tasks and waits until they end, cancelling again any that went on, for at
    most `within` seconds; what is left then is named in the log and left behind."""
    pending = {task for task in tasks if task is not None and not task.done()}
    deadline = asyncio.get_running_loop().time() + within
    while pending:
        left = deadline - asyncio.get_running_loop().time()
        if left <= 0:
            log.warning("%d %s still running at shutdown, left behind", len(pending), what)
            return
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=min(AGAIN_SECONDS, left))
