"""A short id per Slack request, on every log line written while serving it (listener tasks
inherit it: Bolt starts them from the request's own context)."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable

from slack_bolt.async_app import AsyncApp
from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from clients.telemetry import REQUEST_ID


class TagRequest(AsyncMiddleware):
    """A middleware object, not a function: Bolt builds every argument a function could ask for
    before calling it, for each request (this module, `responses` and `ack_first` alike)."""

    async def async_process(self, *, req: AsyncBoltRequest, resp: BoltResponse,
                            next: Callable[[], Awaitable[BoltResponse]]) -> BoltResponse | None:
        REQUEST_ID.set(secrets.token_hex(6))
        await next()
        return None


def register(app: AsyncApp) -> None:
    app.middleware(TagRequest())
