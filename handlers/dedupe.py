"""Slack re-delivers an event it thinks was lost (up to 3 retries, the first after 3 s even if
the first delivery is still being handled): each `event_id` has an effect once, across processes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from redis.exceptions import RedisError
from slack_bolt.async_app import AsyncApp
from slack_bolt.response import BoltResponse

from clients.storage import degraded
from handlers.services import Services

EVENT_WINDOW = 3600  # Slack's last retry comes about 5 minutes after the first delivery


def register(app: AsyncApp, services: Services) -> None:
    async def drop_redelivered_events(body: dict, next: Callable[[], Awaitable[None]]) -> BoltResponse | None:
        event_id = body.get("event_id")
        try:
            first = not event_id or await services.once.claim("event", str(event_id), ttl=EVENT_WINDOW)
        except RedisError as error:  # our events (Home, previews) are safe to handle twice
            degraded("event dedupe", error)
            first = True
        if not first:
            return BoltResponse(status=200, body="")
        await next()
        return None

    app.middleware(drop_redelivered_events)
