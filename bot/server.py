"""The HTTP face of the bot (Slack requests, health, metrics) and its orderly stop.

`serve()` runs uvicorn with Bolt's Starlette adapter, or connects over Socket Mode when an app
token is set (the HTTP server then only answers /healthz and /metrics). On SIGTERM or SIGINT it
stops taking requests, lets running listeners finish, closes the clients and exits 0.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import gc
import logging
import signal

import redis.asyncio as aioredis
import uvicorn
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.check import log_failures
from bot.config import Settings
from bot.inference import ExpiryWatch
from bot.scheduler import run_daily, run_subscriptions
from bot.slack_endpoint import SlackEndpoint
from bot.wiring import Runtime, running
from clients.inference.key_store import KeyStore

log = logging.getLogger(__name__)

DRAIN_SECONDS = 6.0
MAX_CONNECTIONS = 512
HEALTH_TIMEOUT = 1.0


def create_web_app(runtime: Runtime, *, signing_secret: str | None = None) -> Starlette:
    """Health and metrics always; Slack's route when requests come over HTTP (a signing secret)."""

    async def healthz(request: Request) -> Response:
        if await redis_reachable(runtime.redis):
            return JSONResponse({"status": "ok"})
        return JSONResponse({"status": "unavailable", "redis": "unreachable"}, status_code=503)

    async def metrics(request: Request) -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    routes = [Route("/healthz", healthz, methods=["GET"]), Route("/metrics", metrics, methods=["GET"])]
    if signing_secret is not None:
        routes.append(Route("/slack/events", SlackEndpoint(runtime.app, signing_secret, pending=runtime.pending).handle, methods=["POST"]))
    return Starlette(routes=routes)


async def redis_reachable(redis: aioredis.Redis) -> bool:
    try:
        return bool(await asyncio.wait_for(redis.ping(), HEALTH_TIMEOUT))
    except Exception:  # any failure to answer means unhealthy; the reason is Redis's, not ours
        return False


async def serve(settings: Settings) -> None:
    # uvicorn re-raises the stop signal after its own graceful stop; with these handlers in
    # place that re-raise is harmless, so we still drain, close and exit 0.
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda number, frame: None)
    async with running(settings) as runtime:
        # the checks only log: a slow or silent service must not hold back /healthz and the acks
        checks = asyncio.create_task(log_failures(settings, runtime.redis))
        # Everything built so far (modules, clients, the app) lives as long as the process: kept out
        # of the garbage collector's full passes, which otherwise walked it all every few seconds
        # under load and paused the acks (/room list at 100/s: ack p99 49–186 ms before, 22–24 ms after).
        gc.freeze()
        stop = asyncio.Event()
        daily = []
        if runtime.digests is not None:
            daily.append(run_subscriptions(runtime.digests, stop))
            if settings.digest_enabled:
                log.info("operator's digest at %s %s to %s", settings.digest_time, settings.digest_timezone, settings.digest_channel)
        if settings.albert_api_key:
            watch = ExpiryWatch(KeyStore(runtime.redis, settings.albert_api_key, settings.secret_box))
            daily.append(run_daily(watch, dt.time(0, 0), settings.zone, stop))
        schedulers = [asyncio.create_task(loop) for loop in daily]
        secret = settings.slack_signing_secret
        web = create_web_app(runtime, signing_secret=None if settings.socket_mode or secret is None else secret.get_secret_value())
        server = uvicorn.Server(uvicorn.Config(
            web, host=settings.host, port=settings.port, log_config=None, timeout_graceful_shutdown=3, http="httptools",
            # connections and requests beyond this get a 503; idle keep-alive connections close after 5 s
            limit_concurrency=MAX_CONNECTIONS, timeout_keep_alive=5,
        ))
        socket_mode = None
        if settings.slack_app_token is not None:
            from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler  # 0.2 s, for this mode only

            socket_mode = AsyncSocketModeHandler(runtime.app, settings.slack_app_token.get_secret_value())
            await socket_mode.connect_async()  # type: ignore[no-untyped-call]  # left untyped by slack-bolt
            log.info("connected to Slack in Socket Mode")
        try:
            await server.serve()
        finally:
            stop.set()
            checks.cancel()
            if socket_mode is not None:
                await socket_mode.close_async()  # type: ignore[no-untyped-call]  # left untyped by slack-bolt
            await runtime.tasks.drain(DRAIN_SECONDS)
            for scheduler in schedulers:  # a digest in progress is cut; its lock frees the day for a retry
                scheduler.cancel()
            await asyncio.gather(checks, *schedulers, return_exceptions=True)
    log.info("stopped")
