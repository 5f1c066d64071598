"""Socket Mode: the bot keeps its connection to Slack itself.

slack_sdk's client retries in a loop of its own when it cannot connect: every 10 s, forever, a
full traceback each time and never a word of what to check; and an address that takes the
connection and never answers held it without a line. Here the client makes one attempt when asked
(`OneAttempt`), and `SocketMode.keep` asks: each attempt bounded in time, each failure one line
naming the setting to check, the next attempt later and later (1 s up to a minute), a lost
connection (the client's pings unanswered, Slack's `disconnect`) made again the same way. It
notes when Slack was last reached, which /readyz tells: a process cut off from Slack for a while
is alive (/healthz) but not ready.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

import aiohttp
from slack_bolt.adapter.socket_mode.async_internals import run_async_bolt_app, send_async_response
from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest

from bot.operator_advice import host_of

log = logging.getLogger(__name__)

#: an attempt (a URL from apps.connections.open, then the WebSocket) that takes longer has failed
CONNECT_SECONDS = 15.0
#: waits between failed attempts, the last one repeated
RETRY_SECONDS = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
#: a connection that held this long starts the waits over at the first
STEADY_SECONDS = 60.0
#: how often the connection is looked at; and the client's pings (unanswered 4 times: lost)
WATCH_SECONDS = 1.0
PING_SECONDS = 10.0
#: Slack not reached for longer: not ready (/readyz)
READY_SECONDS = 60.0
#: Slack's refusals that mean the app-level token is wrong
TOKEN_REFUSED = {"invalid_auth", "not_authed", "not_allowed_token_type", "token_revoked", "token_expired",
                 "account_inactive", "missing_scope"}


class OneAttempt(SocketModeClient):
    """slack_sdk's client, connecting once when asked and raising what stopped it; its automatic
    reconnection stays off (`SocketMode.keep` reconnects). Its own log lines (a session opened, a
    ping sent) repeat ours: only its warnings and errors are written."""

    def __init__(self, app: AsyncApp, app_token: str) -> None:
        quiet = log.getChild("client")
        quiet.setLevel(logging.WARNING)
        super().__init__(app_token, logger=quiet, web_client=app.client, auto_reconnect_enabled=False,
                         ping_interval=PING_SECONDS)

        async def handle(client: SocketModeClient, request: SocketModeRequest) -> None:  # as Bolt's handler does
            started = time.time()
            await send_async_response(client, request, await run_async_bolt_app(app, request), started)

        self.socket_mode_request_listeners.append(handle)  # type: ignore[arg-type]  # Bolt's own handler is typed so too

    async def connect(self) -> None:
        """A fresh URL from apps.connections.open (each is good for one connection), the WebSocket,
        and the library's tasks that ping it and read from it. One at a time: Slack's `disconnect`
        and a lost connection may ask at once, and a second session would be left open unread."""
        async with self.connect_operation_lock:
            await self._connect_once()

    async def _connect_once(self) -> None:
        if self.current_session is not None and not self.current_session.closed:
            await self.current_session.close()
        if self.aiohttp_client_session.closed:
            self.aiohttp_client_session = aiohttp.ClientSession()
        self.wss_uri = None  # until Slack gives one: what a failure is about
        self.wss_uri = await self.issue_new_wss_url()
        self.current_session = await self.aiohttp_client_session.ws_connect(
            self.wss_uri, autoping=False, heartbeat=self.ping_interval, proxy=self.proxy,
            ssl=self.web_client.ssl if self.web_client.ssl is not None else True)
        self.stale = False
        self.last_ping_pong_time = time.time()
        for task in (self.current_session_monitor, self.message_receiver):
            if task is not None:
                task.cancel()
        self.current_session_monitor = asyncio.ensure_future(self.monitor_current_session())
        self.message_receiver = asyncio.ensure_future(self.receive_messages())

    async def connect_to_new_endpoint(self, force: bool = False) -> None:
        """Slack's `disconnect` (every few hours, or before its servers restart): one attempt; if it
        fails, `SocketMode.keep` finds the connection closed and says why on its next attempt."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.connect(), CONNECT_SECONDS)


class SocketMode:
    """The connection to Slack, kept; `reached` is when Slack was last seen answering."""

    def __init__(self, app: AsyncApp, app_token: str, *, api_url: object, clock: Callable[[], float] = time.monotonic) -> None:
        self.client = OneAttempt(app, app_token)
        self.api_url = api_url
        self.clock = clock
        self.reached: float | None = None

    async def keep(self) -> None:
        """Connects, and again whenever the connection is lost, until cancelled."""
        failures = 0
        since = 0.0  # when the connection was made
        while True:
            if await self.client.is_connected():
                self.reached = self.clock()
                if self.reached - since >= STEADY_SECONDS:
                    failures = 0
                await asyncio.sleep(WATCH_SECONDS)
                continue
            if self.reached is not None and since:
                log.warning("lost the Socket Mode connection to Slack: connecting again")
                since = 0.0
            try:
                await asyncio.wait_for(self.client.connect(), CONNECT_SECONDS)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # whatever stopped it, said in one line with what to check
                wait = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
                failures += 1
                log.warning("%s; trying again in %.0f s", self.advice(error), wait)
                await asyncio.sleep(wait)
                continue
            since = self.reached = self.clock()
            log.info("connected to Slack in Socket Mode")

    def advice(self, error: Exception) -> str:
        if isinstance(error, SlackApiError):
            code = str(error.response.get("error"))
            if code in TOKEN_REFUSED:
                return (f"Slack refuses SLACK_APP_TOKEN ({code}): make an app-level token (xapp-…) with the "
                        "connections:write scope, on the app's Basic Information page")
            return f"Slack refused a Socket Mode connection ({code}): check SLACK_APP_TOKEN"
        # the WebSocket's address once apps.connections.open gave it (its host only: the URL holds a ticket)
        where = host_of(self.client.wss_uri or self.api_url)
        if isinstance(error, TimeoutError):
            return (f"cannot reach Slack in Socket Mode: {where} did not answer within {CONNECT_SECONDS:.0f} s; check "
                    "SLACK_API_URL and the way out to Slack (a proxy: HTTPS_PROXY), and SLACK_APP_TOKEN")
        return (f"cannot reach Slack in Socket Mode at {where} ({_reason(error)}): check SLACK_API_URL and the way out "
                "to Slack (a proxy: HTTPS_PROXY), and SLACK_APP_TOKEN")

    def unready(self) -> str | None:
        """Why the process is not ready, when Slack was not reached for READY_SECONDS."""
        if self.reached is None:
            return "not reached since the start"
        silent = self.clock() - self.reached
        return f"not reached for {silent:.0f} s" if silent >= READY_SECONDS else None

    async def close(self) -> None:
        with contextlib.suppress(Exception):  # never connected, or Slack gone: nothing to close
            await self.client.close()  # type: ignore[no-untyped-call]  # left untyped by slack_sdk


def _reason(error: Exception) -> str:
    """The error in a few words, without a URL (a WebSocket's carries a ticket)."""
    if isinstance(error, aiohttp.ClientResponseError):
        return f"{error.status} {error.message}"
    detail = " ".join(str(error).split())
    return (detail[:119] + "…" if len(detail) > 120 else detail) or type(error).__name__
