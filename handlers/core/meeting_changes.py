"""A planned room's changes told on Slack (what changes, and when, is the rooms wing's:
domain/rooms/meeting_changes.py). Each change reaches the same places as the invitation did — the
owner's and each invitee's DM, the channel — with a notice, a calendar file of the same UID and a
higher SEQUENCE, and reminders replaced; a person who left the workspace is skipped."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from slack_sdk.web.async_client import AsyncWebClient

from clients.meetings import Meeting, Reminder
from clients.rooms.models import Room
from domain.rooms.calendar import calendar_file
from domain.rooms.meeting_changes import roll_weekly
from domain.rooms.meeting_times import zone_named
from handlers.blocks import Message, plain
from handlers.core.meeting_messages import calendar_words, refused_reason, title_of, when_line
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
        data = calendar_file(meeting, meeting.room_url, calendar_words(place.lang, meeting, room, meeting.room_url), now=now,
                             cancelled=cancelled)
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


@dataclass
class Announcements:
    """The rooms wing's `Announcer` on Slack (domain/rooms/meeting_changes.py decides; this tells):
    each place's notice (`notice`; none for a weekly roll), calendar file and reminder."""

    services: Services
    client: AsyncWebClient
    notice: Notice | None = None
    places: list[Place] = field(default_factory=list)  # where the last announcement went

    async def withdraw(self, reminders: list[Reminder], now: dt.datetime) -> None:
        await unschedule(self.client, reminders, now)

    async def announce(self, meeting: Meeting, room: Room | None, now: dt.datetime, *, cancelled: bool) -> Refused:
        self.places = await places_of(self.services, self.client, meeting)
        notice = self.notice
        if notice is not None:
            await tell(self.client, self.places, lambda place: notice(place, meeting))
        await send_files(self.client, self.places, meeting, room, now, cancelled=cancelled)
        return [] if cancelled else await self.remind(meeting, now, again=False)

    async def remind(self, meeting: Meeting, now: dt.datetime, *, again: bool = True) -> Refused:
        if again:
            self.places = await places_of(self.services, self.client, meeting)
        return await remind(self.client, self.places, meeting, self.services.reminder_minutes, now)

    async def rolled(self, meeting: Meeting, refused: Refused) -> None:
        if not refused:
            return
        owner = next((place for place in self.places if place.label == f"<@{meeting.owner}>"), None)
        if owner is not None:
            lines = [text(owner.lang, "plan.no_reminder", place=place, reason=refused_reason(owner.lang, code))
                     for place, code in refused]
            await tell(self.client, [owner], lambda place: plain("\n".join([when_line(place.lang, meeting, place.zone), *lines])))


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
                due.append((f"weekly meeting {meeting.id}", functools.partial(
                    roll_weekly, self.services.meetings, self.services.once, meeting, Announcements(self.services, client), now)))
        return due
