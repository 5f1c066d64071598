"""The console's screen: Slack's messages and views printed as a person reads them in Slack.

Links as their label and address, mentions as names, bold as bold on a terminal, emoji as a
terminal shows them, each block's words, and buttons and menus numbered so that typing the
number uses them (the numbered `controls` are what the shell looks up). Apart from the Web API
answers (console_slack) because it is how things look, not what Slack answers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, TextIO

from bot.commands.console_directory import Directory
from bot.commands.tables import CONTROL
from handlers.i18n import text

_ESCAPE = re.compile(r"<([^<>]+)>")
_BOLD = re.compile(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])")
_CODE = re.compile(r"`([^`\n]+)`")
_ITALIC = re.compile(r"(?<![\w_])_([^_\n]+)_(?![\w_])")
_EMOJI = re.compile(r":([a-z0-9_+-]+):")
#: the emoji the bot's texts use, as a terminal can show them (another stays as typed)
EMOJI = {"white_check_mark": "✅", "warning": "⚠️", "sparkles": "✨", "eyes": "👀", "bell": "🔔", "wrench": "🔧",
         "calendar": "📅", "x": "❌", "hourglass_flowing_sand": "⏳"}


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


class Screen:
    """What the console prints, in the person's language; the controls shown so far, numbered from 1."""

    def __init__(self, directory: Directory, lang: str, out: TextIO, *, styled: bool = False) -> None:
        self.directory, self.lang, self._out, self._styled = directory, lang, out, styled
        self.controls: list[Control] = []

    def say(self, key: str, **values: object) -> None:
        """One of the shell's own lines, from the catalog."""
        self.write(self.read(text(self.lang, key, **values)))

    def show(self, where: str, message: dict[str, Any], *, view_id: str | None = None) -> None:
        """A message or a view as text: its blocks' words, each control numbered."""
        lines = [f"--- {where}"]
        blocks = message.get("blocks")
        blocks = json.loads(blocks) if isinstance(blocks, str) else blocks or []
        if not blocks and message.get("text"):
            lines.append(self.read(str(message["text"])))
        for block in blocks:
            lines += self.block_lines(block, view_id)
        self.write("\n".join(line for line in lines if line))

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
        elif kind == "overflow" and all(o.get("url") for o in element.get("options") or []):  # links only: nothing to press
            return "⋯ " + " · ".join(f"{self.read(o['text']['text'])} ({o['url']})" for o in element["options"])
        else:
            return f"[{label}]"
        self.controls.append(control)
        return f"[{len(self.controls)}] {label}"

    def read(self, mrkdwn: str) -> str:
        return readable(mrkdwn, self.directory, styled=self._styled)

    def write(self, line: str) -> None:
        self._out.write(line + "\n")
        self._out.flush()
