"""The stand-in for Slack that `python -m bot shell` talks through.

It answers the Web API methods the bot calls as Slack would for a small console workspace — the
person acting, whoever they name with `@name`, the channels they name with `#name` — and prints
every message as a person reads it in Slack: links as their label and address, mentions as names,
bold as bold, buttons and menus numbered so that typing the number uses them. Modals that ask for
something are kept for the shell to fill in, field by field.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Any, TextIO
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bot.commands.tables import CONTROL
from clients.redis_keys import digest
from domain.rooms.meeting_times import zone_named
from handlers.i18n import day_at, text, zone_words

TEAM = "T0CONSOLE"
HOME_CHANNEL = "console"

_MENTION = re.compile(r"(?<![\w<@&|])@([A-Za-z][\w.-]*\w|[A-Za-z])")
_CHANNEL = re.compile(r"(?<![\w<#&|])#([a-z0-9][\w-]*)")
_ESCAPE = re.compile(r"<([^<>]+)>")
_BOLD = re.compile(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])")
_CODE = re.compile(r"`([^`\n]+)`")
_ITALIC = re.compile(r"(?<![\w_])_([^_\n]+)_(?![\w_])")
_EMOJI = re.compile(r":([a-z0-9_+-]+):")
#: the emoji the bot's texts use, as a terminal can show them (another stays as typed)
EMOJI = {"white_check_mark": "✅", "warning": "⚠️", "sparkles": "✨", "eyes": "👀", "bell": "🔔", "wrench": "🔧",
         "calendar": "📅", "x": "❌", "hourglass_flowing_sand": "⏳"}


def person_id(email: str, lang: str) -> str:
    """A Slack-like user id of its own for each person and language: the bot caches profiles by
    id, and `--as bob` after `--as alice` must not be answered as Alice."""
    return "UC" + digest(f"{email.strip().lower()}|{lang}", 10).upper()


def slack_locale(lang: str) -> str:
    """Slack's form of a language (`fr` → `fr-FR`), from the CLDR's likely subtags."""
    from babel.core import get_global

    likely = str(get_global("likely_subtags").get(lang, lang)).split("_")
    return f"{lang}-{likely[-1]}" if len(likely) > 1 else lang


@dataclass
class Person:
    id: str
    name: str
    email: str | None
    locale: str
    tz: str = "Europe/Paris"  # the zone the bot reads this person's times in (their Slack profile's)


@dataclass
class Directory:
    """Who and what the console knows by name; names typed plainly become Slack's escapes."""

    me: Person
    people: dict[str, Person] = field(default_factory=dict)
    channels: dict[str, str] = field(default_factory=dict)  # id → name

    def __post_init__(self) -> None:
        self.people[self.me.id] = self.me
        self.channel(HOME_CHANNEL)

    @property
    def home(self) -> str:
        return self.channel(HOME_CHANNEL)

    def person(self, name: str) -> Person:
        if name.lower() == self.me.name.lower():
            return self.me
        found = next((p for p in self.people.values() if p.name.lower() == name.lower()), None)
        if found is None:
            found = Person("UC" + digest(f"person|{name.lower()}|{self.me.locale}", 10).upper(), name, None, self.me.locale)
            self.people[found.id] = found
        return found

    def channel(self, name: str) -> str:
        found = next((cid for cid, known in self.channels.items() if known == name.lower()), None)
        if found is None:
            found = "CC" + digest(f"channel|{name.lower()}", 10).upper()
            self.channels[found] = name.lower()
        return found

    def escape(self, line: str) -> str:
        """`@bob` and `#general` as Slack sends them in a command's text."""
        line = _MENTION.sub(lambda m: f"<@{self.person(m.group(1)).id}|{m.group(1)}>", line)
        return _CHANNEL.sub(lambda m: f"<#{self.channel(m.group(1))}|{m.group(1)}>", line)

    def user_name(self, user_id: str) -> str:
        found = self.people.get(user_id)
        return found.name if found else user_id

    def where(self, conversation: str, lang: str) -> str:
        """A conversation id as a person names it."""
        if conversation in self.channels:
            return f"#{self.channels[conversation]}"
        person = conversation[1:] if conversation.startswith("D") else conversation
        if person == self.me.id:
            return text(lang, "shell.dm_you")
        return text(lang, "shell.dm_to", person=self.user_name(person)).replace("&amp;", "&")


def readable(mrkdwn: str, directory: Directory, *, styled: bool) -> str:
    """Slack mrkdwn as a person sees it: `<url|label>` → label (url), `<@U…>` → @name, `<#C…>` →
    #name, *bold* in bold on a terminal, entities unescaped last."""

    def unwrap(match: re.Match[str]) -> str:
        inner = match.group(1)
        target, _, label = inner.partition("|")
        if target.startswith("@"):
            return "@" + directory.user_name(target[1:])
        if target.startswith("#"):
            return "#" + (label or directory.channels.get(target[1:], target[1:]))
        if target.startswith("!"):
            return label or "@" + target[1:].split("^")[0]
        if not label or label == target:
            return target
        return f"{label} ({target})"

    shown = _ESCAPE.sub(unwrap, CONTROL.sub("", mrkdwn))  # a service's escape sequence must not reach the terminal
    shown = _BOLD.sub(lambda m: f"\033[1m{m.group(1)}\033[0m" if styled else m.group(1), shown)
    shown = _ITALIC.sub(lambda m: f"\033[3m{m.group(1)}\033[0m" if styled else m.group(1), shown)
    shown = _CODE.sub(lambda m: m.group(1), shown)
    shown = _EMOJI.sub(lambda m: EMOJI.get(m.group(1), m.group(0)), shown)
    return shown.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


@dataclass(frozen=True)
class Control:
    """A button or a menu shown with a number: typing the number uses it."""

    action_id: str
    block_id: str
    kind: str  # button | static_select
    value: str = ""
    url: str | None = None
    options: tuple[tuple[str, str], ...] = ()  # (label, value) of a menu
    view_id: str | None = None  # the view it sits in (Home, a modal), None in a message
    confirm: dict[str, Any] | None = None  # Slack's confirm dialog, asked before it is used


class ConsoleSlack:
    """The Web API methods the bot calls, answered as Slack would; every message is printed."""

    def __init__(self, directory: Directory, lang: str, out: TextIO, *, styled: bool = False) -> None:
        self._scheduled = 0
        self.directory = directory
        self.lang = lang
        self._out = out
        self._styled = styled
        self.controls: list[Control] = []
        self.modals: list[dict[str, Any]] = []  # views opened that ask for something
        self._views = 0
        self.session = secrets.token_hex(4).upper()
        self._files: dict[str, dict[str, Any]] = {}
        self.base = ""

    def asgi(self) -> Starlette:
        return Starlette(routes=[Route("/api/{method}", self._api, methods=["GET", "POST"]),
                                 Route("/response/{name}", self._respond, methods=["POST"]),
                                 Route("/upload/{file_id}", self._upload, methods=["POST"])])

    async def _respond(self, request: Request) -> Response:
        message = json.loads(await request.body())
        ephemeral = message.get("response_type", "ephemeral") == "ephemeral"
        self.show(text(self.lang, "shell.only_you") if ephemeral else self.directory.where(self.directory.home, self.lang), message)
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
            self._write(f"  [{method}]")
            return {"ok": True}
        return found

    def _auth(self, method: str, args: dict[str, Any]) -> dict[str, Any] | None:
        if method != "auth.test":
            return None
        return {"ok": True, "user": "roombot", "user_id": "U0BOT", "team": "console", "team_id": TEAM, "bot_id": "B0BOT"}

    def _users(self, method: str, args: dict[str, Any]) -> dict[str, Any] | None:
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
            self.show(directory.where(where, self.lang) + (text(self.lang, "shell.in_thread") if args.get("thread_ts") else ""), args)
            return {"ok": True, "channel": where, "ts": f"{len(self.controls)}.000001"}
        if method == "chat.scheduleMessage":
            where = directory.where(str(args.get("channel", "")), self.lang)
            zone = zone_named(directory.me.tz, "UTC")  # the person's zone, as the bot reads their times
            at = dt.datetime.fromtimestamp(int(float(args.get("post_at", 0))), zone)
            self.show(text(self.lang, "shell.scheduled", where=where, at=day_at(self.lang, at), zone=zone_words(self.lang, zone)), args)
            self._scheduled += 1
            return {"ok": True, "scheduled_message_id": f"Q{self._scheduled:08d}", "post_at": args.get("post_at")}
        if method == "chat.deleteScheduledMessage":
            self._write(self.read(text(self.lang, "shell.unscheduled")))
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
            self.show(title, view, view_id=view["id"])
        return view

    def _show_file(self, file: dict[str, Any], title: str) -> None:
        name = str(file.get("filename", ""))
        kind = "shell.chart" if name.endswith(".png") else "shell.calendar" if name.endswith(".ics") else "shell.file"
        self._write(self.read(text(self.lang, kind, title=title or name, size=_size(self.lang, int(file.get("size", 0))))))

    def show(self, where: str, message: dict[str, Any], *, view_id: str | None = None) -> None:
        """A message or a view as text: its blocks' words, each control numbered."""
        lines = [f"--- {where}"]
        blocks = message.get("blocks")
        blocks = json.loads(blocks) if isinstance(blocks, str) else blocks or []
        if not blocks and message.get("text"):
            lines.append(self.read(str(message["text"])))
        for block in blocks:
            lines += self.block_lines(block, view_id)
        self._write("\n".join(line for line in lines if line))

    def block_lines(self, block: dict[str, Any], view_id: str | None) -> list[str]:
        """One block as a person reads it; its buttons and menus numbered."""
        kind = block.get("type")
        if kind == "header":
            return [f"== {self.read(block['text']['text'])} =="]
        if kind == "divider":
            return ["—" * 20]
        if kind == "actions":
            return ["   ".join(self._control(element, block, view_id) for element in block.get("elements", []))]
        parts = [block.get("text") or {}, *(block.get("fields") or []), *(block.get("elements") or []), block.get("label") or {}]
        words = [said for part in parts if (said := self._part_words(part, "  " if kind == "context" else ""))]
        if block.get("accessory"):
            words.append(self._control(block["accessory"], block, view_id))
        return words

    def _part_words(self, part: object, indent: str) -> str:
        """A text's words, or an image's alternative text; empty for anything else."""
        if isinstance(part, dict) and part.get("text"):
            return indent + self.read(str(part["text"]))
        if isinstance(part, dict) and part.get("type") == "image":
            return f"[{part.get('alt_text', 'image')}]"
        return ""

    def _control(self, element: dict[str, Any], block: dict[str, Any], view_id: str | None) -> str:
        kind = str(element.get("type"))
        label = self.read(str((element.get("text") or element.get("placeholder") or {}).get("text", kind)))
        if kind == "button":
            control = Control(str(element.get("action_id")), str(block.get("block_id", "")), kind,
                              value=str(element.get("value", "")), url=element.get("url"), view_id=view_id,
                              confirm=element.get("confirm"))
        elif kind == "static_select":
            options = tuple((self.read(o["text"]["text"]), str(o["value"])) for o in element.get("options") or [])
            control = Control(str(element.get("action_id")), str(block.get("block_id", "")), kind, options=options,
                              view_id=view_id, confirm=element.get("confirm"))
            label += " ▾"
        else:
            return f"[{label}]"
        self.controls.append(control)
        return f"[{len(self.controls)}] {label}"

    def read(self, mrkdwn: str) -> str:
        return readable(mrkdwn, self.directory, styled=self._styled)

    def _write(self, line: str) -> None:
        self._out.write(line + "\n")
        self._out.flush()


def _size(lang: str, octets: int) -> str:
    """A file's size in the language's units: `942 B`, `21 kB`; `942 o`, `21 ko` in French."""
    return text(lang, "size.bytes", count=octets) if octets < 1024 else text(lang, "size.kilobytes", count=round(octets / 1024))
