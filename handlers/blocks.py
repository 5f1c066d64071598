"""Block Kit primitives every message builder shares: a reply, its limits, links, the Join button.

Built with slack_sdk.models, which checks Slack's limits as a message is turned into JSON (its
checks found once per class here: `_validate_json`). Every mrkdwn text is sent `verbatim`: Slack
then turns no bare URL, channel name or mention in it into a link, so text from a service or a
person (a démarche title, an AI line, an error's words) shows as written; the bot's own links and
mentions are written out in full (`<url|label>`, `<@U…>`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_sdk.models.basic_objects import JsonObject
from slack_sdk.models.blocks import Block, ButtonElement, MarkdownTextObject, SectionBlock

from handlers.i18n import Mrkdwn, escape, text

ACTION_OPEN = "room_open"

_VALIDATORS: dict[type, tuple[str, ...]] = {}


def _validate_json(self: JsonObject) -> None:
    """slack_sdk's `JsonObject.validate_json`, with each class's validators found once.

    slack_sdk looks for them with `dir()` on every object each time it becomes JSON: 77 % of the
    CPU a message costs (20 blocks with buttons, a `/room list` of ten rooms: 7.9 ms → 1.8 ms).
    Validators are methods of the class, so the same ones run, in the same (sorted) order, and
    raise the same `SlackObjectFormationError`."""
    kind = type(self)
    names = _VALIDATORS.get(kind)
    if names is None:
        names = _VALIDATORS[kind] = tuple(name for name in dir(kind)
                                          if not name.startswith("__") and hasattr(getattr(kind, name, None), "validator"))
    for name in names:
        getattr(self, name)()


JsonObject.validate_json = _validate_json  # type: ignore[method-assign]

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000


@dataclass(frozen=True)
class Message:
    """A reply: notification text plus blocks, ready for `respond(**message.payload())`."""

    text: str
    blocks: list[Block]

    def payload(self, **extra: Any) -> dict[str, Any]:
        assert len(self.blocks) <= MAX_BLOCKS, "builders must keep under Slack's 50-block cap"
        return {"text": self.text, "blocks": [block.to_dict() for block in self.blocks], **extra}


def mrkdwn(words: str) -> MarkdownTextObject:
    return MarkdownTextObject(text=words, verbatim=True)


def plain(lang_text: str) -> Message:
    """One section of text, cut to Slack's limit (a builder's slip must not cost the answer)."""
    shown = lang_text if len(lang_text) <= MAX_SECTION_TEXT else lang_text[: MAX_SECTION_TEXT - 1] + "…"
    return Message(text=shown, blocks=[SectionBlock(text=mrkdwn(shown))])


def link_mrkdwn(url: str, label: str | None = None) -> Mrkdwn:
    """`<url|label>`; a `|` in the address is percent-encoded, or the service would pick the label."""
    return Mrkdwn(f"<{escape(url.replace('|', '%7C'))}|{escape(label or url)}>")


def join_button(lang: str, url: str, *, primary: bool = True) -> ButtonElement:
    return ButtonElement(text=text(lang, "button.open"), action_id=ACTION_OPEN, url=url, style="primary" if primary else None)
