"""What the shell asks a person: a window's fields one by one, a confirm dialog, a menu's option.

Apart from the shell's loop (console) because this is the conversation inside one interaction:
each kind of field read as Slack would send its state (`2` or `1, 3` for options, `@bob` for
people, `#general` for a channel, `2026-03-02 14:30` in the person's zone for a date and time), a
required field asked again, the window submitted as Slack submits it and its refused fields asked
again, Ctrl-D leaving it unsent as a closed one.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
from typing import Any, TextIO
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from slack_bolt.request.async_request import AsyncBoltRequest

from bot.commands.console_directory import TEAM
from bot.commands.console_input import Lines
from bot.commands.console_slack import ConsoleSlack
from bot.serving.slack_app import Runtime
from handlers.i18n import text

_YES = {"y", "yes", "o", "oui"}
_NO = {"n", "no", "non"}


class Asking:
    """The questions of one shell, in its person's language, on its input and output."""

    def __init__(self, runtime: Runtime, slack: ConsoleSlack, lines: Lines, out: TextIO) -> None:
        self._runtime, self._slack, self._lines, self._out = runtime, slack, lines, out
        self._screen = slack.screen
        self._me = slack.directory.me

    async def confirmed(self, confirm: dict[str, Any]) -> bool:
        """Slack's confirm dialog: its title and text, then its two buttons as a yes or no."""
        words = {part: self._screen.read(str((confirm.get(part) or {}).get("text", ""))) for part in ("title", "text", "confirm", "deny")}
        self._out.write(f"--- {words['title']}\n{words['text']}\n")
        self._screen.say("shell.confirm", confirm=words["confirm"] or "yes", deny=words["deny"] or "no")
        while (line := await self._lines.ask("  > ")) is not None:
            answer = line.strip().lower()
            if answer in _YES or answer == words["confirm"].lower():
                return True
            if answer in _NO or answer == words["deny"].lower() or not answer:
                return False
            self._screen.say("shell.not_understood")
        return False

    async def fill(self, view: dict[str, Any]) -> None:
        """Shows the window's text, asks each field, submits it, and asks again what the bot refused."""
        title = self._screen.read((view.get("title") or {}).get("text", ""))
        self._out.write(f"--- {title}\n")
        for block in view.get("blocks") or []:
            if block.get("type") != "input":
                for line in self._screen.block_lines(block, view.get("id")):
                    self._out.write(line + "\n")
        self._screen.say("shell.window_keys")
        errors: dict[str, str] = {}
        values: dict[str, dict[str, Any]] = {}
        while True:
            if not await self._ask_fields(view, errors, values):  # Ctrl-D, or the input ended: left unsent, as a closed one
                self._screen.say("shell.cancelled")
                return
            errors = await self._submit(view, values)
            if not errors:
                return

    async def _ask_fields(self, view: dict[str, Any], errors: dict[str, str], values: dict[str, dict[str, Any]]) -> bool:
        """Asks each field (only those refused, after a refusal) into `values`; False at the end of input."""
        for block in view.get("blocks") or []:
            if block.get("type") != "input" or (errors and block.get("block_id") not in errors) or _no_file(block):
                continue
            if block.get("block_id") in errors:
                self._out.write(f"! {errors[block['block_id']]}\n")
            answer = await self._field(block)
            if answer is None:
                return False
            values.pop(block["block_id"], None)
            if answer:
                values[block["block_id"]] = {block["element"]["action_id"]: answer}
        return True

    async def _submit(self, view: dict[str, Any], values: dict[str, dict[str, Any]]) -> dict[str, str]:
        """Sends the window as Slack would; what the bot refused, field by field (none when it took it)."""
        submission = {"type": "view_submission", "team": {"id": TEAM}, "user": {"id": self._me.id, "team_id": TEAM},
                      "trigger_id": secrets.token_hex(8),
                      "view": {"id": view["id"], "type": "modal", "callback_id": view.get("callback_id", ""),
                               "private_metadata": view.get("private_metadata", ""), "blocks": view.get("blocks") or [],
                               "state": {"values": values}}}
        request = AsyncBoltRequest(body=urlencode({"payload": json.dumps(submission)}),
                                   headers={"content-type": "application/x-www-form-urlencoded"})
        response = await self._runtime.app.async_dispatch(request)
        answer = json.loads(response.body) if response.body.startswith("{") else {}
        if answer.get("response_action") == "errors" and answer.get("errors"):
            return dict(answer["errors"])
        if answer.get("response_action") in ("update", "push") and answer.get("view"):
            self._slack.answer("views.update", {"view": answer["view"], "view_id": view["id"]})
        await self._runtime.tasks.drain(60)
        return {}

    async def _field(self, block: dict[str, Any]) -> dict[str, Any] | None:
        """One field's state as Slack sends it, {} when skipped, None at the end of input."""
        element = block["element"]
        kind = element.get("type")
        label = self._screen.read((block.get("label") or {}).get("text", ""))
        hint = text(self._screen.lang, "shell.optional") if block.get("optional") else ""
        while True:
            if kind in PICKED:
                options = tuple((self._screen.read(o["text"]["text"]), str(o["value"])) for o in element.get("options") or [])
                many = kind in MANY
                self._out.write(f"{label} {text(self._screen.lang, 'shell.pick_many' if many else 'shell.pick_one')}{hint}\n")
                for number, (option, _) in enumerate(options, start=1):
                    self._out.write(f"  {number}. {option}\n")
            else:
                self._out.write(f"{label} {text(self._screen.lang, 'shell.type_' + _typed(kind))}{hint}\n")
            line = await self._lines.ask("  > ")
            if line is None:
                return None
            line = line.strip()
            if not line:
                if block.get("optional"):
                    return _initial(kind, element)  # Slack sends an untouched field's value as drawn
                initial = element.get("initial_option")
                if initial:
                    return {"type": kind, "selected_option": initial}
                self._screen.say("shell.required")
                continue
            state = self._read_field(kind, line, element)
            if state is not None:
                return state
            self._screen.say("shell.not_understood")

    def _read_field(self, kind: str, line: str, element: dict[str, Any]) -> dict[str, Any] | None:
        if kind in PICKED:
            return _picked(kind, line, element.get("options") or [])
        if kind == "datepicker":
            return {"type": kind, "selected_date": line} if len(line) == 10 else None
        if kind == "multi_users_select":
            names = [word.lstrip("@") for word in line.replace(",", " ").split()]
            return {"type": kind, "selected_users": [self._slack.directory.person(name).id for name in names if name]}
        if kind in ("users_select", "conversations_select", "channels_select"):
            name = line.split()[0]
            found = self._slack.directory.channel(name[1:]) if name.startswith("#") else self._slack.directory.person(name.lstrip("@")).id
            key = {"users_select": "selected_user", "conversations_select": "selected_conversation"}.get(kind, "selected_channel")
            return {"type": kind, key: found}
        if kind == "datetimepicker":
            try:  # in the person's own zone, as Slack's picker reads it
                when = dt.datetime.strptime(line, "%Y-%m-%d %H:%M").replace(tzinfo=ZoneInfo(self._me.tz))
            except ValueError:
                return None
            return {"type": kind, "selected_date_time": int(when.timestamp())}
        return {"type": kind, "value": line}

    async def choose(self, options: tuple[tuple[str, str], ...]) -> int | None:
        for number, (label, _) in enumerate(options, start=1):
            self._out.write(f"  {number}. {label}\n")
        while (line := await self._lines.ask("  > ")) is not None:
            if line.strip().isdecimal() and 1 <= int(line) <= len(options):
                return int(line) - 1
            self._screen.say("shell.not_understood")
        return None


#: the fields answered by numbers among their options; those that take several
PICKED = ("static_select", "radio_buttons", "checkboxes", "multi_static_select")
MANY = ("checkboxes", "multi_static_select")


def _picked(kind: str, line: str, options: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The options picked by their numbers (`2`, `1, 3` for checkboxes), as Slack sends them; None when the numbers are not."""
    picked = [int(word) for word in line.replace(",", " ").split() if word.isdecimal()]
    if not picked or any(not 1 <= n <= len(options) for n in picked) or (kind not in MANY and len(picked) > 1):
        return None
    chosen = [options[n - 1] for n in dict.fromkeys(picked)]
    return {"type": kind, "selected_options": chosen} if kind in MANY else {"type": kind, "selected_option": chosen[0]}


def _initial(kind: str, element: dict[str, Any]) -> dict[str, Any]:
    """An optional field left as drawn, in the shape Slack sends it ({} when it was drawn empty)."""
    drawn = {"value": element.get("initial_value"), "selected_option": element.get("initial_option"),
             "selected_options": element.get("initial_options"), "selected_date": element.get("initial_date"),
             "selected_date_time": element.get("initial_date_time")}
    kept = {key: value for key, value in drawn.items() if value is not None}
    return {"type": kind, **kept} if kept else {}


def _typed(kind: str) -> str:
    """The catalog's hint for a field typed as text."""
    return {"multi_users_select": "people", "users_select": "person", "conversations_select": "channel",
            "channels_select": "channel", "datetimepicker": "when", "datepicker": "day"}.get(kind, "text")


def _no_file(block: dict[str, Any]) -> bool:
    """An optional file input: a terminal shares no Slack file, so the window goes without one."""
    return (block.get("element") or {}).get("type") == "file_input" and bool(block.get("optional"))
