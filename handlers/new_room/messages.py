"""The new-room modal (level, who may publish what, moderation, where to post the invitation), and
how its answers and the service's field errors map onto each other."""

from __future__ import annotations

from typing import Any

from slack_sdk.models.blocks import (
    CheckboxesElement,
    ConversationSelectElement,
    DateTimePickerElement,
    InputBlock,
    Option,
    PlainTextInputElement,
    PlainTextObject,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from clients.rooms.models import PUBLISH_SOURCES, AccessLevel
from handlers.blocks import Message, view_input
from handlers.core.creation import Choice
from handlers.i18n import text

NEW_ROOM_MODAL = "room_new_modal"
LEVEL, PUBLISH, MUTE, POST_IN = "level", "publish", "mute", "post_in"  # block and action ids
STARTS_AT, TOPIC, WEEKLY = "starts_at", "topic", "weekly"  # a room for later
EVERYONE_CAN_MUTE = "everyone_can_mute"
MOST_TOPIC = 150




def new_room_modal(lang: str, levels: list[AccessLevel], channel: str | None = None) -> View:
    """Only the levels the room service accepts are offered; nothing ticked means its defaults. With
    `channel`, the room is to be posted there unless the person picks another (a team space's)."""
    options = [Option(value=level.value, text=text(lang, f"level_short.{level.value}")) for level in levels]
    sources = [Option(value=source, text=text(lang, f"source.{source}")) for source in PUBLISH_SOURCES]
    return View(
        type="modal",
        callback_id=NEW_ROOM_MODAL,
        title=PlainTextObject(text=text(lang, "new.title")[:24]),
        submit=PlainTextObject(text=text(lang, "new.submit")),
        close=PlainTextObject(text=text(lang, "new.cancel")),
        blocks=[
            InputBlock(block_id=LEVEL, label=text(lang, "new.level_label"),
                       element=StaticSelectElement(action_id=LEVEL, options=options, initial_option=options[0] if options else None)),
            InputBlock(block_id=PUBLISH, label=text(lang, "new.publish_label"), optional=True,
                       hint=text(lang, "new.publish_hint"), element=CheckboxesElement(action_id=PUBLISH, options=sources)),
            InputBlock(block_id=MUTE, label=text(lang, "new.mute_label"), optional=True,
                       element=CheckboxesElement(action_id=MUTE, options=[
                           Option(value=EVERYONE_CAN_MUTE, text=text(lang, "new.mute_option"))])),
            InputBlock(block_id=POST_IN, label=text(lang, "new.post_in_label"), optional=True,
                       element=ConversationSelectElement(action_id=POST_IN, initial_conversation=channel)),
            InputBlock(block_id=STARTS_AT, label=text(lang, "new.starts_at_label"), optional=True,
                       hint=text(lang, "new.starts_at_hint"), element=DateTimePickerElement(action_id=STARTS_AT)),
            InputBlock(block_id=TOPIC, label=text(lang, "new.topic_label"), optional=True,
                       element=PlainTextInputElement(action_id=TOPIC, max_length=MOST_TOPIC)),
            InputBlock(block_id=WEEKLY, label=text(lang, "new.weekly_label"), optional=True,
                       element=CheckboxesElement(action_id=WEEKLY, options=[
                           Option(value=WEEKLY, text=text(lang, "new.weekly_option"))])),
        ],
    )


def read_choice(view: dict[str, Any]) -> Choice:
    """The modal's answers, whatever Slack (or a forger) sent: unknown values are dropped."""
    level = str((view_input(view, LEVEL).get("selected_option") or {}).get("value", ""))
    sources = [source for source in PUBLISH_SOURCES if source in _ticked(view_input(view, PUBLISH))]
    configuration = ({"can_publish_sources": sources} if sources else {}) \
        | ({"everyone_can_mute": True} if EVERYONE_CAN_MUTE in _ticked(view_input(view, MUTE)) else {})
    post_in = view_input(view, POST_IN).get("selected_conversation")
    starts_at = view_input(view, STARTS_AT).get("selected_date_time")
    return Choice(
        level=AccessLevel(level) if level in AccessLevel.__members__.values() else None,
        configuration=configuration or None,
        post_in=str(post_in)[:30] if post_in else None,
        starts_at=str(starts_at)[:20] if starts_at is not None else None,
        topic=" ".join(str(view_input(view, TOPIC).get("value") or "").split())[:MOST_TOPIC],
        weekly=WEEKLY in _ticked(view_input(view, WEEKLY)),
    )


def _ticked(checkboxes: dict[str, Any]) -> list[str]:
    """The values of a checkbox field's ticked options (those that are options at all)."""
    return [str(option.get("value")) for option in checkboxes.get("selected_options") or [] if isinstance(option, dict)]


def field_errors(fields: dict[str, str], explained: Message) -> dict[str, str]:
    """The service's refusal shown on the modal's fields it concerns (`response_action: errors`)."""
    words = explained.text[:150]
    shown: dict[str, str] = {}
    if "access_level" in fields:
        shown[LEVEL] = words
    if "configuration" in fields:
        shown[MUTE if "everyone_can_mute" in fields["configuration"] else PUBLISH] = words
    return shown or {LEVEL: words}
