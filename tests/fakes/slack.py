"""A loopback Slack: the Web API methods the bot calls, and `response_url` endpoints.

Like bolt-python's own mock server it records every call; like Slack it refuses what Slack
refuses (slack-platform.md §12): each call is checked against Slack's method reference
(`tests/data/slack-methods/`) — an unknown or missing argument is `invalid_arguments`, a method
whose scope the token was not granted is `missing_scope` with `needed` (granted: what
`manifest.yml` requests, less what a test takes away) —, every message, view and preview against
Block Kit (`invalid_blocks` with the path), an upload into a channel the bot is not in is
`not_in_channel`, and channels can be archived, deleted or restricted. `users.info` leaves out the e-mail without `users:read.email`.
Every error code it answers is one the method's reference lists (or Slack's common errors, or an
exception named with where Slack was seen answering it): tests/team/test_slack_fake.py holds it to that.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import yaml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from tests.fakes.block_kit import Invalid, check_blocks, check_unfurls, check_view

TEAM = "T0TEAM"
BOT_USER = "U0BOT"
CLIENT_ID = "1111.2222"
CLIENT_SECRET = "fake-client-secret"
ROTATED_LIFETIME = 12 * 3600  # token_rotation_enabled: a bot token lasts 12 hours
ROOT = Path(__file__).resolve().parents[2]
METHODS = ROOT / "tests" / "data" / "slack-methods"


@functools.cache
def reference(method: str) -> dict[str, Any] | None:
    """Slack's description of `method`, None for a method Slack does not have."""
    path = METHODS / f"{method}.json"
    return json.loads(path.read_text()) if path.exists() else None


def requested_scopes() -> set[str]:
    """The bot scopes manifest.yml requests: what installing the app grants."""
    return set(yaml.safe_load((ROOT / "manifest.yml").read_text())["oauth_config"]["scopes"]["bot"])


@dataclass
class Call:
    method: str
    args: dict[str, Any]
    token: str | None


@dataclass
class Grant:
    """What an installation's token may reach: a workspace, or every workspace of an organisation."""

    team: str | None
    enterprise: str | None = None
    org: bool = False  # an organisation-wide install (team None)
    bot_user: str = BOT_USER
    expires_at: float | None = None
    refresh: str | None = None
    revoked: bool = False
    app: str = CLIENT_ID  # the app the person consented to


@dataclass
class FakeSlack:
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    scopes: set[str] = field(default_factory=requested_scopes)
    # channel id → {"private": bool, "member": bool, and optionally "archived" or "deleted": True, or
    # "restricted": a restricted_action… code}; unknown ids are public channels the bot is in
    channels: dict[str, dict[str, Any]] = field(default_factory=dict)
    dead_response_urls: set[str] = field(default_factory=set)  # names whose response_url answers 404
    calls: list[Call] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)  # bodies posted to response_url
    messages: list[dict[str, Any]] = field(default_factory=list)  # accepted chat.postMessage calls
    broken: set[str] = field(default_factory=set)  # methods answering {ok: false, error: internal_error}
    hollow: set[str] = field(default_factory=set)  # methods answering a bare {ok: true}, without their fields
    rate_limited: dict[str, int] = field(default_factory=dict)  # method → how many 429s to answer first
    slow: dict[str, float] = field(default_factory=dict)  # method → seconds to wait before answering
    held: dict[str, threading.Event] = field(default_factory=dict)  # method → answered once the test sets it (30 s at most)
    base: str = ""
    socket_outbox: list[dict[str, Any]] = field(default_factory=list)  # envelopes to push over Socket Mode
    socket_acks: list[dict[str, Any]] = field(default_factory=list)
    socket_connections: int = 0
    socket_drop: bool = False  # set: the open Socket Mode connection is closed, as Slack's servers sometimes do
    socket_url: str | None = None  # the WebSocket address apps.connections.open gives, when not this fake's own
    uploads: dict[str, dict[str, Any]] = field(default_factory=dict)  # files.upload v2, by file id
    shared_files: dict[str, dict[str, Any]] = field(default_factory=dict)  # files people gave in a window, by id
    downloads: list[str] = field(default_factory=list)  # the shared files whose bytes were read
    unique_views: bool = False  # views.open gives each window an id of its own (else all are V0MODAL)
    opened: list[str] = field(default_factory=list)  # the ids of the windows opened
    scheduled: dict[str, dict[str, Any]] = field(default_factory=dict)  # chat.scheduleMessage, by scheduled_message_id
    # called with each accepted message before the bot hears back, e.g. to crash its Redis right then
    after_post: Callable[[dict[str, Any]], None] | None = None
    refusals: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # calls refused before their method ran
    # user ids gone from the workspace (removed from `users` too): a DM to one is `channel_not_found`
    removed: set[str] = field(default_factory=set)
    # user id → the refusal a DM to them meets whatever their profile says (a person deactivated between
    # the bot's read of their profile and its post): one of the refusals below
    dm_refusals: dict[str, str] = field(default_factory=dict)
    response_channels: dict[str, str] = field(default_factory=dict)  # response_url name → its channel
    joined: list[str] = field(default_factory=list)  # channels the bot joined
    connections: set[tuple[str, int]] = field(default_factory=set)  # the callers' (host, port): one per connection
    # OAuth installs: tokens issued by oauth.v2.access and what each reaches; once one is issued, a
    # token Slack never issued is invalid_auth
    grants: dict[str, Grant] = field(default_factory=dict)
    codes: dict[str, Grant] = field(default_factory=dict)  # codes not yet exchanged (each once)
    refresh_tokens: dict[str, str] = field(default_factory=dict)  # refresh token → the access token it renews
    rotation: bool = False  # the app's token_rotation_enabled
    team_orgs: dict[str, str] = field(default_factory=dict)  # team id → its organisation's enterprise id
    issued: int = 0
    # team spaces: pinned message ts by channel, each posted message's ts by channel, how many channels
    # were made, and whether the workspace lets the bot make channels (else `restricted_action`)
    pins: dict[str, list[str]] = field(default_factory=dict)
    posted_ts: dict[str, list[str]] = field(default_factory=dict)
    created: int = 0
    creation_restricted: bool = False

    def consent(self, team: str | None, *, enterprise: str | None = None, org: bool = False, bot_user: str = BOT_USER,
                client_id: str = CLIENT_ID) -> str:
        """A person approves the install of app `client_id` on slack.com: the code Slack puts in the redirect."""
        self.issued += 1
        code = f"code-{self.issued}-{team or enterprise}"
        self.codes[code] = Grant(None if org else team, enterprise, org, bot_user, app=client_id)
        if team and enterprise:
            self.team_orgs[team] = enterprise
        return code

    def add_user(self, user_id: str, email: str | None, *, locale: str = "fr-FR", team: str = TEAM, **extra: Any) -> None:
        profile = {"real_name": user_id, "display_name": user_id}
        if email is not None:
            profile["email"] = email
        self.users[user_id] = {"id": user_id, "team_id": team, "name": user_id.lower(), "deleted": False,
                               "is_bot": False, "is_email_confirmed": True, "locale": locale, "profile": profile,
                               "tz": "Europe/Paris", **extra}

    def remove_user(self, user_id: str) -> None:
        """The person leaves the workspace: `users.info` says `user_not_found`, a DM `channel_not_found`."""
        self.users.pop(user_id, None)
        self.removed.add(user_id)

    def share_file(self, user: str, name: str, mimetype: str, data: bytes) -> dict[str, Any]:
        """A file `user` gives in a window's file input: what the view_submission carries of it."""
        file_id = f"F0SHARED{len(self.shared_files) + 1:04d}"
        url = f"{self.base}/files-pri/{TEAM}-{file_id}/{name}"
        self.shared_files[file_id] = {"id": file_id, "name": name, "title": name, "mimetype": mimetype, "size": len(data),
                                      "user": user, "url_private": url, "url_private_download": f"{url}?download=1",
                                      "_data": data}
        return {k: v for k, v in self.shared_files[file_id].items() if not k.startswith("_")}

    def response_url(self, name: str = "cmd", channel: str = "C0CHAN") -> str:
        """A `response_url` of an interaction in `channel` (where an `in_channel` reply goes)."""
        self.response_channels[name] = channel
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
            Route("/files-pri/{key}/{name}", self._file_bytes, methods=["GET"]),
            WebSocketRoute("/socket", self._socket),
        ])

    async def _socket(self, websocket: WebSocket) -> None:
        """Socket Mode: hello, then the queued envelopes; the app's acks are recorded."""
        await websocket.accept()
        await websocket.send_json({"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A0APP"}})
        self.socket_connections += 1

        async def push() -> None:
            while True:
                if self.socket_drop:
                    self.socket_drop = False
                    await websocket.close()
                    return
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
        self._connected(request)
        name = request.path_params["name"]
        if name in self.dead_response_urls:
            return PlainTextResponse("expired_url", status_code=404)
        body = json.loads(await request.body())
        try:
            if "blocks" in body:
                check_blocks(body["blocks"], "message")
        except Invalid as error:
            self.refusals.append(("response_url", {"error": "invalid_blocks", "message": str(error)}))
            return PlainTextResponse("invalid_blocks", status_code=400)
        if body.get("response_type") == "in_channel":  # posted as the person, where the interaction was
            info = self.channels.get(self.response_channels.get(name, ""), {})
            refused = info.get("restricted") or ("is_archived" if info.get("archived") else None)
            if refused:
                return PlainTextResponse(refused, status_code=403)
        body["_url"] = request.path_params["name"]
        self.responses.append(body)
        return PlainTextResponse("ok")

    def _connected(self, request: Request) -> None:
        if request.client is not None:
            self.connections.add((request.client.host, request.client.port))

    async def _api(self, request: Request) -> Response:
        self._connected(request)
        method = request.path_params["method"]
        args: dict[str, Any] = dict(request.query_params)
        raw = await request.body()
        kind = request.headers.get("content-type", "")
        if raw and "json" in kind:
            args.update(json.loads(raw))
        elif raw:
            args.update({k: v[0] for k, v in parse_qs(raw.decode()).items()})
        authorization = request.headers.get("authorization", "")
        if authorization.startswith("Basic "):  # the app's id and secret, as slack_sdk sends them to oauth.*
            client_id, _, client_secret = base64.b64decode(authorization[6:]).decode().partition(":")
            args |= {"client_id": client_id, "client_secret": client_secret}
            authorization = ""
        token = authorization.removeprefix("Bearer ") or args.get("token")
        self.calls.append(Call(method, args, token))
        refused = self._refusal(method, args) or self._token_refusal(method, args, token)
        if refused is not None:
            self.refusals.append((method, refused))
            return JSONResponse(refused)
        if method in self.slow:
            await asyncio.sleep(self.slow[method])
        if method in self.held:  # the fake runs in its own thread: the test releases it from its own
            await asyncio.to_thread(self.held[method].wait, 30)
        if self.rate_limited.get(method, 0) > 0:
            self.rate_limited[method] -= 1
            return JSONResponse({"ok": False, "error": "ratelimited"}, status_code=429, headers={"Retry-After": "0"})
        if method in self.broken:
            return JSONResponse({"ok": False, "error": "internal_error"})
        if method in self.hollow:
            return JSONResponse({"ok": True})
        if method in ("auth.test", "auth.teams.list", "apps.connections.open"):  # answered per token
            args = {**args, "_token": token}
        handler = getattr(self, "_" + method.replace(".", "_"), None)
        # as Slack, every answer says which scopes the token was granted
        return JSONResponse(handler(args) if handler else {"ok": True}, headers={"x-oauth-scopes": ",".join(sorted(self.scopes))})

    def _refusal(self, method: str, args: dict[str, Any]) -> dict[str, Any] | None:
        """What Slack answers before looking at what the call asks: the method, its arguments, the
        token's scopes, the blocks."""
        described = reference(method)
        if described is None:
            return {"ok": False, "error": "unknown_method"}
        # slack_sdk sends `team_id` with every call of a client that knows its workspace (Bolt's
        # per-request clients do): as `token`, Slack takes it on any method
        known = set(described["args"]) | {"token", "team_id"}
        unknown = sorted(set(args) - known)
        missing = sorted(name for name, arg in described["args"].items() if arg.get("required") and name not in args)
        if unknown or missing:
            messages = [f"[ERROR] unknown argument '{name}'" for name in unknown]
            messages += [f"[ERROR] missing required field: {name}" for name in missing]
            return {"ok": False, "error": "invalid_arguments", "response_metadata": {"messages": messages}}
        needed = self._needed_scope(method, described, args)
        if needed is not None and needed not in self.scopes:
            return {"ok": False, "error": "missing_scope", "needed": needed, "provided": ",".join(sorted(self.scopes))}
        try:
            if method in ("chat.postMessage", "chat.postEphemeral", "chat.update", "chat.scheduleMessage") and "blocks" in args:
                check_blocks(json_arg(args["blocks"]), "message")
            if method.startswith("views."):
                check_view(json_arg(args.get("view")))
            if method == "chat.unfurl":
                check_unfurls(json_arg(args.get("unfurls")))
        except Invalid as error:
            # a view's too: Slack was seen refusing views.publish/open/update with it (slack-platform.md §14),
            # though no views.* method lists it
            return {"ok": False, "error": "invalid_blocks", "response_metadata": {"messages": [f"[ERROR] {error}"]}}
        if len(str(args.get("text", ""))) > 40_000:
            return {"ok": False, "error": "msg_too_long"}
        return None

    def _token_refusal(self, method: str, args: dict[str, Any], token: str | None) -> dict[str, Any] | None:
        """Once tokens come from OAuth: an unknown, revoked or expired token is refused, an
        organisation's token must name the workspace (`team_id`), and nothing of another workspace
        (a channel, a person) exists for a token."""
        if method.startswith("oauth.") or not self.grants:
            return None
        grant = self.grants.get(token or "")
        if grant is None:
            return {"ok": False, "error": "invalid_auth"}
        if grant.revoked:
            return {"ok": False, "error": "token_revoked"}
        if grant.expires_at is not None and grant.expires_at <= time.time():
            return {"ok": False, "error": "token_expired"}
        if method in ("auth.test", "auth.teams.list"):  # about the token itself: no workspace named
            return None
        team = grant.team
        if grant.org:
            team = str(args.get("team_id") or "")
            if not team:
                return {"ok": False, "error": "invalid_arguments",
                        "response_metadata": {"messages": ["[ERROR] missing required field: team_id (organisation token)"]}}
            if self.team_orgs.get(team) != grant.enterprise:
                return {"ok": False, "error": "team_access_not_granted"}
        for name in ("channel", "channel_id"):
            channel = str(args.get(name) or "")
            if channel and self.team_of_channel(channel) not in (team, None):
                return {"ok": False, "error": _unseen(method, "channel_not_found", "cannot_find_channel")}
        for name in ("user", "users", "user_id"):
            person = self.users.get(str(args.get(name) or ""))
            if person is not None and person["team_id"] != team:
                return {"ok": False, "error": _unseen(method, "user_not_found", "user_not_in_channel")}
        return None

    def team_of_channel(self, channel: str) -> str | None:
        """A channel's workspace: its `team` in `channels`, a DM's person's, else unknown (None: any)."""
        if channel.startswith(("D", "U")) and channel.lstrip("D") in self.users:
            return str(self.users[channel.lstrip("D")]["team_id"])
        return self.channels.get(channel, {}).get("team")

    def _oauth_v2_access(self, args: dict) -> dict:
        """The code of one consent, once, for this app's id and secret; with rotation, a bot token
        that lasts 12 hours and a refresh token that works once."""
        if args.get("client_id") != CLIENT_ID:
            return {"ok": False, "error": "invalid_client_id"}
        if args.get("client_secret") != CLIENT_SECRET:
            return {"ok": False, "error": "bad_client_secret"}
        if args.get("grant_type") == "refresh_token":
            old = self.refresh_tokens.pop(str(args.get("refresh_token", "")), None)
            if old is None:
                return {"ok": False, "error": "invalid_refresh_token"}
            was = self.grants[old]
            token, refresh = self._issue(Grant(was.team, was.enterprise, was.org, was.bot_user))
            return {"ok": True, "access_token": token, "token_type": "bot", "expires_in": ROTATED_LIFETIME,
                    "refresh_token": refresh, "scope": ",".join(sorted(self.scopes))}
        code = str(args.get("code", ""))
        if code not in self.codes or self.codes[code].app != args["client_id"]:
            return {"ok": False, "error": "invalid_code"}
        grant = self.codes.pop(code)
        token, refresh = self._issue(grant)
        answer: dict[str, Any] = {
            "ok": True, "app_id": "A0APP", "authed_user": {"id": "U0INSTALLER"}, "scope": ",".join(sorted(self.scopes)),
            "token_type": "bot", "access_token": token, "bot_user_id": grant.bot_user,
            "team": None if grant.org else {"id": grant.team, "name": f"Workspace {grant.team}"},
            "enterprise": {"id": grant.enterprise, "name": f"Organisation {grant.enterprise}"} if grant.enterprise else None,
            "is_enterprise_install": grant.org,
        }
        if refresh is not None:
            answer |= {"expires_in": ROTATED_LIFETIME, "refresh_token": refresh}
        return answer

    def _issue(self, grant: Grant) -> tuple[str, str | None]:
        self.issued += 1
        token = f"xoxb-{grant.team or grant.enterprise}-{self.issued}"
        if self.rotation:
            token = f"xoxe.xoxb-1-{grant.team or grant.enterprise}-{self.issued}"
            grant.expires_at = time.time() + ROTATED_LIFETIME
            grant.refresh = f"xoxe-1-refresh-{self.issued}"
            self.refresh_tokens[grant.refresh] = token
        self.grants[token] = grant
        return token, grant.refresh

    def revoke(self, team: str | None = None, enterprise: str | None = None) -> None:
        """The workspace (or organisation) uninstalled the app: its tokens stop working."""
        for grant in self.grants.values():
            if (team and grant.team == team) or (enterprise and grant.org and grant.enterprise == enterprise):
                grant.revoked = True

    def _needed_scope(self, method: str, described: dict[str, Any], args: dict[str, Any]) -> str | None:
        """The bot scope this call needs: by the kind of conversation for the methods that look at one."""
        if method in ("conversations.info", "conversations.members"):
            channel = str(args.get("channel", ""))
            kind = self.channels.get(channel, {})
            if channel.startswith("D"):
                return "im:read"
            if kind.get("mpim"):
                return "mpim:read"
            private = kind.get("private", channel.startswith("G"))
            return "groups:read" if private else "channels:read"
        if method == "conversations.open":
            return "im:write" if "," not in str(args.get("users", "")) else "mpim:write"
        if method == "conversations.create":  # a private channel is a group's to make, a public one channels:manage's
            return "groups:write" if str(args.get("is_private", "")).lower() in ("1", "true") else "channels:manage"
        if method == "users.conversations":  # each kind listed needs its own read scope: the first lacking one
            kinds = [_READ_SCOPE.get(kind, "") for kind in str(args.get("types") or "public_channel").split(",")]
            return next((scope for scope in kinds if scope not in self.scopes), None)
        if method == "conversations.invite":
            private = self.channels.get(str(args.get("channel", "")), {}).get("private", str(args.get("channel", "")).startswith("G"))
            return "groups:write" if private else "channels:manage"
        scopes = [scope["name"] for scope in (described.get("scopes") or {}).get("bot", [])]
        return scopes[0] if scopes else None

    def _auth_test(self, args: dict) -> dict:
        """Per token: the workspace (or organisation) and bot user its installation gave."""
        grant = self.grants.get(str(args.get("_token") or ""))
        if grant is None:
            return {"ok": True, "url": "https://example.slack.com/", "team": "Example", "user": "roombot",
                    "team_id": TEAM, "user_id": BOT_USER, "bot_id": "B0BOT", "is_enterprise_install": False}
        place = grant.enterprise if grant.org else grant.team
        return {"ok": True, "url": f"https://{place}.slack.com/", "team": f"Workspace {place}", "user": "roombot",
                "team_id": place, "user_id": grant.bot_user, "bot_id": "B" + grant.bot_user[1:],
                "enterprise_id": grant.enterprise, "is_enterprise_install": grant.org}

    def _auth_teams_list(self, args: dict) -> dict:
        """The workspaces an organisation-wide install was granted (a workspace's token: its own),
        by pages of `limit` with a cursor, as Slack pages its lists."""
        grant = self.grants[str(args["_token"])]
        teams = sorted(team for team, org in self.team_orgs.items() if org == grant.enterprise) if grant.org else [str(grant.team)]
        limit = int(args.get("limit") or 100)
        if not 1 <= limit <= 1000:
            return {"ok": False, "error": "invalid_limit"}
        start = int(args.get("cursor") or 0)
        page = teams[start:start + limit]
        more = start + limit < len(teams)
        return {"ok": True, "teams": [{"id": team, "name": f"Workspace {team}"} for team in page],
                "response_metadata": {"next_cursor": str(start + limit) if more else ""}}

    def posted(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Messages that chat.postMessage accepted (to `channel` when given)."""
        return [m for m in self.messages if channel is None or m.get("channel") == channel]

    def _chat_postMessage(self, args: dict) -> dict:
        channel = str(args.get("channel", ""))
        refused = self._unpostable(channel)
        if refused is not None:
            return {"ok": False, "error": refused}
        self.messages.append(args)
        if self.after_post is not None:
            self.after_post(args)
        ts = f"{time.time():.6f}"
        self.posted_ts.setdefault(channel, []).append(ts)
        return {"ok": True, "channel": channel, "ts": ts, "message": {"text": args.get("text")}}

    def _unpostable(self, channel: str) -> str | None:
        """Why the bot may not post in `channel`, as Slack says it; None when it may."""
        # a user id writes in the app's DM with them, opened as conversations.open opens it: refused for a
        # deactivated person (`user_disabled`), a bot (`cannot_dm_bot`), an id gone from the workspace
        # (`channel_not_found`, chat.postMessage's word for a `channel` it cannot use); other ids follow `channels`
        if channel.startswith("U"):
            person = self.users.get(channel)
            if channel in self.dm_refusals:
                return self.dm_refusals[channel]
            if channel in self.removed:
                return "channel_not_found"
            if person is not None and person.get("deleted"):
                return "user_disabled"
            if person is not None and person.get("is_bot"):
                return "cannot_dm_bot"
            return None
        default = {"private": channel.startswith(("G", "D")), "member": not channel.startswith(("G", "D"))}
        info = self.channels.get(channel, default)
        if info.get("deleted"):
            return "channel_not_found"
        if info.get("archived"):
            return "is_archived"
        if info.get("restricted"):
            return str(info["restricted"])
        if not info["member"]:
            if info["private"]:
                return "channel_not_found"
            if "chat:write.public" not in self.scopes:
                return "not_in_channel"
        return None

    def _chat_scheduleMessage(self, args: dict) -> dict:
        """As Slack: `post_at` in the future and at most 120 days ahead, at most 30 messages per
        channel in one 5-minute window, and a channel the bot may post in."""
        channel = str(args.get("channel", ""))
        try:
            post_at = int(float(args.get("post_at", "")))
        except ValueError:
            return {"ok": False, "error": "invalid_time"}
        now = time.time()
        if post_at <= now:
            return {"ok": False, "error": "time_in_past"}
        if post_at > now + 120 * 86400:
            return {"ok": False, "error": "time_too_far"}
        refused = self._unpostable(channel)
        if refused is not None:
            return {"ok": False, "error": refused}
        window = post_at // 300
        if sum(1 for m in self.scheduled.values() if m["channel"] == channel and m["post_at"] // 300 == window) >= 30:
            return {"ok": False, "error": "restricted_too_many"}
        message_id = f"Q{len(self.scheduled) + 1:08d}"
        self.scheduled[message_id] = {**args, "channel": channel, "post_at": post_at, "id": message_id}
        return {"ok": True, "channel": channel, "scheduled_message_id": message_id, "post_at": post_at}

    def _chat_deleteScheduledMessage(self, args: dict) -> dict:
        """Only a message still waiting can be removed; one sent (or removed) is `invalid_scheduled_message_id`."""
        found = self.scheduled.get(str(args.get("scheduled_message_id")))
        if found is None or found["channel"] != args.get("channel") or found["post_at"] <= time.time():
            return {"ok": False, "error": "invalid_scheduled_message_id"}
        del self.scheduled[found["id"]]
        return {"ok": True}

    def waiting(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Scheduled messages Slack still holds (in `channel` when given), soonest first."""
        held = [m for m in self.scheduled.values() if (channel is None or m["channel"] == channel) and m["post_at"] > time.time()]
        return sorted(held, key=lambda m: m["post_at"])

    def _files_getUploadURLExternal(self, args: dict) -> dict:
        file_id = f"F{len(self.uploads) + 1:08d}"
        self.uploads[file_id] = {"filename": args.get("filename"), "alt_txt": args.get("alt_txt"),
                                 "length": int(args.get("length", 0)), "data": b"", "channel": None}
        return {"ok": True, "upload_url": f"{self.base}/upload/{file_id}", "file_id": file_id}

    def _files_completeUploadExternal(self, args: dict) -> dict:
        channel = str(args.get("channel_id", ""))
        info = self.channels.get(channel, {"private": channel.startswith(("G", "D")), "member": not channel.startswith(("G", "D"))})
        if channel and not info["member"]:  # chat:write.public covers messages, not files
            return {"ok": False, "error": "not_in_channel"}
        files = args.get("files")
        files = json.loads(files) if isinstance(files, str) else files or []
        if any(item.get("id") not in self.uploads for item in files):  # an id files.getUploadURLExternal never gave
            return {"ok": False, "error": "file_not_found"}
        for item in files:
            self.uploads[item["id"]] |= {"channel": args.get("channel_id"), "title": item.get("title")}
        return {"ok": True, "files": [{"id": item["id"]} for item in files]}

    async def _upload(self, request: Request) -> Response:
        self.uploads[request.path_params["file_id"]]["data"] = await request.body()
        return PlainTextResponse("OK - 1")

    def _files_info(self, args: dict) -> dict:
        found = self.shared_files.get(str(args.get("file", "")))
        if found is None:
            return {"ok": False, "error": "file_not_found"}
        return {"ok": True, "file": {k: v for k, v in found.items() if not k.startswith("_")}, "comments": [],
                "response_metadata": {"next_cursor": ""}}  # its comments, paged as Slack pages them

    async def _file_bytes(self, request: Request) -> Response:
        """A file's url_private: its bytes for a token granted files:read; for anyone else, as Slack,
        a 200 with the sign-in page instead of the file."""
        file_id = request.path_params["key"].rpartition("-")[2]
        found = self.shared_files.get(file_id)
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        known = token in self.grants if self.grants else token.startswith("xoxb-")
        if found is None or not known or "files:read" not in self.scopes:
            return Response("<!DOCTYPE html><html><body>Sign in to Slack</body></html>", media_type="text/html")
        self.downloads.append(file_id)
        return Response(found["_data"], media_type=found["mimetype"])

    def _conversations_info(self, args: dict) -> dict:
        """As Slack: a private conversation the bot is not in does not exist for it."""
        channel = str(args.get("channel", ""))
        default = {"private": channel.startswith(("G", "D")), "member": not channel.startswith(("G", "D"))}
        info = self.channels.get(channel, default)
        if info.get("deleted") or (info["private"] and not info["member"]):
            return {"ok": False, "error": "channel_not_found"}
        return {"ok": True, "channel": {"id": channel, "is_private": info["private"], "is_member": info["member"],
                                        "is_archived": bool(info.get("archived"))}}

    def _conversations_join(self, args: dict) -> dict:
        channel = str(args.get("channel", ""))
        info = self.channels.setdefault(channel, {"private": channel.startswith(("G", "D")), "member": not channel.startswith(("G", "D"))})
        if info.get("deleted") or info["private"]:
            return {"ok": False, "error": "channel_not_found" if info.get("deleted") or not info["member"]
                    else "method_not_supported_for_channel_type"}
        if info.get("archived"):
            return {"ok": False, "error": "is_archived"}
        info["member"] = True
        self.joined.append(channel)
        return {"ok": True, "channel": {"id": channel, "is_member": True}}

    def _conversations_create(self, args: dict) -> dict:
        """As Slack: a name of lower-case letters, digits, `-` and `_`, at most 80, not taken in the
        workspace; the bot that makes it is its first member."""
        name = str(args.get("name", ""))
        if not name:
            return {"ok": False, "error": "invalid_name_required"}
        if len(name) > 80:
            return {"ok": False, "error": "invalid_name_maxlength"}
        if not all(c in "abcdefghijklmnopqrstuvwxyz0123456789-_" for c in name):
            return {"ok": False, "error": "invalid_name_specials"}
        if self.creation_restricted:
            return {"ok": False, "error": "restricted_action"}
        team = str(args.get("team_id") or "") or None
        # names are a workspace's: a channel of no known workspace (or a call naming none) clashes with any
        if any(info.get("name") == name and (None in (team, info.get("team")) or info.get("team") == team)
               for info in self.channels.values()):
            return {"ok": False, "error": "name_taken"}
        private = str(args.get("is_private", "")).lower() in ("1", "true")
        self.created += 1
        channel = f"{'G' if private else 'C'}0NEW{self.created:04d}"
        self.channels[channel] = {"private": private, "member": True, "name": name, "team": team, "members": [BOT_USER],
                                  "creator": BOT_USER}
        return {"ok": True, "channel": {"id": channel, "name": name, "is_private": private, "is_member": True}}

    def _users_conversations(self, args: dict) -> dict:
        """As Slack to a bot: the conversations of `types` it is a member of (in the token's workspace),
        each with its name, kind and creator, by pages of `limit` (1 to 999) with a cursor."""
        kinds = str(args.get("types") or "public_channel").split(",")
        if any(kind not in _READ_SCOPE for kind in kinds):
            return {"ok": False, "error": "invalid_types"}
        limit = int(args.get("limit") or 100)
        if not 1 <= limit <= 999:
            return {"ok": False, "error": "invalid_limit"}
        team = str(args.get("team_id") or "") or None
        archived_too = str(args.get("exclude_archived", "")).lower() not in ("1", "true")
        mine = [{"id": channel, "name": info.get("name", ""), "is_private": bool(info.get("private")),
                 "is_archived": bool(info.get("archived")), "creator": info.get("creator", "")}
                for channel, info in sorted(self.channels.items())
                if info.get("member") and not info.get("deleted") and not channel.startswith("D")
                and ("private_channel" if info.get("private") else "public_channel") in kinds
                and (archived_too or not info.get("archived")) and (team is None or info.get("team") in (team, None))]
        start = int(args.get("cursor") or 0)
        more = start + limit < len(mine)
        return {"ok": True, "channels": mine[start:start + limit], "response_metadata": {"next_cursor": str(start + limit) if more else ""}}

    def _conversations_members(self, args: dict) -> dict:
        """A channel's members (the bot's among them when it is in), by pages of `limit` with a cursor."""
        channel = str(args.get("channel", ""))
        info = self.channels.get(channel)
        if info is None or info.get("deleted") or (info["private"] and not info["member"]):
            return {"ok": False, "error": "channel_not_found"}
        members = list(info.get("members", [BOT_USER] if info["member"] else []))
        limit, start = int(args.get("limit") or 100), int(args.get("cursor") or 0)
        more = start + limit < len(members)
        return {"ok": True, "members": members[start:start + limit],
                "response_metadata": {"next_cursor": str(start + limit) if more else ""}}

    def _conversations_invite(self, args: dict) -> dict:
        """As Slack: the bot in the channel; each id a person of the workspace, not the bot, not in
        already. Without `force`, one refusal refuses the call; with it, the others are invited and
        the refusals listed (the call refused when none was)."""
        channel = str(args.get("channel", ""))
        info = self.channels.get(channel)
        if info is None or info.get("deleted") or (info["private"] and not info["member"]):
            return {"ok": False, "error": "channel_not_found"}
        if info.get("archived"):
            return {"ok": False, "error": "is_archived"}
        if not info["member"]:
            return {"ok": False, "error": "not_in_channel"}
        members = info.setdefault("members", [BOT_USER])
        users = [u for u in str(args.get("users", "")).split(",") if u]
        if len(users) > 1000:
            return {"ok": False, "error": "too_many_users"}
        errors = []
        for user in users:
            if user == BOT_USER:
                errors.append({"user": user, "ok": False, "error": "cant_invite_self"})
            elif user not in self.users or self.users[user].get("deleted"):
                errors.append({"user": user, "ok": False, "error": "user_not_found"})
            elif user in members:
                errors.append({"user": user, "ok": False, "error": "already_in_channel"})
        force = str(args.get("force", "")).lower() in ("1", "true")
        valid = [u for u in users if u not in {e["user"] for e in errors}]
        if errors and (not force or not valid):
            return {"ok": False, "error": errors[0]["error"], "errors": errors}
        members.extend(valid)
        answer: dict[str, Any] = {"ok": True, "channel": {"id": channel}}
        return answer | ({"errors": errors} if errors else {})

    def _users_lookupByEmail(self, args: dict) -> dict:
        """A person of the workspace by their profile's address (without case); `users_not_found` else."""
        wanted = str(args.get("email", "")).strip().lower()
        team = str(args.get("team_id") or "") or None
        for user in self.users.values():
            if (str(user["profile"].get("email", "")).lower() == wanted and not user.get("deleted")
                    and (team is None or user["team_id"] == team)):
                return {"ok": True, "user": user}
        return {"ok": False, "error": "users_not_found"}

    def _pins_add(self, args: dict) -> dict:
        """A message the bot posted in the channel, pinned once (`already_pinned` after)."""
        channel, ts = str(args.get("channel", "")), str(args.get("timestamp", ""))
        if not ts:
            return {"ok": False, "error": "no_item_specified"}
        info = self.channels.get(channel, {"private": channel.startswith("G"), "member": not channel.startswith("G")})
        if info.get("deleted") or (info["private"] and not info["member"]):
            return {"ok": False, "error": "channel_not_found"}
        if not info["member"]:
            return {"ok": False, "error": "not_in_channel"}
        if info.get("restricted"):
            return {"ok": False, "error": "restricted_action"}
        if ts not in self.posted_ts.get(channel, []):
            return {"ok": False, "error": "message_not_found"}
        if ts in self.pins.get(channel, []):
            return {"ok": False, "error": "already_pinned"}
        self.pins.setdefault(channel, []).append(ts)
        return {"ok": True}

    def _conversations_open(self, args: dict) -> dict:
        users = str(args.get("users", ""))
        user = self.users.get(users)
        if user is None:
            return {"ok": False, "error": "user_not_found"}
        if user.get("is_bot"):
            return {"ok": False, "error": "cannot_dm_bot"}
        if user.get("deleted"):
            return {"ok": False, "error": "user_disabled"}
        self.channels.setdefault("D" + users, {"private": True, "member": True})
        return {"ok": True, "channel": {"id": "D" + users}}

    def _views_open(self, args: dict) -> dict:
        """Every window is V0MODAL, or — with `unique_views` — each its own id, as Slack gives (`opened`)."""
        view_id = f"V0MODAL{len(self.opened) + 1}" if self.unique_views else "V0MODAL"
        self.opened.append(view_id)
        return {"ok": True, "view": {"id": view_id, **_view(args)}}

    def _views_update(self, args: dict) -> dict:
        return {"ok": True, "view": {"id": args.get("view_id"), **_view(args)}}

    def _views_publish(self, args: dict) -> dict:
        return {"ok": True, "view": {"id": "V0HOME", **_view(args)}}

    def _apps_connections_open(self, args: dict) -> dict:
        """Only an app-level token opens a connection, as Slack answers (a bot token pasted as
        SLACK_APP_TOKEN is the usual slip)."""
        if not str(args.get("_token", "")).startswith("xapp-"):
            return {"ok": False, "error": "not_allowed_token_type"}
        return {"ok": True, "url": self.socket_url or self.base.replace("http://", "ws://") + "/socket?ticket=secret-ticket"}

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


def _unseen(method: str, *codes: str) -> str:
    """How `method` says a channel or person of another workspace does not exist: the first of `codes`
    its reference lists, else Slack's common `access_denied`."""
    listed = (reference(method) or {}).get("errors", {})
    return next((code for code in codes if code in listed), "access_denied")


#: the read scope each kind of conversation needs in a list of them
_READ_SCOPE = {"public_channel": "channels:read", "private_channel": "groups:read", "im": "im:read", "mpim": "mpim:read"}


def json_arg(value: Any) -> Any:
    """An argument sent as JSON text (form-encoded calls) or as JSON itself."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _view(args: dict) -> dict:
    view = args.get("view", {})
    return json.loads(view) if isinstance(view, str) else view
