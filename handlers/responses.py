"""Replies through `response_url` on kept-alive connections.

Bolt's `respond` opens an HTTP session per reply, so each reply pays a new connection (against
Slack, a TLS handshake too): in a burst of `/room list` that was about a third of the CPU each
command cost. Here every reply goes through the session the Web API client already shares.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncApp, AsyncBoltContext, AsyncRespond
from slack_bolt.context.respond.internals import _build_message
from slack_sdk.models.attachments import Attachment
from slack_sdk.models.blocks import Block
from slack_sdk.webhook.async_client import AsyncWebhookClient, WebhookResponse


class KeptAliveRespond(AsyncRespond):
    """Bolt's `respond`, over a shared session."""

    def __init__(self, response_url: str, session: aiohttp.ClientSession) -> None:
        super().__init__(response_url=response_url)
        self._session = session

    async def __call__(  # the same parameters as Bolt's, so listeners cannot tell
        self,
        text: str | dict[str, Any] = "",
        blocks: Sequence[dict[str, Any] | Block] | None = None,
        attachments: Sequence[dict[str, Any] | Attachment] | None = None,
        response_type: str | None = None,
        replace_original: bool | None = None,
        delete_original: bool | None = None,
        unfurl_links: bool | None = None,
        unfurl_media: bool | None = None,
        thread_ts: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> WebhookResponse:
        assert self.response_url is not None
        message = _build_message(**text) if isinstance(text, dict) else _build_message(
            text=text, blocks=blocks, attachments=attachments, response_type=response_type,
            replace_original=replace_original, delete_original=delete_original, unfurl_links=unfurl_links,
            unfurl_media=unfurl_media, thread_ts=thread_ts, metadata=metadata,
        )
        return await AsyncWebhookClient(url=self.response_url, session=self._session).send_dict(message)


def register(app: AsyncApp, session: aiohttp.ClientSession) -> None:
    async def kept_alive_respond(context: AsyncBoltContext, next: Callable[[], Awaitable[None]]) -> None:
        if context.response_url:
            context["respond"] = KeptAliveRespond(context.response_url, session)
        await next()

    app.middleware(kept_alive_respond)
