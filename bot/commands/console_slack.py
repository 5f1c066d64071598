"""The stand-in for Slack that `python -m bot shell` talks through: the Web API methods the bot calls.

It answers them as Slack would for a small console workspace (its people and channels in
console_directory) and prints what they send through the screen (console_screen): messages,
scheduled ones, files, views. Modals that ask for something are kept for the shell to fill in,
field by field.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bot.commands.console_directory import TEAM, Directory
from bot.commands.console_screen import Screen
from domain.rooms.meeting_times import zone_named
from handlers.i18n import day_at, text, zone_words


class ConsoleSlack:
    """The Web API methods the bot calls, answered as Slack would; every message is printed."""

    def __init__(self, screen: Screen) -> None:
        self._scheduled = 0
        self.screen = screen
        self.directory: Directory = screen.directory
        self.lang = screen.lang
        self.modals: list[dict[str, Any]] = []  # views opened that ask for something
        self._views = 0
        self.session = secrets.token_hex(4).upper()
        self._files: dict[str, dict[str, Any]] = {}
        self._members: dict[str, list[str]] = {}  # a channel's members, as invited (the bot in each)
        self.base = ""

    def asgi(self) -> Starlette:
        return Starlette(routes=[Route("/api/{method}", self._api, methods=["GET", "POST"]),
                                 Route("/response/{name}", self._respond, methods=["POST"]),
                                 Route("/upload/{file_id}", self._upload, methods=["POST"])])

    async def _respond(self, request: Request) -> Response:
        message = json.loads(await request.body())
        ephemeral = message.get("response_type", "ephemeral") == "ephemeral"
        self.screen.show(text(self.lang, "shell.only_you") if ephemeral else self.directory.where(self.directory.home, self.lang), message)
        return PlainTextResponse("ok")

    async def _upload(self, request: Request) -> Response:
        self._files.setdefault(request.path_params["file_id"], {})["size"] = len(await request.body())
        return PlainTextResponse("OK - 1")

    async def _api(self, request: Request) -> Response:
        args: dict[str, Any] = dict(request.query_params)
        raw = await request.body()
        if raw and "json" in request.headers.get("content-type", ""):
            args.update(json.loads(raw))
        elif raw:
            args.update({k: v[0] for k, v in parse_qs(raw.decode()).items()})
        answer = self.answer(request.path_params["method"], args)
        return JSONResponse(answer)

    def answer(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        family = {"auth": self._auth, "users": self._users, "chat": self._chat, "conversations": self._conversations,
                  "views": self._views_call, "files": self._files_call}.get(method.partition(".")[0])
        found = family(method, args) if family else None
        if found is None:
            self.screen.write(f"  [{method}]")
            return {"ok": True}
        return found

    def _auth(self, method: str, args: dict[str, Any]) -> dict[str, Any] | None:
        if method != "auth.test":
            return None
        return {"ok": True, "user": "roombot", "user_id": "U0BOT", "team": "console", "team_id": TEAM, "bot_id": "B0BOT"}

    def _users(self, method: str, args: dict[str, Any]) -> dict[str, Any] | None:
        if method == "users.lookupByEmail":  # a team space's instructeurs: the people the console knows
            wanted = str(args.get("email", "")).lower()
            found = next((p for p in self.directory.people.values() if p.email and p.email.lower() == wanted), None)
            return {"ok": True, "user": {"id": found.id}} if found else {"ok": False, "error": "users_not_found"}
        if method != "users.info":
            return None
        person = self.directory.people.get(str(args.get("user")))
        if person is None:
            return {"ok": False, "error": "user_not_found"}
        profile = {"real_name": person.name, "display_name": person.name} | ({"email": person.email} if person.email else {})
        return {"ok": True, "user": {"id": person.id, "team_id": TEAM, "name": person.name, "deleted": False,
                                     "is_bot": False, "is_email_confirmed": True, "locale": person.locale, "tz": person.tz,
                                     "profile": profile}}

    def _chat(self, method: str, args: dict[str, Any]) -> dict[str, Any] | None:
        directory = self.directory
        if method in ("chat.postMessage", "chat.postEphemeral"):
            where = str(args.get("channel", ""))
            thread = text(self.lang, "shell.in_thread") if args.get("thread_ts") else ""
            self.screen.show(directory.where(where, self.lang) + thread, args)
            return {"ok": True, "channel": where, "ts": f"{len(self.screen.controls)}.000001"}
        if method == "chat.scheduleMessage":
            where = directory.where(str(args.get("channel", "")), self.lang)
            zone = zone_named(directory.me.tz, "UTC")  # the person's zone, as the bot reads their times
            at = dt.datetime.fromtimestamp(int(float(args.get("post_at", 0))), zone)
            said = text(self.lang, "shell.scheduled", where=where, at=day_at(self.lang, at), zone=zone_words(self.lang, zone))
            self.screen.show(said, args)
            self._scheduled += 1
            return {"ok": True, "scheduled_message_id": f"Q{self._scheduled:08d}", "post_at": args.get("post_at")}
        if method == "chat.deleteScheduledMessage":
            self.screen.say("shell.unscheduled")
            return {"ok": True}
        return None

    def _conversations(self, method: str, args: dict[str, Any]) -> dict[str, Any] | None:
        if method == "conversations.open":
            return {"ok": True, "channel": {"id": "D" + str(args.get("users", ""))}}
        if method == "conversations.info":
            channel = str(args.get("channel", ""))
            private = channel.startswith("D")
            return {"ok": True, "channel": {"id": channel, "is_private": private, "is_im": private, "is_member": True}}
        if method == "conversations.join":
            return {"ok": True, "channel": {"id": args.get("channel")}}
        if method == "conversations.create":  # a team space's channel
            name = str(args.get("name", ""))
            made = f"C0SPACE{len(self.directory.channels)}"
            self.directory.channels[made] = name
            self.screen.write(f"  [{method}: #{name}]")
            return {"ok": True, "channel": {"id": made, "name": name, "is_private": True, "is_member": True}}
        if method == "conversations.members":
            members = self._members.get(str(args.get("channel", "")), ["U0BOT"])
            return {"ok": True, "members": members, "response_metadata": {"next_cursor": ""}}
        if method == "conversations.invite":  # who came is shown by name, and is a member from then on
            channel, users = str(args.get("channel", "")), str(args.get("users", "")).split(",")
            members = self._members.setdefault(channel, ["U0BOT"])
            came = [user for user in users if user and user not in members]
            members += came
            names = ", ".join(f"@{self.directory.user_name(user)}" for user in came)
            self.screen.write(f"  [{method}: {self.directory.where(channel, self.lang)} ← {names}]")
            return {"ok": True, "channel": {"id": channel}}
        return None

    def _views_call(self, method: str, args: dict[str, Any]) -> dict[str, Any] | None:
        if method in ("views.open", "views.push", "views.update", "views.publish"):
            return {"ok": True, "view": self._view(method, args)}
        return None

    def _files_call(self, method: str, args: dict[str, Any]) -> dict[str, Any] | None:
        if method == "files.getUploadURLExternal":
            file_id = f"F{len(self._files) + 1:08d}"
            self._files[file_id] = {"filename": str(args.get("filename", "")), "size": int(args.get("length", 0))}
            return {"ok": True, "upload_url": f"{self.base}/upload/{file_id}", "file_id": file_id}
        if method == "files.completeUploadExternal":
            files = args.get("files")
            for item in json.loads(files) if isinstance(files, str) else files or []:
                self._show_file(self._files.get(item.get("id"), {}), str(item.get("title") or ""))
            return {"ok": True, "files": []}
        return None

    def _view(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        view = args.get("view")
        view = json.loads(view) if isinstance(view, str) else dict(view or {})
        self._views += 1
        # unique in each session: another shell on the same Redis must not take this window's submission for a repeat
        view["id"] = str(args.get("view_id") or f"V0{self.session}{self._views}")
        if view.get("type") == "modal" and any(block.get("type") == "input" for block in view.get("blocks") or []):
            self.modals.append(view)  # the shell asks its fields one by one
        else:
            title = (view.get("title") or {}).get("text") or text(self.lang, "shell.home")
            self.screen.show(title, view, view_id=view["id"])
        return view

    def _show_file(self, file: dict[str, Any], title: str) -> None:
        name = str(file.get("filename", ""))
        kind = "shell.chart" if name.endswith(".png") else "shell.calendar" if name.endswith(".ics") else "shell.file"
        self.screen.say(kind, title=title or name, size=_size(self.lang, int(file.get("size", 0))))


def _size(lang: str, octets: int) -> str:
    """A file's size in the language's units: `942 B`, `21 kB`; `942 o`, `21 ko` in French."""
    return text(lang, "size.bytes", count=octets) if octets < 1024 else text(lang, "size.kilobytes", count=round(octets / 1024))
