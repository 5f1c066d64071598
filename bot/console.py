"""`python -m bot shell --as EMAIL [--lang fr|en]`: the bot without Slack, for trying it out.

Like Hubot's shell adapter or Errbot's text backend, a console stands in for the chat service:
`/room …` and `/digest …` typed on standard input go to the bot's own listeners, and what they
send to Slack's Web API (or to a `response_url`) comes back to a stand-in served on loopback, which
prints each message as text with its buttons numbered; typing a number clicks that button. The
room, dossier and inference services are the real configured ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import socket
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, TextIO
from urllib.parse import parse_qs, urlencode

import uvicorn
from pydantic import SecretStr
from slack_bolt.request.async_request import AsyncBoltRequest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bot.config import Settings
from bot.wiring import Runtime, running
from clients.redis_keys import digest

TEAM, CHANNEL = "T0CONSOLE", "C0CONSOLE"


def person_id(email: str, lang: str) -> str:
    """A Slack-like user id of its own for each person and language: the bot caches profiles by
    id, and `--as bob` after `--as alice` must not be answered as Alice."""
    return "UC" + digest(f"{email.strip().lower()}|{lang}", 10).upper()


@dataclass(frozen=True)
class Button:
    action_id: str
    value: str
    url: str | None


class ConsoleSlack:
    """The Web API methods the bot calls, answered as Slack would for one person in one channel;
    every message the bot sends is printed."""

    def __init__(self, email: str, lang: str, out: TextIO) -> None:
        self.person = person_id(email, lang)
        self._profile = {"id": self.person, "team_id": TEAM, "name": "you", "deleted": False, "is_bot": False,
                         "is_email_confirmed": True, "locale": "fr-FR" if lang == "fr" else "en-US",
                         "profile": {"email": email, "real_name": email, "display_name": email}}
        self._out = out
        self.buttons: list[Button] = []

    def asgi(self) -> Starlette:
        return Starlette(routes=[Route("/api/{method}", self._api, methods=["GET", "POST"]),
                                 Route("/response/{name}", self._respond, methods=["POST"])])

    async def _respond(self, request: Request) -> Response:
        self.show("(only you)", json.loads(await request.body()))
        return PlainTextResponse("ok")

    async def _api(self, request: Request) -> Response:
        args: dict[str, Any] = dict(request.query_params)
        raw = await request.body()
        if raw and "json" in request.headers.get("content-type", ""):
            args.update(json.loads(raw))
        elif raw:
            args.update({k: v[0] for k, v in parse_qs(raw.decode()).items()})
        method = request.path_params["method"]
        answer: dict[str, Any] = {"ok": True}
        if method == "auth.test":
            answer |= {"user": "roombot", "user_id": "U0BOT", "team": "console", "team_id": TEAM, "bot_id": "B0BOT"}
        elif method == "users.info":
            found = args.get("user") == self.person
            answer = {"ok": True, "user": self._profile} if found else {"ok": False, "error": "user_not_found"}
        elif method in ("chat.postMessage", "chat.postEphemeral"):
            where = str(args.get("channel", ""))
            self.show("(direct message)" if where.startswith(("U", "D")) else f"#{where}", args)
            answer |= {"channel": where, "ts": f"{len(self.buttons)}.000001"}
        elif method == "conversations.open":
            answer |= {"channel": {"id": "D" + str(args.get("users", ""))}}
        elif method == "conversations.info":
            answer |= {"channel": {"id": args.get("channel"), "is_private": False, "is_member": True}}
        elif method in ("views.open", "views.update", "views.publish"):
            view = args.get("view")
            self.show(f"({method.split('.')[1]} view)", json.loads(view) if isinstance(view, str) else view or {})
            answer |= {"view": {"id": "V0CONSOLE"}}
        else:
            self._out.write(f"  [{method}]\n")
        return JSONResponse(answer)

    def show(self, where: str, message: dict[str, Any]) -> None:
        """A message as text: its blocks' words, each button numbered."""
        lines = [f"--- {where}"]
        blocks = message.get("blocks")
        blocks = json.loads(blocks) if isinstance(blocks, str) else blocks or []
        if not blocks and message.get("text"):
            lines.append(str(message["text"]))
        for block in blocks:
            kind = block.get("type")
            if kind == "header":
                lines.append(f"== {block['text']['text']} ==")
            elif kind in ("section", "context", "input"):
                for part in [block.get("text") or {}, *(block.get("elements") or []), block.get("label") or {}]:
                    if isinstance(part, dict) and part.get("text"):
                        lines.append(("  " if kind == "context" else "") + str(part["text"]))
                if block.get("accessory"):
                    lines.append(self._button(block["accessory"]))
            elif kind == "actions":
                lines.append("   ".join(self._button(element) for element in block.get("elements", [])))
        self._out.write("\n".join(line for line in lines if line) + "\n")
        self._out.flush()

    def _button(self, element: dict[str, Any]) -> str:
        if element.get("type") != "button":
            return f"[{element.get('type')}]"
        self.buttons.append(Button(str(element.get("action_id")), str(element.get("value", "")), element.get("url")))
        return f"[{len(self.buttons)}] {element['text']['text']}"


async def run_shell(settings: Settings, *, email: str, lang: str) -> int:
    stdin, stdout = sys.stdin, sys.stdout  # looked up now: a test (or a pipe) may have replaced them
    console = ConsoleSlack(email, lang, stdout)
    async with _served(console) as base:
        local = settings.model_copy(update={
            "slack_bot_token": SecretStr("xoxb-console"), "slack_signing_secret": SecretStr("console"),
            "slack_app_token": None, "slack_api_url": f"{base}/api/", "default_language": lang,
        })
        async with running(local) as runtime:
            while line := await asyncio.to_thread(stdin.readline):
                line = line.strip()
                if line.startswith("/"):
                    command, _, text = line.partition(" ")
                    await _dispatch(runtime, urlencode({
                        "command": command, "text": text, "team_id": TEAM, "user_id": console.person, "channel_id": CHANNEL,
                        "trigger_id": secrets.token_hex(8), "response_url": f"{base}/response/{secrets.token_hex(4)}"}))
                elif line.isdecimal() and 1 <= int(line) <= len(console.buttons):
                    await _click(runtime, console.person, console.buttons[int(line) - 1], base, stdout)
                elif line:
                    stdout.write("type /room …, /digest …, or the number of a button\n")
    return 0


async def _click(runtime: Runtime, person: str, button: Button, base: str, out: TextIO) -> None:
    if button.url:
        out.write(f"open {button.url}\n")
        return
    payload = {"type": "block_actions", "team": {"id": TEAM}, "user": {"id": person, "team_id": TEAM},
               "trigger_id": secrets.token_hex(8), "channel": {"id": CHANNEL},
               "container": {"type": "message", "channel_id": CHANNEL}, "response_url": f"{base}/response/click",
               "actions": [{"action_id": button.action_id, "value": button.value, "type": "button", "block_id": "b"}]}
    await _dispatch(runtime, urlencode({"payload": json.dumps(payload)}))


async def _dispatch(runtime: Runtime, body: str) -> None:
    """As if Slack had sent it (no signature to check: nothing left this machine), then waits for
    the listener's replies."""
    request = AsyncBoltRequest(body=body, headers={"content-type": "application/x-www-form-urlencoded"})
    await runtime.app.async_dispatch(request)
    await runtime.tasks.drain(60)


@contextlib.asynccontextmanager
async def _served(console: ConsoleSlack) -> AsyncIterator[str]:
    """The stand-in on a loopback port; the socket listens before the server runs, so the bot's
    first call simply waits in the backlog."""
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(64)
    server = uvicorn.Server(uvicorn.Config(console.asgi(), log_config=None, lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[listening]))
    try:
        yield f"http://127.0.0.1:{listening.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
        listening.close()
