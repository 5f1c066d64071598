"""Each Slack request has an effect once, across processes.

Slack re-delivers an event it thinks was lost (up to 3 retries, the first after 3 s even if the
first delivery is still being handled): each `event_id` acts once. A slash command is never
re-sent by Slack, but a captured one stays validly signed for the 5-minute signature window and
can be replayed: each `trigger_id` (unique per invocation) acts once. Buttons and modals have
their own claims, on what they do.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from slack_bolt.async_app import AsyncApp
from slack_bolt.response import BoltResponse

from handlers.services import Services

EVENT_WINDOW = 3600  # Slack's last retry comes about 5 minutes after the first delivery
COMMAND_WINDOW = 600  # a signature is accepted 5 minutes either side of its timestamp


def register(app: AsyncApp, services: Services) -> None:
    async def drop_repeated_requests(body: dict, next: Callable[[], Awaitable[None]]) -> BoltResponse | None:
        if body.get("event_id"):
            claim = ("event", str(body["event_id"]), EVENT_WINDOW)
        elif body.get("command") and body.get("trigger_id"):
            claim = ("command", str(body["trigger_id"])[:100], COMMAND_WINDOW)
        else:
            await next()
            return None
        kind, name, window = claim
        if not await services.once.claim_or_assume(kind, name, ttl=window):
            return BoltResponse(status=200, body="")
        await next()
        return None

    app.middleware(drop_repeated_requests)
