"""What probes and scrapers read — /healthz, /readyz, /metrics — and `Front`, what a port answers
from the moment `serve` listens, before its Slack app is built (bot/serving/listen.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from bot.version import version

HEALTH_TIMEOUT = 1.0
#: Said to a request that waited for an app the process stopped before building.
STOPPING = JSONResponse({"status": "unavailable", "app": "stopping"}, status_code=503, headers={"Retry-After": "1"})


async def redis_reachable(redis: aioredis.Redis) -> bool:
    try:
        return bool(await asyncio.wait_for(redis.ping(), HEALTH_TIMEOUT))
    except Exception:  # any failure to answer means unhealthy; the reason is Redis's, not ours
        return False


def healthz(redis: aioredis.Redis) -> Callable[[Request], Awaitable[Response]]:
    """/healthz: alive while Redis answers, built or not."""

    async def answer(request: Request) -> Response:
        if await redis_reachable(redis):
            return JSONResponse({"status": "ok", "version": version()})
        return JSONResponse({"status": "unavailable", "redis": "unreachable", "version": version()}, status_code=503)

    return answer


def exposition() -> Response:
    """/metrics: every counter registered so far, in Prometheus's text format."""
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


class Front:
    """What uvicorn serves on a port from the moment it listens: until `open()` hands it the built
    app, /healthz, /readyz (503, starting) and /metrics (unless it has a port of its own) are
    answered here and every other request waits; then every request is the app's."""

    def __init__(self, redis: aioredis.Redis, *, metrics: bool) -> None:
        async def starting(request: Request) -> Response:
            return JSONResponse({"status": "unavailable", "app": "starting"}, status_code=503)

        async def metrics_so_far(request: Request) -> Response:
            return exposition()

        routes = [Route("/healthz", healthz(redis), methods=["GET"]), Route("/readyz", starting, methods=["GET"])]
        if metrics:
            routes.append(Route("/metrics", metrics_so_far, methods=["GET"]))
        self.meanwhile = Starlette(routes=routes)
        self.watched = {route.path for route in routes}
        self.app: ASGIApp | None = None
        self.settled = asyncio.Event()

    def open(self, app: ASGIApp) -> None:
        self.app = app
        self.settled.set()

    def close(self) -> None:
        """Stopping before the app was built: what waited for it gets a 503."""
        self.settled.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.app is None and scope.get("path") not in self.watched:
            await self.settled.wait()
        if self.app is not None:
            await self.app(scope, receive, send)
        elif scope.get("path") in self.watched:
            await self.meanwhile(scope, receive, send)
        else:
            await STOPPING(scope, receive, send)
