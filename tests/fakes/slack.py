"""A loopback Slack: the Web API methods the bot calls, and `response_url` endpoints.

Like bolt-python's own mock server it records every call; like Slack it answers `ok: false`
with an error code for unknown users, and `users.info` leaves out the e-mail unless the app
has `users:read.email`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

TEAM = "T0TEAM"
BOT_USER = "U0BOT"


@dataclass
class Call:
    method: str
    args: dict[str, Any]
    token: str | None


@dataclass
class FakeSlack:
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    scopes: set[str] = field(default_factory=lambda: {"users:read", "users:read.email", "chat:write", "chat:write.public", "im:write"})
    # channel id → {"private": bool, "member": bool, and optionally "archived" or "deleted": True};
    # unknown ids are public channels the bot is in
    channels: dict[str, dict[str, bool]] = field(default_factory=dict)
    dead_response_urls: set[str] = field(default_factory=set)  # names whose response_url answers 404
    calls: list[Call] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)  # bodies posted to response_url
    messages: list[dict[str, Any]] = field(default_factory=list)  # accepted chat.postMessage calls
    broken: set[str] = field(default_factory=set)  # methods answering {ok: false, error: internal_error}
    hollow: set[str] = field(default_factory=set)  # methods answering a bare {ok: true}, without their fields
    rate_limited: dict[str, int] = field(default_factory=dict)  # method → how many 429s to answer first
    slow: dict[str, float] = field(default_factory=dict)  # method → seconds to wait before answering
    base: str = ""
    socket_outbox: list[dict[str, Any]] = field(default_factory=list)  # envelopes to push over Socket Mode
    socket_acks: list[dict[str, Any]] = field(default_factory=list)
    socket_connections: int = 0
    uploads: dict[str, dict[str, Any]] = field(default_factory=dict)  # files.upload v2, by file id
    # called with each accepted message before the bot hears back, e.g. to crash its Redis right then
    after_post: Callable[[dict[str, Any]], None] | None = None

    def add_user(self, user_id: str, email: str | None, *, locale: str = "fr-FR", **extra: Any) -> None:
        profile = {"real_name": user_id, "display_name": user_id}
        if email is not None:
            profile["email"] = email
        self.users[user_id] = {"id": user_id, "team_id": TEAM, "name": user_id.lower(), "deleted": False,
                               "is_bot": False, "is_email_confirmed": True, "locale": locale, "profile": profile, **extra}

    def response_url(self, name: str = "cmd") -> str:
        return f"{self.base}/response/{name}"

    def called(self, method: str) -> list[Call]:
        return [call for call in self.calls if call.method == method]

    async def wait_responses(self, count: int = 1, timeout: float = 5.0) -> list[dict[str, Any]]:
        """The bot replies after its ack, from a task of its own: wait for those replies to land."""
        deadline = time.monotonic() + timeout
        while len(self.responses) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"expected {count} response_url post(s), got {len(self.responses)}: {self.responses}")
            await asyncio.sleep(0.01)
        return self.responses

    def asgi(self) -> Starlette:
        return Starlette(routes=[
            Route("/api/{method}", self._api, methods=["GET", "POST"]),
            Route("/response/{name}", self._respond, methods=["POST"]),
            Route("/upload/{file_id}", self._upload, methods=["POST"]),
            WebSocketRoute("/socket", self._socket),
        ])

    async def _socket(self, websocket: WebSocket) -> None:
        """Socket Mode: hello, then the queued envelopes; the app's acks are recorded."""
        await websocket.accept()
        await websocket.send_json({"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A0APP"}})
        self.socket_connections += 1

        async def push() -> None:
            while True:
                while self.socket_outbox:
                    await websocket.send_json(self.socket_outbox.pop(0))
                await asyncio.sleep(0.01)

        pusher = asyncio.create_task(push())
        try:
            while True:
                self.socket_acks.append(json.loads(await websocket.receive_text()))
        except WebSocketDisconnect:
            pass
        finally:
            pusher.cancel()

    async def _respond(self, request: Request) -> Response:
        if request.path_params["name"] in self.dead_response_urls:
            return PlainTextResponse("expired_url", status_code=404)
        body = json.loads(await request.body())
        body["_url"] = request.path_params["name"]
        self.responses.append(body)
        return PlainTextResponse("ok")

    async def _api(self, request: Request) -> Response:
        method = request.path_params["method"]
        args: dict[str, Any] = dict(request.query_params)
        raw = await request.body()
        kind = request.headers.get("content-type", "")
        if raw and "json" in kind:
            args.update(json.loads(raw))
        elif raw:
            args.update({k: v[0] for k, v in parse_qs(raw.decode()).items()})
        token = request.headers.get("authorization", "").removeprefix("Bearer ") or args.get("token")
        self.calls.append(Call(method, args, token))
        if method in self.slow:
            await asyncio.sleep(self.slow[method])
        if self.rate_limited.get(method, 0) > 0:
            self.rate_limited[method] -= 1
            return JSONResponse({"ok": False, "error": "ratelimited"}, status_code=429, headers={"Retry-After": "0"})
        if method in self.broken:
            return JSONResponse({"ok": False, "error": "internal_error"})
        if method in self.hollow:
            return JSONResponse({"ok": True})
        handler = getattr(self, "_" + method.replace(".", "_"), None)
        # as Slack, every answer says which scopes the token was granted
        return JSONResponse(handler(args) if handler else {"ok": True}, headers={"x-oauth-scopes": ",".join(sorted(self.scopes))})

    def _auth_test(self, args: dict) -> dict:
        return {"ok": True, "url": "https://example.slack.com/", "team": "Example", "user": "roombot",
                "team_id": TEAM, "user_id": BOT_USER, "bot_id": "B0BOT", "is_enterprise_install": False}

    def posted(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Messages that chat.postMessage accepted (to `channel` when given)."""
        return [m for m in self.messages if channel is None or m.get("channel") == channel]

    def _chat_postMessage(self, args: dict) -> dict:
        channel = str(args.get("channel", ""))
        # a user id writes in the app's DM with them, which always exists; other ids follow `channels`
        if not channel.startswith("U"):
            default = {"private": channel.startswith(("G", "D")), "member": not channel.startswith(("G", "D"))}
            info = self.channels.get(channel, default)
            if info.get("deleted"):
                return {"ok": False, "error": "channel_not_found"}
            if info.get("archived"):
                return {"ok": False, "error": "is_archived"}
            if not info["member"]:
                if info["private"]:
                    return {"ok": False, "error": "channel_not_found"}
                if "chat:write.public" not in self.scopes:
                    return {"ok": False, "error": "not_in_channel"}
        self.messages.append(args)
        if self.after_post is not None:
            self.after_post(args)
        return {"ok": True, "channel": channel, "ts": f"{time.time():.6f}", "message": {"text": args.get("text")}}

    def _files_getUploadURLExternal(self, args: dict) -> dict:
        file_id = f"F{len(self.uploads) + 1:08d}"
        self.uploads[file_id] = {"filename": args.get("filename"), "alt_txt": args.get("alt_txt"),
                                 "length": int(args.get("length", 0)), "data": b"", "channel": None}
        return {"ok": True, "upload_url": f"{self.base}/upload/{file_id}", "file_id": file_id}

    def _files_completeUploadExternal(self, args: dict) -> dict:
        files = args.get("files")
        files = json.loads(files) if isinstance(files, str) else files or []
        for item in files:
            self.uploads[item["id"]] |= {"channel": args.get("channel_id"), "title": item.get("title")}
        return {"ok": True, "files": [{"id": item["id"]} for item in files]}

    async def _upload(self, request: Request) -> Response:
        self.uploads[request.path_params["file_id"]]["data"] = await request.body()
        return PlainTextResponse("OK - 1")

    def _conversations_info(self, args: dict) -> dict:
        """As Slack: a private conversation the bot is not in does not exist for it."""
        channel = str(args.get("channel", ""))
        default = {"private": channel.startswith(("G", "D")), "member": not channel.startswith(("G", "D"))}
        info = self.channels.get(channel, default)
        if info.get("deleted") or (info["private"] and not info["member"]):
            return {"ok": False, "error": "channel_not_found"}
        return {"ok": True, "channel": {"id": channel, "is_private": info["private"], "is_member": info["member"],
                                        "is_archived": bool(info.get("archived"))}}

    def _conversations_open(self, args: dict) -> dict:
        users = str(args.get("users", ""))
        user = self.users.get(users)
        if user is None:
            return {"ok": False, "error": "user_not_found"}
        if user.get("is_bot"):
            return {"ok": False, "error": "cannot_dm_bot"}
        self.channels.setdefault("D" + users, {"private": True, "member": True})
        return {"ok": True, "channel": {"id": "D" + users}}

    def _views_open(self, args: dict) -> dict:
        return {"ok": True, "view": {"id": "V0MODAL", **_view(args)}}

    def _views_update(self, args: dict) -> dict:
        return {"ok": True, "view": {"id": args.get("view_id"), **_view(args)}}

    def _views_publish(self, args: dict) -> dict:
        return {"ok": True, "view": {"id": "V0HOME", **_view(args)}}

    def _apps_connections_open(self, args: dict) -> dict:
        return {"ok": True, "url": self.base.replace("http://", "ws://") + "/socket"}

    def _users_info(self, args: dict) -> dict:
        user = self.users.get(args.get("user", ""))
        if user is None:
            return {"ok": False, "error": "user_not_found"}
        user = json.loads(json.dumps(user))
        if "users:read.email" not in self.scopes:
            user["profile"].pop("email", None)
        if str(args.get("include_locale", "")).lower() not in ("1", "true"):
            user.pop("locale", None)
        return {"ok": True, "user": user}


def _view(args: dict) -> dict:
    view = args.get("view", {})
    return json.loads(view) if isinstance(view, str) else view
