"""What sharing a room looks like: the invitation in a channel or a DM, and the send-by-DM modal."""

from __future__ import annotations

import json
from dataclasses import dataclass

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    InputBlock,
    PlainTextInputElement,
    PlainTextObject,
    SectionBlock,
    UserMultiSelectElement,
)
from slack_sdk.models.views import View

from clients.rooms.models import Room
from domain.rooms.invitations import Invited
from domain.rooms.room_refs import room_link
from handlers.blocks import Message, join_button, link_mrkdwn, mrkdwn, plain
from handlers.core.room_messages import room_details
from handlers.i18n import Mrkdwn, escape, text

DM_MODAL = "room_send_dm_modal"
PEOPLE_BLOCK, PEOPLE_ACTION = "people", "people"
NOTE_BLOCK, NOTE_ACTION = "note", "note"
MAX_PEOPLE = 20
MAX_NOTE = 500


def invitation(lang: str, room: Room, site: str, inviter: str, note: str = "", when: Mrkdwn | None = None) -> Message:
    """The message others read: who invites them (and for when, for a planned room), the Join
    button, the level and the dial-in."""
    url = room_link(room, site)
    headline = text(lang, "share.invitation", inviter=Mrkdwn(f"<@{inviter}>"))
    lines = [f"*{headline}*"] + ([when] if when else [])
    if url:
        lines.append(link_mrkdwn(url))
    if note:
        lines.append("> " + escape(note).replace("\n", "\n> "))
    details = room_details(lang, room, owner=inviter)  # read by the people invited, not the owner
    blocks: list[Block] = [
        SectionBlock(
            text=mrkdwn("\n".join(lines)),
            accessory=join_button(lang, url) if url else None,
        ),
        ContextBlock(elements=[mrkdwn(" · ".join(details))]),
    ]
    return Message(text=f"{headline} {escape(url or room.slug)}", blocks=blocks)


@dataclass(frozen=True)
class DmTarget:
    """Carried through the modal's `private_metadata`: ids only, nothing secret."""

    room_id: str
    channel_id: str

    def dump(self) -> str:
        return json.dumps({"room": self.room_id, "channel": self.channel_id})

    @classmethod
    def load(cls, metadata: str) -> DmTarget:
        """Whatever comes back from Slack; a mangled value names no room (and is answered so)."""
        try:
            data = json.loads(metadata or "{}")
        except ValueError:
            data = {}
        if not isinstance(data, dict):
            data = {}
        return cls(room_id=str(data.get("room", "")), channel_id=str(data.get("channel", "")))


def dm_modal(lang: str, target: DmTarget) -> View:
    return View(
        type="modal",
        callback_id=DM_MODAL,
        private_metadata=target.dump(),
        title=PlainTextObject(text=text(lang, "dm.title")),
        submit=PlainTextObject(text=text(lang, "dm.submit")),
        close=PlainTextObject(text=text(lang, "dm.cancel")),
        blocks=[
            InputBlock(
                block_id=PEOPLE_BLOCK,
                label=text(lang, "dm.people_label"),
                element=UserMultiSelectElement(action_id=PEOPLE_ACTION, max_selected_items=MAX_PEOPLE,
                                               placeholder=text(lang, "dm.people_placeholder")),
            ),
            InputBlock(
                block_id=NOTE_BLOCK,
                label=text(lang, "dm.note_label"),
                optional=True,
                element=PlainTextInputElement(action_id=NOTE_ACTION, multiline=True, max_length=MAX_NOTE),
            ),
        ],
    )


def dm_progress(lang: str) -> View:
    return _notice_view(lang, [SectionBlock(text=mrkdwn(text(lang, "dm.sending")))])


def dm_result(lang: str, invited: Invited) -> Message:
    """Who received the link, and who did not and why."""
    sent, skipped = invited.sent, invited.skipped
    lines = [text(lang, "dm.sent", people=Mrkdwn(", ".join(f"<@{user}>" for user in sent)))] if sent else [text(lang, "dm.none_sent")]
    lines += [text(lang, "dm.skipped", person=Mrkdwn(f"<@{user}>"), reason=text(lang, f"dm.reason.{reason}")) for user, reason in skipped]
    return plain("\n".join(lines))


def dm_outcome(lang: str, message: Message) -> View:
    """The modal's last screen showing `message` (an outcome or an explanation)."""
    return _notice_view(lang, list(message.blocks))


def _notice_view(lang: str, blocks: list[Block]) -> View:
    return View(type="modal", title=PlainTextObject(text=text(lang, "dm.title")),
                close=PlainTextObject(text=text(lang, "dm.close")), blocks=blocks)


