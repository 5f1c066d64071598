"""`/room new … at 14:30 tomorrow "Budget"`: a room made now for a meeting later.

The start is checked before the room is made (a typo costs nothing). Then everyone gets the room
with its time in their own language and time zone, and a calendar file; Slack is asked to deliver
each person's and the channel's reminder; the bot keeps the meeting (for Home's "Upcoming", a
cancellation or a move) until it is over. What Slack refuses is told to the owner in words, once,
in the reply. The room and the meeting are the rooms wing's (domain/rooms/planning.py); this is
their delivery on Slack.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from slack_sdk.web.async_client import AsyncWebClient

from clients.meetings import MOST_OWNED, Reminder, TooMany
from clients.rooms.models import AccessLevel
from domain.rooms.calendar import calendar_file
from domain.rooms.meeting_times import zone_named
from domain.rooms.planning import Planning, keep, make_meeting
from handlers.blocks import Message, plain
from handlers.core.creation import Planned, invite, with_notes
from handlers.core.meeting_messages import calendar_words, problem_words, refused_reason, title_of, when_line
from handlers.core.reminders import Place, schedule, send_file
from handlers.core.room_messages import room_message
from handlers.core.slack_refusals import attempted
from handlers.core.when import Plan, Problem, start_of
from handlers.i18n import Mrkdwn, text
from handlers.on_behalf import Asker
from handlers.profiles import Profile, language_of, profile_or_none
from handlers.services import Services


async def owner_zone(services: Services, client: AsyncWebClient, asker: Asker) -> ZoneInfo:
    owner = await profile_or_none(client, services.profiles, asker.team_id, asker.user_id)
    return zone_named(owner.tz if owner else None, services.zone)


async def plan_room(
    services: Services, client: AsyncWebClient, asker: Asker, email: str, lang: str, *,
    plan: Plan, level: AccessLevel | None, people: tuple[str, ...], channel: str | None,
) -> Message:
    """`/room new … at …`: the typed time read in the owner's zone, then the meeting planned."""
    zone = await owner_zone(services, client, asker)
    start = start_of(plan, dt.datetime.now(dt.UTC), zone)
    if isinstance(start, Problem):
        return plain(problem_words(lang, start))
    planning = Planning(start, zone, plan.minutes, plan.weekly, plan.topic, level, people, channel)
    return await make_planned(services, client, asker, email, lang, planning)


async def make_planned(services: Services, client: AsyncWebClient, asker: Asker, email: str, lang: str,
                       planning: Planning) -> Message:
    """The room made, everyone invited with the time, files and reminders; the owner's reply."""
    now, zone = dt.datetime.now(dt.UTC), planning.zone
    try:
        made = await make_meeting(services.meetings, services.rooms, services.room_site, asker.team_id, asker.user_id, email,
                                  planning, now)
    except TooMany:
        return plain(text(lang, "plan.too_many", most=MOST_OWNED))
    room, meeting, link = made.room, made.meeting, made.link
    channel = planning.channel
    refused: list[tuple[str, Mrkdwn, str]] = []  # (what, where, Slack's code)

    async def deliver(place: Place) -> None:
        """The calendar file and the reminder for one place."""
        data = calendar_file(meeting, link, calendar_words(place.lang, meeting, room, link), now=now)
        code = await send_file(client, place.channel, data, title_of(place.lang, meeting))
        if code is not None:
            refused.append(("plan.no_file", place.label, code))
        scheduled = await schedule(client, meeting, place, services.reminder_minutes, now)
        if isinstance(scheduled, Reminder):
            meeting.reminders.append(scheduled)
        elif scheduled is not None:
            refused.append(("plan.no_reminder", place.label, scheduled))

    async def after_dm(person: str, dm: str, profile: Profile) -> None:
        reader_zone = zone_named(profile.tz, services.zone)
        await deliver(Place(dm, language_of(profile, services.default_language), reader_zone, Mrkdwn(f"<@{person}>")))

    async def after_channel(posted_in: str) -> None:
        await deliver(Place(posted_in, lang, zone, Mrkdwn(f"<#{posted_in}>")))

    planned = Planned(when=lambda reader_lang, tz: when_line(reader_lang, meeting, zone_named(tz, services.zone)),
                      in_channel=when_line(lang, meeting, zone), after_dm=after_dm, after_channel=after_channel)
    notes = await invite(services, client, asker, lang, room, meeting.invitees, channel, planned)
    own = await attempted(client.conversations_open(users=asker.user_id), "opening the owner's DM for a planned room")
    if own is not None:
        await deliver(Place(own["channel"]["id"], lang, zone, Mrkdwn(f"<@{asker.user_id}>")))
    if not await keep(services.meetings, meeting, now):
        notes.append(text(lang, "plan.not_kept"))
    notes += [text(lang, what, place=place, reason=refused_reason(lang, code)) for what, place, code in refused]
    shown = room_message(lang, room, services.room_site, created=True)
    return with_notes(_planned(shown, when_line(lang, meeting, zone)), notes)


def _planned(message: Message, when: Mrkdwn) -> Message:
    """The owner's room message, its time and topic first."""
    return Message(text=f"{when}\n{message.text}", blocks=[*plain(when).blocks, *message.blocks])
