"""Block Kit for rooms, lists and help, built with slack_sdk.models so Slack's limits are checked —
but a room's own message, the reply of every `/room new`, made as checked JSON (`handlers/blocks.py`)."""

from __future__ import annotations

import math

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    HeaderBlock,
    SectionBlock,
)

from clients.rooms.models import AccessLevel, Room, RoomPage
from domain.rooms.room_refs import room_link
from handlers.blocks import (
    MAX_BLOCKS,
    Message,
    actions_json,
    button_json,
    header_json,
    join_button_json,
    link_mrkdwn,
    mrkdwn,
    section_json,
)
from handlers.i18n import Mrkdwn, counted, escape, text

ACTION_SHARE_CHANNEL = "room_share_channel"
ACTION_SEND_DM = "room_send_dm"
ACTION_SHOW = "room_show"
ACTION_LIST_PAGE = "room_list_page"
#: Home's "More options…": opens the new-room window (new_room) from the Home tab (home)
HOME_NEW_ROOM_OPTIONS = "home_new_room_options"


def room_label(room: Room, site: str) -> Mrkdwn:
    """The room's slug, linked to the room when it has a link."""
    url = room_link(room, site)
    return link_mrkdwn(url, room.slug) if url else Mrkdwn(escape(room.slug))


def room_entry(lang: str, room: Room, site: str, accessory: ButtonElement | None) -> SectionBlock:
    """One line of a list of rooms: linked slug, level in a word, and a button beside it."""
    entry = text(lang, "list.entry", link=room_label(room, site), level=level_word(lang, room.access_level))
    return SectionBlock(text=mrkdwn(entry), accessory=accessory)


def level_sentence(lang: str, level: str, owner: str | None = None) -> str:
    """The level in words for the room's owner, or (with `owner`) for someone they invite, who will
    wait in the lobby until the owner lets them in."""
    prefix = "level_guest" if owner else "level"
    if level in AccessLevel.__members__.values():
        return text(lang, f"{prefix}.{level}", owner=Mrkdwn(f"<@{owner}>"))
    return text(lang, "level.other", level=level)


def level_word(lang: str, level: str) -> str:
    return text(lang, f"level_short.{level}") if level in AccessLevel.__members__.values() else escape(level)


def room_details(lang: str, room: Room, owner: str | None = None) -> list[str]:
    """The access level in words (for the owner, or for whoever `owner` invites), then the dial-in
    number and PIN when the room can be joined by phone."""
    details = [level_sentence(lang, room.access_level, owner)]
    telephony = room.telephony
    if telephony and telephony.dial_in and telephony.pin_code:
        details.append(text(lang, "room.dial_in", phone=telephony.phone_number, pin=_spaced(telephony.pin_code)))
    return details


def room_message(lang: str, room: Room, site: str, *, created: bool, in_conversation: bool = True) -> Message:
    """`in_conversation` is False where there is no channel to share into (the Home tab)."""
    url = room_link(room, site)
    title = text(lang, "room.ready") if created else text(lang, "room.title", name=room.slug)
    lines = [text(lang, "room.link", link=link_mrkdwn(url)) if url else text(lang, "room.no_link", slug=room.slug)]
    lines += room_details(lang, room)
    buttons = [button_json(text(lang, "button.send_dm"), ACTION_SEND_DM, value=room.id)]
    if in_conversation:
        buttons.insert(0, button_json(text(lang, "button.share_channel"), ACTION_SHARE_CHANNEL, value=room.id))
    if url:
        buttons.append(join_button_json(lang, url))
    # as checked JSON (handlers/blocks.py): the reply of every /room new, where slack_sdk's objects cost 55 µs of its 62
    blocks: list[Block] = [header_json(title), section_json("\n".join(lines)), actions_json("room", buttons)]
    return Message(text=f"{title}: {escape(url or room.slug)}", blocks=blocks)


def room_list_message(lang: str, rooms: RoomPage, page: int, site: str, recent: list[Room] | None = None) -> Message:
    """A page of the person's rooms. The service keeps rooms in the order of their random names, so
    a room made a minute ago is seldom on page 1: the first page starts with the rooms the bot made
    for the person lately (`recent`, as the service has them now), which no page shows again, and
    says in what order the rest comes. The count is the service's: each room once in all pages."""
    title = text(lang, "list.title")
    latest = recent or []
    if (rooms.count == 0 or not rooms.results) and not latest:
        return Message(text=title, blocks=[HeaderBlock(text=title), SectionBlock(text=mrkdwn(text(lang, "list.empty")))])
    more = _more_after(rooms, page, latest)
    pages = max(page + 1, math.ceil(rooms.count / rooms.page_size())) if more else page
    summary = counted(lang, "list.summary", rooms.count, page=page, pages=pages)
    blocks: list[Block] = [HeaderBlock(text=title), ContextBlock(elements=[mrkdwn(summary)])]
    shown = {room.id for room in latest}
    entries = (latest if page == 1 else []) + [room for room in rooms.results if room.id not in shown]
    for room in entries[: MAX_BLOCKS - 4]:
        details = ButtonElement(text=text(lang, "button.details"), action_id=ACTION_SHOW, value=room.id)
        blocks.append(room_entry(lang, room, site, details))
    if latest and page == 1 and rooms.count > len(latest):  # an order to explain only when others follow
        blocks.append(ContextBlock(elements=[mrkdwn(counted(lang, "list.order", len(latest), latest=len(latest)))]))
    if not entries:  # `/room list <n>` of a page holding only rooms made lately
        blocks.append(SectionBlock(text=mrkdwn(text(lang, "list.page_made_lately"))))
    return Message(text=f"{title} — {summary}", blocks=blocks + _paging(lang, page, more))


def _paging(lang: str, page: int, more: bool) -> list[Block]:
    """The Previous and Next buttons, those that lead somewhere."""
    paging = []
    if page > 1:
        paging.append(ButtonElement(text=text(lang, "button.previous"), action_id=f"{ACTION_LIST_PAGE}_previous", value=str(page - 1)))
    if more:
        paging.append(ButtonElement(text=text(lang, "button.next"), action_id=f"{ACTION_LIST_PAGE}_next", value=str(page + 1)))
    return [ActionsBlock(elements=paging)] if paging else []


def _more_after(rooms: RoomPage, page: int, latest: list[Room]) -> bool:
    """Whether a later page shows a room: the service's next pages may hold only rooms made lately,
    which page 1 showed already. Those past this page are the ones not on it — on page 1 all of
    them; further on, those whose name comes after this page's last, as the service orders by name."""
    if not rooms.next or not rooms.results:
        return bool(rooms.next)
    after = rooms.count - page * len(rooms.results)  # the pages before were as full as this one
    here = {room.id for room in rooms.results}
    last = max(_name(room) for room in rooms.results)
    later = [room for room in latest if room.id not in here and (page == 1 or _name(room) > last)]
    return after > len(later)


def _name(room: Room) -> str:
    return room.name or room.slug


def help_message(lang: str, lead: str | None = None) -> Message:
    title = text(lang, "help.title")
    blocks: list[Block] = []
    if lead:
        blocks.append(SectionBlock(text=mrkdwn(lead)))
    blocks += [
        HeaderBlock(text=title),
        SectionBlock(text=mrkdwn(text(lang, "help.body"))),
        ContextBlock(elements=[mrkdwn(text(lang, "help.levels"))]),
    ]
    return Message(text=lead or title, blocks=blocks)


def _spaced(pin: str) -> str:
    """Groups digits by three or four so a PIN is easy to read aloud."""
    digits = pin.strip()
    size = 4 if len(digits) > 6 else 3
    return " ".join(digits[i : i + size] for i in range(0, len(digits), size))
