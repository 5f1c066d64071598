"""What a planned room looks like: its time in each reader's language and time zone, the line
invitations carry, the reminder Slack delivers, and the notes to the owner."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from babel.dates import format_date
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    DateTimePickerElement,
    HeaderBlock,
    InputBlock,
    PlainTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from clients.meetings import Meeting
from clients.rooms.models import Room
from domain.rooms.calendar import CalendarWords
from handlers.blocks import Message, join_button, mrkdwn
from handlers.core import slack_refusals
from handlers.core.when import Problem
from handlers.i18n import Mrkdwn, clock, counted, escape, file_text, text, zone_words


def when_words(lang: str, meeting: Meeting, zone: ZoneInfo) -> str:
    """`jeudi 3 décembre 2026, 14:30–15:30 (heure de Paris)`, in the reader's zone and language;
    a weekly meeting says so."""
    start, end = meeting.start.astimezone(zone), meeting.end.astimezone(zone)
    hours = f"{clock(lang, start)}–{clock(lang, end)}"
    place = zone_words(lang, zone)
    day = format_date(start, "full", locale=lang)
    if meeting.weekly:
        return text(lang, "plan.when_weekly", weekday=format_date(start, "EEEE", locale=lang), hours=hours, zone=place, day=day)
    return text(lang, "plan.when_once", day=day, hours=hours, zone=place)


def title_of(lang: str, meeting: Meeting) -> str:
    """The topic as written, for what is not Slack text: a file's title, a calendar's summary."""
    return meeting.topic or text(lang, "plan.default_topic")


def calendar_words(lang: str, meeting: Meeting, room: Room | None, link: str | None) -> CalendarWords:
    """A calendar file's texts in `lang`: the topic, how to join; `room` (read again from the
    service) gives the dial-in and PIN."""
    lines = [file_text(lang, "plan.ics_join", link=link)] if link else []
    telephony = room.telephony if room else None
    if telephony and telephony.dial_in:
        lines.append(file_text(lang, "plan.ics_dial_in", number=telephony.phone_number, pin=telephony.pin_code or ""))
    return CalendarWords(summary=title_of(lang, meeting), description=lines)


def topic_of(lang: str, meeting: Meeting) -> Mrkdwn:
    """The topic inside Slack text, made inert."""
    return Mrkdwn(escape(title_of(lang, meeting)))


def when_line(lang: str, meeting: Meeting, zone: ZoneInfo) -> Mrkdwn:
    """The line a planned room's messages carry: topic and time."""
    return Mrkdwn(text(lang, "plan.line", topic=topic_of(lang, meeting), when=Mrkdwn(when_words(lang, meeting, zone))))


def reminder(lang: str, meeting: Meeting, zone: ZoneInfo, minutes: int) -> Message:
    """What Slack delivers `minutes` before the start, with the Join button."""
    words = counted(lang, "plan.reminder", minutes, topic=topic_of(lang, meeting), minutes=minutes,
                 at=clock(lang, meeting.start.astimezone(zone)))
    blocks: list[Block] = [SectionBlock(text=mrkdwn(words))]
    if meeting.room_url:
        blocks.append(ActionsBlock(elements=[join_button(lang, meeting.room_url)]))
    return Message(text=words, blocks=blocks)


def refused_reason(lang: str, code: str) -> str:
    """Why Slack refused a reminder or a file, in words."""
    if code in _SAID:
        return text(lang, f"plan.refused.{code}")
    return slack_refusals.reason(lang, code) if code in slack_refusals.CHANNEL_REFUSALS else text(lang, "plan.refused.other", code=code)


#: Slack's refusals of a reminder or a file said in words of their own (others: as for any post).
_SAID = frozenset({"restricted_too_many", "time_too_far", "time_in_past", "not_in_channel"})


def problem_words(lang: str, problem: Problem) -> str:
    return text(lang, problem.key, **{name: _said(lang, value) for name, value in problem.params.items()})


def _said(lang: str, value: object) -> object:
    """A day or an hour in a problem's words, as the language writes them."""
    if isinstance(value, dt.date):
        return format_date(value, "full", locale=lang)
    return clock(lang, value) if isinstance(value, dt.time) else value


CANCEL = "room_cancel"
RESCHEDULE = "room_reschedule"
RESCHEDULE_MODAL = "room_reschedule_modal"
STARTS_AT = "starts_at"
MOST_UPCOMING = 10


def upcoming_blocks(lang: str, zone: ZoneInfo, meetings: list[Meeting], viewer: str) -> list[Block]:
    """Home's "Upcoming": soonest first, each with Join; Move and Cancel for its owner."""
    if not meetings:
        return []
    blocks: list[Block] = [HeaderBlock(text=text(lang, "plan.upcoming"))]
    for meeting in meetings[:MOST_UPCOMING]:
        line = when_line(lang, meeting, zone)
        if meeting.owner != viewer:
            line = Mrkdwn(line + "\n" + text(lang, "plan.invited_by", owner=Mrkdwn(f"<@{meeting.owner}>")))
        blocks.append(SectionBlock(text=mrkdwn(line)))
        buttons: list[ButtonElement] = [join_button(lang, meeting.room_url, primary=False)] if meeting.room_url else []
        if meeting.owner == viewer:
            buttons.append(ButtonElement(text=text(lang, "plan.move"), action_id=RESCHEDULE, value=meeting.id))
            buttons.append(ButtonElement(
                text=text(lang, "plan.cancel"), action_id=CANCEL, value=meeting.id, style="danger",
                confirm=ConfirmObject(title=text(lang, "plan.cancel_title")[:100], text=text(lang, "plan.cancel_confirm"),
                                      confirm=text(lang, "plan.cancel"), deny=text(lang, "plan.keep"), style="danger")))
        if buttons:
            blocks.append(ActionsBlock(elements=buttons))
    if len(meetings) > MOST_UPCOMING:  # the rest come as these pass: say they exist
        blocks.append(ContextBlock(elements=[mrkdwn(counted(lang, "plan.upcoming_more", len(meetings) - MOST_UPCOMING))]))
    return blocks


def changed_notice(lang: str, meeting: Meeting, zone: ZoneInfo, *, cancelled: bool) -> Message:
    """What everyone reads when the owner cancels or moves the meeting."""
    key = "plan.cancelled" if cancelled else "plan.moved"
    words = text(lang, key, owner=Mrkdwn(f"<@{meeting.owner}>"), line=when_line(lang, meeting, zone))
    blocks: list[Block] = [SectionBlock(text=mrkdwn(words))]
    if not cancelled and meeting.room_url:
        blocks.append(ActionsBlock(elements=[join_button(lang, meeting.room_url)]))
    return Message(text=words, blocks=blocks)


def reschedule_modal(lang: str, meeting: Meeting) -> View:
    picker = DateTimePickerElement(action_id=STARTS_AT, initial_date_time=meeting.starts_at)
    return View(type="modal", callback_id=RESCHEDULE_MODAL, private_metadata=meeting.id,
                title=PlainTextObject(text=text(lang, "plan.move_title")[:24]),
                submit=PlainTextObject(text=text(lang, "plan.move")[:24]),
                close=PlainTextObject(text=text(lang, "dm.close")[:24]),
                blocks=[SectionBlock(text=mrkdwn(topic_of(lang, meeting))),
                        InputBlock(block_id=STARTS_AT, label=text(lang, "plan.starts_at")[:2000], element=picker)])
