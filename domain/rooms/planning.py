"""A room made now for a meeting later: the owner's place among their planned meetings reserved
before the room is made (without its storage a meeting could not be moved or cancelled: no room),
the room made, the meeting as it will be kept; and kept once everyone has it. Inviting and
reminding people is the surface's, which also says what Slack refused."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from redis.exceptions import RedisError

from clients.meetings import Meeting, Meetings, new_id
from clients.rooms.models import AccessLevel, Room
from clients.rooms.user_rooms import UserRooms
from clients.storage import degraded
from domain.rooms.meeting_times import wall_of
from domain.rooms.room_refs import room_link


@dataclass(frozen=True)
class Planning:
    """A planned room as asked, from the command or the modal, its start already checked."""

    start: dt.datetime
    zone: ZoneInfo  # the owner's: the calendar file's TZID, and what "weekly" keeps fixed
    minutes: int
    weekly: bool
    topic: str
    level: AccessLevel | None
    people: tuple[str, ...] = ()
    channel: str | None = None
    configuration: dict[str, Any] | None = None


@dataclass(frozen=True)
class Made:
    """The room made for a planned meeting, the meeting (not kept yet), and where it is joined."""

    room: Room
    meeting: Meeting
    link: str | None


async def make_meeting(meetings: Meetings, rooms: UserRooms, site: str, team_id: str, owner: str, email: str,
                       planning: Planning, now: dt.datetime) -> Made:
    """The room made as `owner` (whose e-mail is `email`); raises TooMany when they plan too many
    meetings already (nothing is made), and RedisError when the meetings' storage is down."""
    meeting_id = new_id()
    await meetings.reserve(team_id, owner, meeting_id, now)
    try:
        room = await rooms.create(email, planning.level, planning.configuration)
    except Exception:
        await meetings.release(team_id, owner, meeting_id)
        raise
    link, zone = room_link(room, site), planning.zone
    meeting = Meeting(id=meeting_id, team_id=team_id, owner=owner, room_id=room.id, room_slug=room.slug,
                      room_url=link, topic=planning.topic, starts_at=int(planning.start.timestamp()), minutes=planning.minutes,
                      zone=zone.key, weekly=planning.weekly, wall=wall_of(planning.start, zone.key) if planning.weekly else None,
                      channel=planning.channel, invitees=[person for person in planning.people if person != owner])
    return Made(room, meeting, link)


async def keep(meetings: Meetings, meeting: Meeting, now: dt.datetime) -> bool:
    """The meeting kept until it is over; False when its storage failed (the room, invitations,
    files and reminders are out: the owner is told what is missing)."""
    try:
        await meetings.save(meeting, now)
    except RedisError as error:
        degraded("planned meetings", error)
        return False
    return True

