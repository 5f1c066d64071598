"""`serve`'s start: the port bound and answering before the Slack app is built.

A bare Bolt app listens once Bolt is imported; the bot has three times as much to load (the
configuration, the clients, Bolt, every feature's listeners), and a process that answers nothing
meanwhile looks dead to a probe. So `serve` opens Redis, listens, and only then loads the rest, in
a thread: `/healthz` (alive: Redis answers) and `/metrics` answer from the first moment, `/readyz`
says 503 until the app is built, and Slack's requests (and the install pages) wait for it —
their answer comes late by the build's fraction of a second, never refused. This module,
bot/serving/probes.py, stop_signals.py and processes.py are all of serving that
`python -m bot serve` loads before it listens.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any

import uvicorn
from starlette.types import ASGIApp

from bot.config import ConfigError, Settings
from bot.redis_server import open_redis
from bot.serving.probes import Front
from bot.serving.processes import HELPER
from bot.serving.stop_signals import StopSignals

if TYPE_CHECKING:
    from bot.serving.server import StartupChecks

log = logging.getLogger(__name__)

#: connections uvicorn serves at once; past them it answers 503 (Slack retries)
MAX_CONNECTIONS = 512


class Serving(uvicorn.Server):
    """Slack's server; `listening` is set once it takes requests."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.listening = asyncio.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        host = f"[{self.config.host}]" if ":" in self.config.host else self.config.host
        log.info("listening on %s:%d", host, self.config.port)
        self.listening.set()


class Beside(uvicorn.Server):
    """A second server in the process (METRICS_PORT): the main one takes SIGTERM and SIGINT and
    stops this one after it; were both to take them, only the last would hear."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def server_config(app: ASGIApp, settings: Settings, *, limit: int) -> uvicorn.Config:
    return uvicorn.Config(
        app, host=settings.host, port=settings.port, log_config=None, timeout_graceful_shutdown=3, http="httptools",
        ws="none", lifespan="off",  # neither is used; uvicorn would load websockets' protocol
        # connections and requests beyond this get a 503; idle keep-alive connections close after 5 s
        limit_concurrency=limit, timeout_keep_alive=5,
    )


def listening_socket(host: str, port: int, *, shared: bool, setting: str = "PORT") -> socket.socket:
    """The HTTP port (or METRICS_PORT); `shared` so that the other processes of SERVE_PROCESSES bind it too (only
    then: a second, unrelated `serve` on a busy port must fail, not share it)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if shared:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port} ({error.strerror}): set HOST and {setting} to a free address") from None
    sock.listen(2048)
    return sock


def _metrics_socket(settings: Settings, shared: bool) -> socket.socket | None:
    """METRICS_PORT's socket, when /metrics is served apart."""
    if settings.metrics_port is None:
        return None
    return listening_socket(settings.host, settings.metrics_port, shared=shared, setting="METRICS_PORT")


def _serve_built() -> Callable[..., Coroutine[Any, Any, int]]:
    """What serving Slack needs beyond this module (Bolt, the clients, every listener: 0.3 s of
    imports), loaded in a thread while the event loop answers /healthz."""
    from bot.serving.server import serve_built

    return serve_built


async def serve(settings: Settings, startup_checks: StartupChecks, signals: StopSignals) -> int:
    """Serves until SIGTERM or SIGINT (exit code 0), or until SERVE_PROCESSES's helpers fail too
    often (1: the supervisor starts it afresh). `signals` took them when the command started."""
    if signals.asked:  # while the modules loaded: nothing started yet
        return 0
    helper = os.environ.get(HELPER) == "1"
    shared = helper or settings.serve_processes > 1
    sock = listening_socket(settings.host, settings.port, shared=shared)
    metrics_sock = _metrics_socket(settings, shared)
    async with open_redis(settings) as redis:
        front = Front(redis, metrics=metrics_sock is None)
        server = Serving(server_config(front, settings, limit=MAX_CONNECTIONS))
        signals.hand_to(server)
        listening = asyncio.create_task(server.serve(sockets=[sock]))
        apart, beside, watcher = None, None, None
        if metrics_sock is not None:
            apart = Front(redis, metrics=True)
            beside = Beside(server_config(apart, settings, limit=64))
            watcher = asyncio.create_task(beside.serve(sockets=[metrics_sock]))
        try:
            # the app's modules load once uvicorn has loaded its own: no module is imported by two threads at once
            waiting = asyncio.create_task(server.listening.wait())
            await asyncio.wait([listening, waiting], return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
            if not (server.should_exit or listening.done()):  # not stopped meanwhile (a signal), nor failed
                serve_built = await asyncio.to_thread(_serve_built)
                if not (server.should_exit or listening.done()):
                    return await serve_built(settings, startup_checks, redis, helper=helper, front=front, apart=apart,
                                             listening=listening)
            await listening  # stopped (SIGTERM) before the app was built, or failed to start
            return 0
        finally:
            front.close()
            server.should_exit = True
            await asyncio.gather(listening, return_exceptions=True)
            if beside is not None and watcher is not None and apart is not None:
                apart.close()
                beside.should_exit = True
                await asyncio.gather(watcher, return_exceptions=True)

