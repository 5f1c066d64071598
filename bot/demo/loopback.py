"""Runs an ASGI app on 127.0.0.1 in a thread of its own, so fakes outlive each test's event loop."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import uvicorn


class _RealTimeLoop(asyncio.SelectorEventLoop):
    """An event loop that keeps real time while a test freezes the clock with freezegun.

    freezegun patches `time.monotonic` for every thread; a fake's loop that read the frozen value
    would schedule its timers at an instant that never comes and hang. A default argument is out
    of freezegun's reach.
    """

    def time(self, _monotonic: Callable[[], float] = time.monotonic) -> float:
        return _monotonic()


class LoopbackServer:
    def __init__(self, app: Callable[[Any, Any, Any], Awaitable[None]]) -> None:  # an ASGI app
        self._server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off", timeout_keep_alive=1)
        )
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.port = 0

    def _run(self) -> None:
        with asyncio.Runner(loop_factory=_RealTimeLoop) as runner:
            runner.run(self._server.serve())

    def start(self) -> LoopbackServer:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("loopback server did not start")
            time.sleep(0.005)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(5)
