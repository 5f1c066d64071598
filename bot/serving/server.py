"""The HTTP face of the bot (Slack requests, health, metrics) and its orderly stop.

`serve()` runs uvicorn with Bolt's Starlette adapter, or connects over Socket Mode when an app
token is set (the HTTP server then only answers /healthz and /metrics). On SIGTERM or SIGINT it
stops taking requests, lets running listeners finish, closes the clients and exits 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import gc
import logging
import os
import signal
import socket
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis
import uvicorn
from prometheus_client import CONTENT_TYPE_LATEST, Gauge, generate_latest
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.config import ConfigError, Settings
from bot.inference import ExpiryWatch
from bot.serving.install_pages import install_routes
from bot.serving.processes import HELPER, Helper, beat, start_helper, stop_helpers, supervise
from bot.serving.scheduler import run_daily, run_due, run_subscriptions
from bot.serving.slack_app import Runtime, running
from bot.serving.slack_endpoint import SlackEndpoint
from bot.version import version
from clients.inference.key_store import KeyStore

if TYPE_CHECKING:
    from bot.serving.socket_mode import SocketMode

log = logging.getLogger(__name__)

DRAIN_SECONDS = 6.0
#: Set in the environment of the serve processes the first one starts (SERVE_PROCESSES).
MAX_CONNECTIONS = 512
HEALTH_TIMEOUT = 1.0
#: What `serve` runs once it listens (the operator's checks, logged): given by the command line, which stands
#: above both serving and the operator's commands, so that serving imports none of those commands.
StartupChecks = Callable[[Settings, aioredis.Redis], Awaitable[None]]
INSTALLATIONS = Gauge("roombot_slack_installations", "Workspaces and organisations the app is installed in (1 with SLACK_BOT_TOKEN).")


def create_web_app(runtime: Runtime, *, signing_secret: str | None = None, metrics_apart: bool = False,
                   socket_mode: SocketMode | None = None) -> Starlette:
    """Health and readiness always, metrics unless they have a port of their own (METRICS_PORT: a
    Slack-facing ingress then exposes nothing internal); Slack's route when requests come over HTTP
    (a signing secret)."""
    routes = [route for route in watch_routes(runtime, socket_mode) if not (metrics_apart and route.path == "/metrics")]
    if signing_secret is not None:
        routes.append(Route("/slack/events", SlackEndpoint(runtime.app, signing_secret, pending=runtime.pending).handle, methods=["POST"]))
    if runtime.app.oauth_flow is not None:
        routes += install_routes(runtime.app, runtime.default_language)
    return Starlette(routes=routes)


def watch_routes(runtime: Runtime, socket_mode: SocketMode | None = None) -> list[Route]:
    """/healthz (while Redis answers), /readyz (and, in Socket Mode, while Slack was reached lately:
    a process cut off from Slack is alive but serves no one) and /metrics: what probes and scrapers
    read."""

    async def healthz(request: Request) -> Response:
        if await redis_reachable(runtime.redis):
            return JSONResponse({"status": "ok", "version": version()})
        return JSONResponse({"status": "unavailable", "redis": "unreachable", "version": version()}, status_code=503)

    async def readyz(request: Request) -> Response:
        if not await redis_reachable(runtime.redis):
            return JSONResponse({"status": "unavailable", "redis": "unreachable"}, status_code=503)
        unready = socket_mode.unready() if socket_mode is not None else None
        if unready is not None:
            return JSONResponse({"status": "unavailable", "slack": unready}, status_code=503)
        return JSONResponse({"status": "ok"})

    async def metrics(request: Request) -> Response:
        with contextlib.suppress(RedisError, TimeoutError):
            INSTALLATIONS.set(await asyncio.wait_for(runtime.workspaces.count(), HEALTH_TIMEOUT))
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return [Route("/healthz", healthz, methods=["GET"]), Route("/readyz", readyz, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"])]


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


async def when_listening(server: Serving, settings: Settings, redis: aioredis.Redis, checks: StartupChecks) -> None:
    await server.listening.wait()
    await checks(settings, redis)


class Beside(uvicorn.Server):
    """A second server in the process (METRICS_PORT): the main one takes SIGTERM and SIGINT and
    stops this one after it; were both to take them, only the last would hear."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def redis_reachable(redis: aioredis.Redis) -> bool:
    try:
        return bool(await asyncio.wait_for(redis.ping(), HEALTH_TIMEOUT))
    except Exception:  # any failure to answer means unhealthy; the reason is Redis's, not ours
        return False


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


def _start_helpers(settings: Settings, helper: bool) -> list[Helper]:
    """SERVE_PROCESSES less one helpers, started by the first process only."""
    return [] if helper else [start_helper() for _ in range(settings.serve_processes - 1)]


def _metrics_socket(settings: Settings, shared: bool) -> socket.socket | None:
    """METRICS_PORT's socket, when /metrics is served apart."""
    if settings.metrics_port is None:
        return None
    return listening_socket(settings.host, settings.metrics_port, shared=shared, setting="METRICS_PORT")


def _socket_mode(settings: Settings, runtime: Runtime) -> SocketMode | None:
    """Slack's connection when SLACK_APP_TOKEN is set (events come through it, not through POST)."""
    if settings.slack_app_token is None:
        return None
    from bot.serving.socket_mode import SocketMode  # 0.2 s of imports, for this mode only

    return SocketMode(runtime.app, settings.slack_app_token.get_secret_value(), api_url=settings.slack_api_url)


def _signing_secret(settings: Settings) -> str | None:
    """What POST /slack/events checks signatures with; none in Socket Mode, where nothing is posted."""
    secret = settings.slack_signing_secret
    return None if settings.socket_mode or secret is None else secret.get_secret_value()


def _loops(settings: Settings, runtime: Runtime, helper: bool, stop: asyncio.Event) -> list[Coroutine[Any, Any, None]]:
    """The loops a process runs beside serving: the digests, the inference key's expiry watch, the
    weekly meetings (the first process only), the desk's watch rounds, a helper's heartbeat."""
    loops = []
    if runtime.digests is not None:
        loops.append(run_subscriptions(runtime.digests, stop))
        if settings.digest_enabled:
            log.info("operator's digest at %s %s to %s", settings.digest_time, settings.digest_timezone, settings.digest_channel)
    if settings.albert_api_key:
        watch = ExpiryWatch(KeyStore(runtime.redis, settings.albert_api_key, settings.secret_box))
        loops.append(run_daily(watch, dt.time(0, 0), settings.zone, stop))
    if not helper:  # the first process carries weekly meetings to their next week
        loops.append(run_due(runtime.weekly.due, stop))
    if runtime.watching is not None:  # one round each DS_WATCH_SECONDS across processes (a Redis lease)
        loops.append(run_due(runtime.watching.due, stop, poll=min(30.0, settings.ds_watch_seconds / 2)))
    if runtime.daily is not None:  # each person's daily DM, once a day across processes (a lease each)
        loops.append(run_due(runtime.daily.due, stop))
    if runtime.rosters is not None:  # each team space's roster once a week, by one process (a claim a space)
        loops.append(run_due(runtime.rosters.due, stop, poll=600.0))
    if helper:
        loops.append(beat())
    return loops


async def serve(settings: Settings, startup_checks: StartupChecks) -> int:
    """Serves until SIGTERM or SIGINT (exit code 0), or until SERVE_PROCESSES's helpers fail too
    often (1: the supervisor starts it afresh)."""
    # uvicorn re-raises the stop signal after its own graceful stop; with these handlers in
    # place that re-raise is harmless, so we still drain, close and exit 0.
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda number, frame: None)
    helper = os.environ.get(HELPER) == "1"
    shared = helper or settings.serve_processes > 1
    sock = listening_socket(settings.host, settings.port, shared=shared)
    metrics_sock = _metrics_socket(settings, shared)
    async with running(settings) as runtime:
        helpers = _start_helpers(settings, helper)
        # Everything built so far (modules, clients, the app) lives as long as the process: kept out
        # of the garbage collector's full passes, which otherwise walked it all every few seconds
        # under load and paused the acks (/room list at 100/s: ack p99 49–186 ms before, 22–24 ms after).
        gc.freeze()
        # A young generation of 10,000 objects, not 700: a command's short-lived objects were
        # collected 0.10–0.18 ms a command, 0.02–0.10 ms now; RSS the same (docs/benchmarks.md)
        gc.set_threshold(10_000, *gc.get_threshold()[1:])
        gc.enable()  # off while the modules loaded (bot/__main__.py)
        stop = asyncio.Event()
        schedulers = [asyncio.create_task(loop) for loop in _loops(settings, runtime, helper, stop)]
        supervising = asyncio.create_task(supervise(helpers, stop)) if helpers else None
        socket_mode = _socket_mode(settings, runtime)
        web = create_web_app(runtime, signing_secret=_signing_secret(settings), metrics_apart=metrics_sock is not None,
                             socket_mode=socket_mode)
        server = Serving(uvicorn.Config(
            web, host=settings.host, port=settings.port, log_config=None, timeout_graceful_shutdown=3, http="httptools",
            ws="none", lifespan="off",  # neither is used; uvicorn would load websockets' protocol
            # connections and requests beyond this get a 503; idle keep-alive connections close after 5 s
            limit_concurrency=MAX_CONNECTIONS, timeout_keep_alive=5,
        ))
        # the checks only log: a slow or silent service must not hold back /healthz and the acks, so
        # they start once the server listens (their clients and TLS context cost CPU); the first
        # process logs them for all
        checks = asyncio.create_task(asyncio.sleep(0) if helper else when_listening(server, settings, runtime.redis, startup_checks))
        watcher = None
        if metrics_sock is not None:
            apart = Beside(uvicorn.Config(Starlette(routes=watch_routes(runtime, socket_mode)), log_config=None, http="httptools",
                                          ws="none", lifespan="off", limit_concurrency=64, timeout_keep_alive=5))
            watcher = asyncio.create_task(apart.serve(sockets=[metrics_sock]))
        # Socket Mode connects beside serving: /healthz, /metrics and a clean stop on SIGTERM never
        # wait for Slack, which may be unreachable for a while
        connecting = asyncio.create_task(socket_mode.keep()) if socket_mode is not None else None
        try:
            await server.serve(sockets=[sock])
        finally:
            stop.set()
            if watcher is not None:
                apart.should_exit = True
                await asyncio.gather(watcher, return_exceptions=True)
            checks.cancel()
            if connecting is not None:
                connecting.cancel()
                await asyncio.gather(connecting, return_exceptions=True)
            await stop_helpers(helpers, DRAIN_SECONDS)
            if socket_mode is not None:
                await socket_mode.close()
            await runtime.tasks.drain(DRAIN_SECONDS)
            for scheduler in schedulers:  # a digest in progress is cut; its lock frees the day for a retry
                scheduler.cancel()
            await asyncio.gather(checks, *schedulers, return_exceptions=True)
    failed = supervising is not None and await supervising
    log.info("stopped")
    return 1 if failed else 0
