"""The HTTP face of the bot once its app is built (Slack requests, health, metrics) and its orderly stop.

`bot/serving/listen.py` listens first and imports this module in a thread; `serve_built()` then
builds the app over Bolt's Starlette adapter, or connects over Socket Mode when an app token is set
(the HTTP server then only answers /healthz, /readyz and /metrics), and hands it to the port. On
SIGTERM or SIGINT the port stops taking requests, running listeners finish, the clients close.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import functools
import gc
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis
from prometheus_client import Gauge
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from bot import operator_advice as advice
from bot.config import Settings
from bot.inference import ExpiryWatch
from bot.serving.cancelling import cancel_and_wait
from bot.serving.install_pages import install_routes
from bot.serving.probes import HEALTH_TIMEOUT, Front, exposition, healthz, redis_reachable
from bot.serving.processes import Helper, beat, start_helper, stop_helpers, supervise
from bot.serving.scheduler import run_daily, run_due, run_subscriptions
from bot.serving.slack_app import Runtime, running_on
from bot.serving.slack_endpoint import SlackEndpoint
from clients.inference.key_store import KeyStore

if TYPE_CHECKING:
    from bot.serving.socket_mode import SocketMode

log = logging.getLogger(__name__)

DRAIN_SECONDS = 6.0
#: What `serve` runs once its app is built (the operator's checks, logged): given by the command line, which stands
#: above both serving and the operator's commands, so that serving imports none of those commands.
StartupChecks = Callable[[Settings, aioredis.Redis], Coroutine[Any, Any, None]]
INSTALLATIONS = Gauge("roombot_slack_installations", "Workspaces and organisations the app is installed in (1 with SLACK_BOT_TOKEN).")


SLACK_PATH = "/slack/events"


class WebApp:
    """Starlette's routes, but for Slack's requests — POST /slack/events, nearly every request the
    process takes — which go straight to their endpoint: Starlette's two exception layers, its
    router and its route cost 7 µs of CPU a request (in-process, 20,000 each). The endpoint answers
    every refusal itself; an error it let escape is still Starlette's 500, and any other method or
    path Starlette's (405, 404)."""

    def __init__(self, routes: ASGIApp, slack: SlackEndpoint | None) -> None:
        self._routes = routes
        self._slack = ServerErrorMiddleware(slack) if slack is not None else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._slack is not None and scope.get("path") == SLACK_PATH and scope.get("method") == "POST":
            await self._slack(scope, receive, send)
        else:
            await self._routes(scope, receive, send)


def create_web_app(runtime: Runtime, *, signing_secret: str | None = None, metrics_apart: bool = False,
                   socket_mode: SocketMode | None = None) -> WebApp:
    """Health and readiness always, metrics unless they have a port of their own (METRICS_PORT: a
    Slack-facing ingress then exposes nothing internal); Slack's route when requests come over HTTP
    (a signing secret)."""
    routes = [route for route in watch_routes(runtime, socket_mode) if not (metrics_apart and route.path == "/metrics")]
    slack = SlackEndpoint(runtime.app, signing_secret, pending=runtime.pending) if signing_secret is not None else None
    if slack is not None:  # what another method gets: Starlette's 405
        routes.append(Route(SLACK_PATH, slack.handle, methods=["POST"]))
    if runtime.app.oauth_flow is not None:
        routes += install_routes(runtime.app, runtime.default_language)
    return WebApp(Starlette(routes=routes), slack)


def watch_routes(runtime: Runtime, socket_mode: SocketMode | None = None) -> list[Route]:
    """/healthz (while Redis answers), /readyz (and, in Socket Mode, while Slack was reached lately:
    a process cut off from Slack is alive but serves no one) and /metrics: what probes and scrapers
    read."""

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
        return exposition()

    return [Route("/healthz", healthz(runtime.redis), methods=["GET"]), Route("/readyz", readyz, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"])]


def _start_helpers(settings: Settings, helper: bool) -> list[Helper]:
    """SERVE_PROCESSES less one helpers, started by the first process only."""
    return [] if helper else [start_helper() for _ in range(settings.serve_processes - 1)]


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
    weekly meetings and team rosters (the first process only), the desk's watch rounds and daily
    DMs, a helper's heartbeat."""
    loops = []
    explain = functools.partial(advice.redis_outage, settings=settings)
    if runtime.digests is not None:
        loops.append(run_subscriptions(runtime.digests, stop, explain=explain))
        if settings.digest_enabled:
            log.info("operator's digest at %s %s to %s", settings.digest_time, settings.digest_timezone, settings.digest_channel)
    if settings.albert_api_key:
        watch = ExpiryWatch(KeyStore(runtime.redis, settings.albert_api_key, settings.secret_box))
        loops.append(run_daily(watch, dt.time(0, 0), settings.zone, stop, explain=explain))
    if not helper:  # the first process carries weekly meetings to their next week
        loops.append(run_due(runtime.weekly.due, stop, explain=explain))
    if runtime.watching is not None:  # one round each DS_WATCH_SECONDS across processes (a Redis lease)
        loops.append(run_due(runtime.watching.due, stop, explain=explain, poll=min(30.0, settings.ds_watch_seconds / 2)))
    if runtime.daily is not None:  # each person's daily DM, once a day across processes (a lease each)
        loops.append(run_due(runtime.daily.due, stop, explain=explain))
    if runtime.rosters is not None and not helper:  # each team space's roster once a week (a claim a space)
        loops.append(run_due(runtime.rosters.due, stop, explain=explain, poll=600.0))
    if helper:
        loops.append(beat())
    return loops


async def serve_built(settings: Settings, startup_checks: StartupChecks, redis: aioredis.Redis, *, helper: bool,
                      front: Front, apart: Front | None, listening: asyncio.Future[None]) -> int:
    """Builds the app and hands it to the port (and METRICS_PORT's), runs the loops beside it until
    the server stops (`listening` done: SIGTERM or SIGINT), then drains; 1 when SERVE_PROCESSES's
    helpers failed too often (the supervisor starts it afresh), else 0."""
    async with running_on(settings, redis) as runtime:
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
        front.open(create_web_app(runtime, signing_secret=_signing_secret(settings), metrics_apart=apart is not None,
                                  socket_mode=socket_mode))
        if apart is not None:
            apart.open(Starlette(routes=watch_routes(runtime, socket_mode)))
        # the checks only log: a slow or silent service must not hold back the acks, so they start once
        # the app serves (their clients and TLS context cost CPU); the first process logs them for all
        checks = asyncio.create_task(asyncio.sleep(0) if helper else startup_checks(settings, runtime.redis))
        # Socket Mode connects beside serving: /healthz, /metrics and a clean stop on SIGTERM never
        # wait for Slack, which may be unreachable for a while
        connecting = asyncio.create_task(socket_mode.keep()) if socket_mode is not None else None
        try:
            await listening
        finally:
            stop.set()
            await cancel_and_wait([checks, connecting], DRAIN_SECONDS, "start-up checks or Socket Mode connection")
            await stop_helpers(helpers, DRAIN_SECONDS)
            if socket_mode is not None:
                await socket_mode.close()
            await runtime.tasks.drain(DRAIN_SECONDS)
            # a digest in progress is cut; its lock frees the day for a retry
            await cancel_and_wait(schedulers, DRAIN_SECONDS, "schedules")
    failed = supervising is not None and await supervising
    log.info("stopped")
    return 1 if failed else 0
