"""A planned room after it was made: cancelled or moved by its owner, and a weekly one carried to
its next week. Each change reaches the same places as the invitation did — the owner's and each
invitee's DM, the channel — with a notice, a calendar file of the same UID and a higher SEQUENCE,
and reminders replaced; a person who left the workspace is skipped."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from slack_sdk.web.async_client import AsyncWebClient

from clients.meetings import Meeting, Reminder
from clients.rooms.models import Room
from handlers.blocks import Message, plain
from handlers.core.calendar import calendar_file
from handlers.core.meeting_messages import refused_reason, title_of, when_line, zone_named
from handlers.core.reminders import Place, schedule, send_file, unschedule
from handlers.core.slack_refusals import attempted
from handlers.i18n import Mrkdwn, text
from handlers.profiles import language_of, profile_or_none
from handlers.services import Services
from handlers.workspace_access import Workspaces

Notice = Callable[[Place, Meeting], Message]  # what a place is told of the meeting as it now is


async def places_of(services: Services, client: AsyncWebClient, meeting: Meeting) -> list[Place]:
    """Where `meeting`'s messages go: each person's DM (in their language and zone), then the
    channel (in the owner's)."""
    found: list[Place] = []
    owner_lang, owner_zone = services.default_language, zone_named(meeting.zone, services.zone)
    for person in meeting.people:
        profile = await profile_or_none(client, services.profiles, meeting.team_id, person)
        if profile is None or profile.deleted or profile.is_bot:
            continue
        lang = language_of(profile, services.default_language)
        if person == meeting.owner:
            owner_lang = lang
        opened = await attempted(client.conversations_open(users=person), "opening a DM for a planned room")
        if opened is None:
            continue
        found.append(Place(opened["channel"]["id"], lang, zone_named(profile.tz, services.zone), Mrkdwn(f"<@{person}>")))
    if meeting.channel:
        found.append(Place(meeting.channel, owner_lang, owner_zone, Mrkdwn(f"<#{meeting.channel}>")))
    return found


async def tell(client: AsyncWebClient, places: list[Place], notice: Callable[[Place], Message]) -> None:
    for place in places:
        await attempted(client.chat_postMessage(channel=place.channel, unfurl_links=False, **notice(place).payload()),
                        "telling a planned room's change")


async def send_files(client: AsyncWebClient, places: list[Place], meeting: Meeting, room: Room | None, now: dt.datetime,
                     *, cancelled: bool = False) -> None:
    for place in places:
        data = calendar_file(place.lang, meeting, room, meeting.room_url, now=now, cancelled=cancelled)
        await send_file(client, place.channel, data, title_of(place.lang, meeting))


Refused = list[tuple[Mrkdwn, str]]  # (the place, Slack's code)


async def remind(client: AsyncWebClient, places: list[Place], meeting: Meeting, minutes: int, now: dt.datetime) -> Refused:
    """Schedules each place's reminder of `meeting`'s (next) start; Slack's refusals, by place."""
    refused: Refused = []
    meeting.reminders = []
    for place in places:
        scheduled = await schedule(client, meeting, place, minutes, now)
        if isinstance(scheduled, Reminder):
            meeting.reminders.append(scheduled)
        elif scheduled is not None:
            refused.append((place.label, scheduled))
    return refused


async def cancel(services: Services, client: AsyncWebClient, meeting: Meeting, notice: Notice, now: dt.datetime) -> bool:
    """Reminders removed, everyone told with a cancelling calendar file, the meeting forgotten.
    False when it was gone already (cancelled meanwhile): nobody is told twice."""
    async with services.meetings.changing(meeting.team_id, meeting.id):
        current = await services.meetings.get(meeting.team_id, meeting.id)  # as it is now: a move may have just run
        if current is None:
            return False
        await unschedule(client, current.reminders, now)
        current.sequence += 1
        places = await places_of(services, client, current)
        await tell(client, places, lambda place: notice(place, current))
        await send_files(client, places, current, None, now, cancelled=True)
        await services.meetings.remove(current)
        return True


async def move(services: Services, client: AsyncWebClient, meeting: Meeting, start: dt.datetime, room: Room | None,
               notice: Notice, now: dt.datetime) -> Refused | None:
    """The start changed, the reminders replaced, everyone told with an updated calendar file.
    None when the meeting was cancelled meanwhile: a cancelled meeting stays cancelled."""
    async with services.meetings.changing(meeting.team_id, meeting.id):
        current = await services.meetings.get(meeting.team_id, meeting.id)
        if current is None:
            return None
        await unschedule(client, current.reminders, now)
        current.starts_at, current.sequence = int(start.timestamp()), current.sequence + 1
        if current.weekly:
            current.wall = wall_of(start, current.zone)
        places = await places_of(services, client, current)
        await tell(client, places, lambda place: notice(place, current))
        await send_files(client, places, current, room, now)
        refused = await remind(client, places, current, services.reminder_minutes, now)
        await services.meetings.save(current, now)
        return refused


def wall_of(start: dt.datetime, zone_name: str) -> str:
    """A series' wall-clock time in its zone ("HH:MM")."""
    return start.astimezone(zone_named(zone_name, "UTC")).strftime("%H:%M")


def next_week(start: dt.datetime, zone_name: str, wall: str | None = None) -> dt.datetime:
    """The occurrence a week after `start`: the series' wall-clock time (`wall`; else `start`'s)
    on the same weekday, in the owner's zone. A time that a clock change skips that day is read as
    a calendar reads the file's weekly rule (RFC 5545: with the offset before the change, so 02:30
    becomes 03:30); the week after, it is 02:30 again. A time that happens twice is the first."""
    zone = zone_named(zone_name, "UTC")
    local = start.astimezone(zone)
    hours, minutes = (int(part) for part in (wall or local.strftime("%H:%M")).split(":"))
    day = local.date() + dt.timedelta(days=7)
    return dt.datetime(day.year, day.month, day.day, hours, minutes, tzinfo=zone).astimezone(dt.UTC)


async def roll_weekly(services: Services, client: AsyncWebClient, meeting: Meeting, now: dt.datetime) -> None:
    """A weekly meeting whose occurrence has started: its next one, with its reminders (Slack
    keeps none more than 120 days ahead, and this runs every week)."""
    if not await services.once.claim("roll", meeting.team_id, meeting.id, str(meeting.starts_at), ttl=7 * 86400):
        return  # another process carried it
    async with services.meetings.changing(meeting.team_id, meeting.id):
        current = await services.meetings.get(meeting.team_id, meeting.id)
        if current is None or current.starts_at != meeting.starts_at:
            return  # cancelled, or moved, meanwhile
        start = current.start
        while start <= now:
            start = next_week(start, current.zone, current.wall)
        current.starts_at = int(start.timestamp())
        places = await places_of(services, client, current)
        refused = await remind(client, places, current, services.reminder_minutes, now)
        await services.meetings.save(current, now)
    if refused:  # said to the owner once per week: the claim above is per occurrence
        owner = next((place for place in places if place.label == f"<@{current.owner}>"), None)
        if owner is not None:
            lines = [text(owner.lang, "plan.no_reminder", place=place, reason=refused_reason(owner.lang, code))
                     for place, code in refused]
            await tell(client, [owner], lambda place: plain("\n".join([when_line(place.lang, current, place.zone), *lines])))


@dataclass(frozen=True)
class WeeklyMeetings:
    """For the scheduler: the weekly meetings whose occurrence has started, each carried to its
    next week (by one process: the others find it claimed)."""

    services: Services
    workspaces: Workspaces

    async def due(self, now: dt.datetime) -> list[tuple[str, Callable[[], Awaitable[object]]]]:
        due: list[tuple[str, Callable[[], Awaitable[object]]]] = []
        for meeting in await self.services.meetings.weekly_due(now):
            client = await self.workspaces.client(meeting.team_id)
            if client is not None:  # None: the workspace uninstalled the app, its meetings go with it
                due.append((f"weekly meeting {meeting.id}", functools.partial(roll_weekly, self.services, client, meeting, now)))
        return due
