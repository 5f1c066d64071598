"""Posts a digest's messages to its channel, each part once, with a fix hint when Slack refuses."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from slack_sdk.errors import SlackApiError

from handlers.blocks import Message
from handlers.core.slack_refusals import CHANNEL_REFUSALS

if TYPE_CHECKING:
    from slack_sdk.web.async_client import AsyncWebClient

log = logging.getLogger(__name__)

PACE = 1.1  # chat.postMessage allows about one message per second per channel

HINTS = {
    "not_in_channel": "invite the bot to the channel (/invite @bot) or give the app the chat:write.public scope",
    "channel_not_found": "check DIGEST_CHANNEL (a channel id like C0123ABCD) and, for a private channel, invite the bot",
    "is_archived": "the channel is archived: unarchive it or choose another DIGEST_CHANNEL",
    "missing_scope": "reinstall the app with the chat:write scope",
    "invalid_auth": "check SLACK_BOT_TOKEN",
}




class DigestNotPosted(Exception):
    """Slack refused the digest; the message says how to fix it."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def permanent(self) -> bool:
        """The channel itself refuses it (not the token, not a passing failure): the subscription is
        paused rather than retried all day."""
        return self.code in CHANNEL_REFUSALS


async def post_parts(
    client: AsyncWebClient,
    channel: str,
    messages: list[Message],
    *,
    already_posted: Callable[[int], Awaitable[bool]],
    mark_posted: Callable[[int], Awaitable[None]],
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> int:
    """Posts the parts not posted yet, in order; returns how many it posted now."""
    posted = 0
    for index, message in enumerate(messages):
        if await already_posted(index):
            continue
        if posted:
            await sleep(PACE)
        try:
            await client.chat_postMessage(channel=channel, unfurl_links=False, **message.payload())
        except SlackApiError as error:
            code = error.response.get("error", "unknown")
            hint = HINTS.get(code, "see https://api.slack.com/methods/chat.postMessage#errors")
            log.error("digest not posted to %s: Slack said %s; fix: %s", channel, code, hint)
            raise DigestNotPosted(f"Slack refused the digest ({code}): {hint}", code) from None
        await mark_posted(index)
        posted += 1
    return posted
