"""The App Home tab: the person's rooms, a control to create one, and any problem in plain words."""

from __future__ import annotations

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    Option,
    SectionBlock,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from clients.room_models import AccessLevel, RoomPage
from handlers.i18n import text
from handlers.room_messages import (
    MAX_BLOCKS,
    Message,
    join_button,
    room_entry,
    room_link,
)

HOME_NEW_ROOM = "home_new_room"
MAX_VIEW_BLOCKS = 100


def home_view(lang: str, rooms: RoomPage | None, site: str, notice: Message | None = None) -> View:
    """`rooms` is None when they could not be read; `notice` says what just happened (or went wrong)."""
    blocks: list[Block] = [HeaderBlock(text=text(lang, "list.title")), _new_room_control(lang)]
    if notice is not None:
        blocks += notice.blocks
    if rooms is not None:
        blocks += _rooms(lang, rooms, site)
    return View(type="home", blocks=blocks[:MAX_VIEW_BLOCKS])


def _new_room_control(lang: str) -> ActionsBlock:
    options = [
        Option(value=level.value, text=f"{text(lang, 'home.new_room')} · {text(lang, f'level_short.{level.value}')}")
        for level in (AccessLevel.TRUSTED, AccessLevel.RESTRICTED, AccessLevel.PUBLIC)
    ]
    return ActionsBlock(elements=[StaticSelectElement(action_id=HOME_NEW_ROOM, placeholder=text(lang, "home.new_room"), options=options)])


def _rooms(lang: str, rooms: RoomPage, site: str) -> list[Block]:
    if not rooms.results:
        return [SectionBlock(text=MarkdownTextObject(text=text(lang, "list.empty")))]
    summary = text(lang, "home.summary", count=rooms.count, shown=len(rooms.results))
    blocks: list[Block] = [ContextBlock(elements=[MarkdownTextObject(text=summary)])]
    for room in rooms.results[:MAX_BLOCKS]:
        url = room_link(room, site)
        blocks.append(room_entry(lang, room, site, join_button(lang, url, primary=False) if url else None))
    return blocks
