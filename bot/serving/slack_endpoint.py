"""The door Slack's HTTP requests come through: size, time, signature — then Bolt.

Anyone can reach `POST /slack/events`, so nothing of a request is trusted or parsed before its
signature is checked on the raw bytes: a body over `MAX_BODY` is refused before it is read (Slack's
requests are far smaller), a body that takes longer than `BODY_SECONDS` to arrive is cut off, and
an unsigned, stale or unreadable request gets 400/401 — never a 500 and never a traceback. The
refusals are logged as one warning line a minute, with their count, so a flood does not flood
the log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter
from urllib.parse import parse_qsl

from slack_bolt.adapter.starlette.async_handler import to_async_bolt_request, to_starlette_response
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.signature import SignatureVerifier
from starlette.requests import ClientDisconnect, Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import Receive, Scope, Send

from handlers.ack_first import PendingAcks

log = logging.getLogger(__name__)

MAX_BODY = 1024 * 1024
BODY_SECONDS = 10.0
LOG_EVERY = 60.0


class _TooLarge(Exception):
    pass


class SlackEndpoint:
    def __init__(self, app: AsyncApp, signing_secret: str, *, body_seconds: float = BODY_SECONDS,
                 pending: PendingAcks | None = None) -> None:
        self._app = app
        self._pending = pending or PendingAcks()
        self._body_seconds = body_seconds
        self._verifier = SignatureVerifier(signing_secret)
        self._refused: Counter[str] = Counter()
        self._last_log = 0.0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """As Starlette's route runs `handle`, without its router (bot.serving.server.WebApp)."""
        response = await self.handle(Request(scope, receive, send))
        await response(scope, receive, send)

    async def handle(self, request: Request) -> Response:
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY:
            return self._refuse(413, "body too large")
        try:
            async with asyncio.timeout(self._body_seconds):  # not wait_for, which makes a Task of each read
                body = await _read(request)
        except _TooLarge:
            return self._refuse(413, "body too large")
        except TimeoutError:
            return self._refuse(408, "body too slow")
        except ClientDisconnect:
            return self._refuse(400, "client went away")
        if not self._signed(body, request):
            return self._refuse(401, "bad or stale signature")
        try:
            bolt_request = as_sent(to_async_bolt_request(request, body))
        except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
            return self._refuse(400, "signed but unreadable body")
        if bolt_request.body.get("type") == "app_rate_limited":
            # not an event: Slack says it is dropping this app's events for a minute. It expects a
            # 200 like any callback (Bolt has no listener for it and would answer 404).
            log.warning("Slack is dropping this app's events for the minute starting at %s: more than 30,000 "
                        "event deliveries an hour (app_rate_limited)", bolt_request.body.get("minute_rate_limited"))
            return PlainTextResponse("", status_code=200)
        self._pending.started()
        try:
            return to_starlette_response(await self._app.async_dispatch(bolt_request))
        finally:
            self._pending.answered()

    def _signed(self, body: bytes, request: Request) -> bool:
        try:
            return self._verifier.is_valid_request(body, dict(request.headers))
        except ValueError:  # a timestamp that is not a number
            return False

    def _refuse(self, status: int, why: str) -> Response:
        self._refused[why] += 1
        now = time.monotonic()
        if now - self._last_log >= LOG_EVERY:
            self._last_log = now
            summary = ", ".join(f"{count} × {reason}" for reason, count in self._refused.items())
            log.warning("refused Slack-route requests in the last minute: %s", summary)
            self._refused.clear()
        return PlainTextResponse(why, status_code=status, headers={"Connection": "close"})


def as_sent(bolt_request: AsyncBoltRequest) -> AsyncBoltRequest:
    """Bolt takes any form body with the word "payload" anywhere in it for an interaction's and reads
    its `payload` field, missing from a command: `/room payload`, or a channel named so, got a 404 and
    Slack's "app did not respond". Such a form is handed on as the fields it has, in JSON, which Bolt
    (and its copies for later work) read as they are; the signature was checked on the bytes sent."""
    if bolt_request.body or "payload" not in bolt_request.raw_body:
        return bolt_request
    fields = dict(parse_qsl(bolt_request.raw_body, keep_blank_values=True))
    if "payload" in fields:
        return bolt_request
    return AsyncBoltRequest(body=json.dumps(fields), query=bolt_request.query, headers=bolt_request.headers)


async def _read(request: Request) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)
