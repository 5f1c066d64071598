"""Runs an ASGI app on 127.0.0.1 in a thread of its own, so fakes outlive each test's event loop."""

from __future__ import annotations

import asyncio
import threading
import time

import uvicorn


class LoopbackServer:
    def __init__(self, app) -> None:
        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.port = 0

    def _run(self) -> None:
        asyncio.run(self._server.serve())

    def start(self) -> "LoopbackServer":
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
