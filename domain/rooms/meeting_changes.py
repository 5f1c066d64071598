"""A planned room after it was made: cancelled or moved by its owner, and a weekly one carried to
its next week. Each change happens once, under the meeting's lock and on the meeting as it is now
(a move that ran meanwhile, a cancellation that did): a cancelled meeting stays cancelled, and
nobody is told twice. Telling people — the notices, the calendar files of the same UID and a
higher SEQUENCE, the reminders — is the surface's (`Announcer`), which reaches the places the
invitation did."""

from __future__ import annotations

import datetime as dt
from typing import Protocol, TypeVar

from clients.meetings import Meeting, Meetings, Reminder
from clients.once import Once
from clients.rooms.models import Room
from domain.rooms.meeting_times import next_week, wall_of

#: what the surface says was refused when it reminded people (where, and why), handed back as is
Refused = TypeVar("Refused")


class Announcer(Protocol[Refused]):
    """The surface's half of a change: it reaches the meeting's people and places."""

    async def withdraw(self, reminders: list[Reminder], now: dt.datetime) -> None:
        """Reminders not delivered yet, removed."""

    async def announce(self, meeting: Meeting, room: Room | None, now: dt.datetime, *, cancelled: bool) -> Refused:
        """Everyone told of `meeting` as it now is, with its calendar file, and (unless cancelled) reminded again."""

    async def remind(self, meeting: Meeting, now: dt.datetime) -> Refused:
        """Everyone's reminder of `meeting`'s start (its `reminders` replaced)."""

    async def rolled(self, meeting: Meeting, refused: Refused) -> None:
        """A weekly meeting carried to its next week: the owner told what was refused, if anything."""


async def cancel(meetings: Meetings, meeting: Meeting, announcer: Announcer[Refused], now: dt.datetime) -> bool:
    """Reminders removed, everyone told with a cancelling calendar file, the meeting forgotten.
    False when it was gone already (cancelled meanwhile)."""
    async with meetings.changing(meeting.team_id, meeting.id):
        current = await meetings.get(meeting.team_id, meeting.id)  # as it is now: a move may have just run
        if current is None:
            return False
        await announcer.withdraw(current.reminders, now)
        current.sequence += 1
        await announcer.announce(current, None, now, cancelled=True)
        await meetings.remove(current)
        return True


async def move(meetings: Meetings, meeting: Meeting, start: dt.datetime, room: Room | None, announcer: Announcer[Refused],
               now: dt.datetime) -> Refused | None:
    """The start changed, the reminders replaced, everyone told with an updated calendar file; what
    the reminders met. None when the meeting was cancelled meanwhile."""
    async with meetings.changing(meeting.team_id, meeting.id):
        current = await meetings.get(meeting.team_id, meeting.id)
        if current is None:
            return None
        await announcer.withdraw(current.reminders, now)
        current.starts_at, current.sequence = int(start.timestamp()), current.sequence + 1
        if current.weekly:
            current.wall = wall_of(start, current.zone)
        refused = await announcer.announce(current, room, now, cancelled=False)
        await meetings.save(current, now)
        return refused


async def roll_weekly(meetings: Meetings, once: Once, meeting: Meeting, announcer: Announcer[Refused], now: dt.datetime) -> None:
    """A weekly meeting whose occurrence has started: its next one, with its reminders (Slack
    keeps none more than 120 days ahead, and this runs every week). Once per occurrence, whichever
    process comes first."""
    if not await once.claim("roll", meeting.team_id, meeting.id, str(meeting.starts_at), ttl=7 * 86400):
        return  # another process carried it
    async with meetings.changing(meeting.team_id, meeting.id):
        current = await meetings.get(meeting.team_id, meeting.id)
        if current is None or current.starts_at != meeting.starts_at:
            return  # cancelled, or moved, meanwhile
        start = current.start
        while start <= now:
            start = next_week(start, current.zone, current.wall)
        current.starts_at = int(start.timestamp())
        refused = await announcer.remind(current, now)
        await meetings.save(current, now)
    await announcer.rolled(current, refused)  # said to the owner once per week: the claim above is per occurrence
