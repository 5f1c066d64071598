"""A short id per Slack request, on every log line written while serving it (listener tasks
inherit it: Bolt starts them from the request's own context)."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable

from slack_bolt.async_app import AsyncApp

from clients.telemetry import REQUEST_ID


def register(app: AsyncApp) -> None:
    async def tag_request(next: Callable[[], Awaitable[None]]) -> None:
        REQUEST_ID.set(secrets.token_hex(6))
        await next()

    app.middleware(tag_request)
