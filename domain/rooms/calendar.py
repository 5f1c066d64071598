"""The calendar file (`.ics`, RFC 5545) each person gets with a planned room, its updates and its
cancellation: one UID per meeting, a SEQUENCE raised by each change, the start in the owner's time
zone (with its VTIMEZONE), the room link as LOCATION and, with the dial-in and PIN, in the
description. Written by the `icalendar` library: escaping, folding and time zones are its job."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from clients.meetings import Meeting
from clients.rooms.models import Room
from handlers.core.meeting_messages import title_of
from handlers.i18n import file_text

FILE_NAME = "meeting.ics"


def calendar_file(lang: str, meeting: Meeting, room: Room | None, link: str | None, *, now: dt.datetime,
                  cancelled: bool = False) -> bytes:
    """The file for `meeting`; `room` (read again from the service) gives the dial-in and PIN."""
    import icalendar  # 60 ms and 4 MiB (with dateutil) that `serve` needs only once a meeting is planned

    zone = ZoneInfo(meeting.zone)
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//roombot//La Suite Meet//EN")
    calendar.add("version", "2.0")
    calendar.add("method", "CANCEL" if cancelled else "PUBLISH")
    event = icalendar.Event()
    event.add("uid", meeting.uid)
    event.add("dtstamp", now.astimezone(dt.UTC))
    event.add("dtstart", meeting.start.astimezone(zone))
    event.add("duration", dt.timedelta(minutes=meeting.minutes))
    event.add("summary", title_of(lang, meeting))
    event.add("sequence", meeting.sequence)
    if meeting.weekly:
        event.add("rrule", {"freq": "weekly"})
    if cancelled:
        event.add("status", "CANCELLED")
    if link:
        event.add("location", link)
        event.add("url", link)
    event.add("description", "\n".join(_description(lang, link, room)))
    calendar.add_component(event)
    first = meeting.start.astimezone(zone).date()
    calendar.add_missing_timezones(first_date=first - dt.timedelta(days=1), last_date=first + dt.timedelta(days=400))
    return bytes(calendar.to_ical())


def _description(lang: str, link: str | None, room: Room | None) -> list[str]:
    lines = [file_text(lang, "plan.ics_join", link=link)] if link else []
    telephony = room.telephony if room else None
    if telephony and telephony.dial_in:
        lines.append(file_text(lang, "plan.ics_dial_in", number=telephony.phone_number, pin=telephony.pin_code or ""))
    return lines
