"""Replies through `response_url` on kept-alive connections.

Bolt's `respond` opens an HTTP session per reply, so each reply pays a new connection (against
Slack, a TLS handshake too): in a burst of `/room list` that was about a third of the CPU each
command cost. Here every reply goes through the session the Web API client already shares, posted
as slack_sdk's webhook client posts it (the same body, headers and proxy, one retry after a
connection error) without building that client, its retry objects and its logger for each reply.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncApp, AsyncRespond
from slack_bolt.context.respond.internals import _build_message
from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.models.attachments import Attachment
from slack_sdk.models.blocks import Block
from slack_sdk.proxy_env_variable_loader import load_http_proxy_from_env
from slack_sdk.web.internal_utils import get_user_agent
from slack_sdk.webhook.internal_utils import _build_body
from slack_sdk.webhook.webhook_response import WebhookResponse

from clients.aiohttp_transport import json_body

HEADERS = {"Content-Type": "application/json;charset=utf-8", "User-Agent": get_user_agent()}
#: what slack_sdk's webhook client tries once more, after half a second (ServerDisconnectedError is a ServerConnectionError)
RETRIED = (aiohttp.ServerConnectionError, aiohttp.ClientOSError)
RETRY_SECONDS = 0.5


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
        return await post(self._session, self.response_url, json_body(body_of(message)))


def body_of(message: dict[str, Any]) -> dict[str, Any]:
    """slack_sdk's webhook body (`_build_body`) of a message Bolt built: its blocks and attachments
    are dicts already, so without `_build_body`'s six isinstance checks of each (11 µs for twelve
    blocks); only metadata given as slack_sdk's object still needs it."""
    if message.get("metadata") is None or type(message["metadata"]) is dict:
        return {name: value for name, value in message.items() if value is not None}
    return _build_body(message) or {}


async def post(session: aiohttp.ClientSession, url: str, body: bytes) -> WebhookResponse:
    proxy = load_http_proxy_from_env()
    try:
        return await _post_once(session, url, body, proxy)
    except RETRIED:
        await asyncio.sleep(RETRY_SECONDS)
    return await _post_once(session, url, body, proxy)


async def _post_once(session: aiohttp.ClientSession, url: str, body: bytes, proxy: str | None) -> WebhookResponse:
    async with session.post(url, data=body, headers=HEADERS, proxy=proxy) as answer:
        # the headers as slack_sdk's client gives them (its annotation says a dict)
        return WebhookResponse(url=url, status_code=answer.status, body=await answer.text(), headers=answer.headers)  # type: ignore[arg-type]


class KeptAliveResponds(AsyncMiddleware):
    """Gives each request with a `response_url` the kept-alive `respond`."""

    def __init__(self, session: aiohttp.ClientSession) -> None:
        self._session = session

    async def async_process(self, *, req: AsyncBoltRequest, resp: BoltResponse,
                            next: Callable[[], Awaitable[BoltResponse]]) -> BoltResponse | None:
        if req.context.response_url:
            req.context["respond"] = KeptAliveRespond(req.context.response_url, self._session)
        await next()
        return None


def register(app: AsyncApp, session: aiohttp.ClientSession) -> None:
    app.middleware(KeptAliveResponds(session))
