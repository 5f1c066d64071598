"""The App Home tab: the person's rooms, a control to create one, and any problem in plain words."""

from __future__ import annotations

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    HeaderBlock,
    Option,
    SectionBlock,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from clients.rooms.models import AccessLevel, Room, RoomPage
from domain.rooms.room_refs import room_link
from handlers.blocks import MAX_BLOCKS, Message, join_button, mrkdwn
from handlers.core.room_messages import HOME_NEW_ROOM_OPTIONS, room_entry
from handlers.i18n import counted, text

HOME_NEW_ROOM = "home_new_room"
MAX_VIEW_BLOCKS = 100


def home_view(
    lang: str,
    rooms: RoomPage | None,
    site: str,
    notices: list[Message],
    *,
    recent: list[Room],
    levels: list[AccessLevel],
    upcoming: list[Block] | None = None,
    settings: list[Block] | None = None,
) -> View:
    """`rooms` is None when they could not be read; `notices` say what just happened (or went
    wrong); `recent` are the rooms the bot made for the person lately (as the service has them
    now), shown first; `settings` (an administrator's) come last, kept whatever the number of rooms."""
    blocks: list[Block] = [
        HeaderBlock(text=text(lang, "list.title")),
        _new_room_control(lang, levels),
        SectionBlock(text=mrkdwn(text(lang, "new.publish_label") + " · " + text(lang, "new.mute_label")),
                     accessory=ButtonElement(
            text=text(lang, "home.new_room_options"), action_id=HOME_NEW_ROOM_OPTIONS)),
    ]
    for notice in notices:
        blocks += notice.blocks
    blocks += upcoming or []
    if rooms is not None:
        blocks += _rooms(lang, rooms, recent, site)
    tail = settings or []
    return View(type="home", blocks=blocks[:MAX_VIEW_BLOCKS - len(tail)] + tail)


def _new_room_control(lang: str, levels: list[AccessLevel]) -> ActionsBlock:
    options = [
        Option(value=level.value, text=f"{text(lang, 'home.new_room')} · {text(lang, f'level_short.{level.value}')}")
        for level in levels
    ]
    return ActionsBlock(elements=[StaticSelectElement(action_id=HOME_NEW_ROOM, placeholder=text(lang, "home.new_room"), options=options)])


def _rooms(lang: str, rooms: RoomPage, recent: list[Room], site: str) -> list[Block]:
    """The rooms made lately, then the service's first page without them; the count says how
    many of all are shown (the service's count holds each room once)."""
    if not rooms.results and not recent:
        return [SectionBlock(text=mrkdwn(text(lang, "list.empty")))]
    recent_ids = {room.id for room in recent}
    ordered = (recent + [room for room in rooms.results if room.id not in recent_ids])[:MAX_BLOCKS]
    shown, count = len(ordered), max(rooms.count, len(ordered))
    summary = counted(lang, "home.summary_all", count) if shown == count else text(lang, "home.summary", count=count, shown=shown)
    blocks: list[Block] = [ContextBlock(elements=[mrkdwn(summary)])]
    for room in ordered:
        url = room_link(room, site)
        blocks.append(room_entry(lang, room, site, join_button(lang, url, primary=False) if url else None))
    return blocks
