"""Each Slack request has an effect once, across processes.

Slack re-delivers an event it thinks was lost (up to 3 retries, the first after 3 s even if the
first delivery is still being handled): each `event_id` acts once. A slash command is never
re-sent by Slack, but a captured one stays validly signed for the 5-minute signature window and
can be replayed: each `trigger_id` (unique per invocation) acts once. Buttons and modals have
their own claims, on what they do.
"""

from __future__ import annotations

from typing import Any

from handlers.on_behalf import workspace_of
from handlers.profiles import read_with_claim
from handlers.services import Services

EVENT_WINDOW = 3600  # Slack's last retry comes about 5 minutes after the first delivery
COMMAND_WINDOW = 600  # a signature is accepted 5 minutes either side of its timestamp


async def first_delivery(services: Services, body: dict[str, Any]) -> bool:
    """Whether this event or command acts (False: a re-delivery or replay, to drop).

    Called by each command and event listener after the ack, not as middleware before it: under
    load the Redis round trip before the ack was the largest part of the bot's ack p99 beyond a
    bare app's (`python -m bench capacity`), and the ack does not depend on it."""
    team = str(body.get("team_id") or body.get("enterprise_id") or "")[:20]  # each workspace's requests are its own
    if body.get("event_id"):
        return await services.once.claim_or_assume("event", team, str(body["event_id"])[:100], ttl=EVENT_WINDOW)
    if body.get("command") and body.get("trigger_id"):
        # the person's cached profile, which every command reads next, comes in the same round trip
        person = workspace_of(body), str(body.get("user_id", ""))
        claimed, read = await services.once.claim_or_assume_reading(
            "command", team, str(body["trigger_id"])[:100], ttl=COMMAND_WINDOW, also=services.profiles.key(*person))
        if claimed and read is not None:
            read_with_claim(*person, services.profiles.read(read[0]))
        return claimed
    return True
