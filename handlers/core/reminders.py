"""Reminders Slack itself delivers (`chat.scheduleMessage`), so no bot process has to be running at
that minute, and calendar files sent with the files API. Neither ever fails the meeting: what Slack
refuses comes back as its code, for the owner's note."""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from clients.meetings import Meeting, Reminder
from domain.rooms.calendar import FILE_NAME
from domain.rooms.meeting_times import reminder_time
from handlers.core.meeting_messages import reminder
from handlers.core.slack_refusals import refusal_of
from handlers.i18n import Mrkdwn

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class Place:
    """Where a planned room's reminder goes (a DM or a channel), read in what language and zone."""

    channel: str
    lang: str
    zone: ZoneInfo
    label: Mrkdwn  # how the owner's note names it: <@U…> or <#C…>


async def schedule(client: AsyncWebClient, meeting: Meeting, place: Place, minutes: int, now: dt.datetime) -> Reminder | str | None:
    """The reminder Slack will post in `place`; Slack's refusal code; or None when it is too late
    for one."""
    post_at = reminder_time(meeting, minutes, now)
    if post_at is None:
        return None
    message = reminder(place.lang, meeting, place.zone, minutes)
    try:
        answer = await client.chat_scheduleMessage(channel=place.channel, post_at=int(post_at.timestamp()),
                                                   unfurl_links=False, **message.payload())
    except SlackApiError as error:
        code = str(error.response.get("error"))
        log.warning("Slack refused a planned room's reminder: %s", code)
        return code
    # an answer without its id (a bare `{ok: true}`) still means Slack holds the message
    return Reminder(channel=place.channel, id=str(answer.get("scheduled_message_id") or ""), post_at=int(post_at.timestamp()))


async def unschedule(client: AsyncWebClient, reminders: list[Reminder], now: dt.datetime) -> None:
    """Removes reminders not delivered yet; one already sent (or removed) is no longer Slack's to remove."""
    for pending in reminders:
        if pending.post_at <= now.timestamp() or not pending.id:
            continue
        try:
            await client.chat_deleteScheduledMessage(channel=pending.channel, scheduled_message_id=pending.id)
        except SlackApiError as error:
            if error.response.get("error") != "invalid_scheduled_message_id":
                log.warning("could not remove a planned room's reminder: %s", error.response.get("error"))


async def send_file(client: AsyncWebClient, channel: str, data: bytes, title: str) -> str | None:
    """Uploads a calendar file into `channel`; None when it went, else Slack's refusal code."""
    return await refusal_of(client.files_upload_v2(channel=channel, content=data, filename=FILE_NAME, title=title),
                            "a calendar file")
