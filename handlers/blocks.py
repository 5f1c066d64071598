"""Block Kit primitives every message builder shares: a reply, its limits, links, the Join button.

Built with slack_sdk.models, which checks Slack's limits as a message is turned into JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import Block, ButtonElement, MarkdownTextObject, SectionBlock

from handlers.i18n import Mrkdwn, escape, text

ACTION_OPEN = "room_open"

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


def plain(lang_text: str) -> Message:
    """One section of text, cut to Slack's limit (a builder's slip must not cost the answer)."""
    shown = lang_text if len(lang_text) <= MAX_SECTION_TEXT else lang_text[: MAX_SECTION_TEXT - 1] + "…"
    return Message(text=shown, blocks=[SectionBlock(text=MarkdownTextObject(text=shown))])


def link_mrkdwn(url: str, label: str | None = None) -> Mrkdwn:
    return Mrkdwn(f"<{escape(url)}|{escape(label or url)}>")


def join_button(lang: str, url: str, *, primary: bool = True) -> ButtonElement:
    return ButtonElement(text=text(lang, "button.open"), action_id=ACTION_OPEN, url=url, style="primary" if primary else None)
