"""Posting a room's invitation, once per room and place: into a conversation, or to people by
direct message, each in their own language. Sharing's buttons and every new-room path use it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from clients.rooms.models import Room
from handlers.core.sharing_messages import invitation
from handlers.core.slack_refusals import CHANNEL_REFUSALS, attempted, refusal_of
from handlers.i18n import Mrkdwn
from handlers.on_behalf import Asker
from handlers.profiles import Profile, language_of, profile_or_none
from handlers.services import Services

SHARE_WINDOW = 60  # seconds during which the same room is not shared twice to one place

# chat.postMessage errors meaning "the bot may not post there", as opposed to a real failure
NOT_POSTABLE = CHANNEL_REFUSALS | {"cannot_dm_bot"}

# Direct messages go out a few at a time: conversations.open is tier 3 (50+/min).
DM_CONCURRENCY = 4

ALREADY = "already"


async def post_invitation(
    services: Services, client: AsyncWebClient, room: Room, inviter: str, channel: str, lang: str, *, thread_ts: str | None = None,
    when: Mrkdwn | None = None,
) -> str | None:
    """Posts `room`'s invitation in `channel` (in a thread when `thread_ts`), once per room and place;
    None when it went out, ALREADY when it had, else Slack's reason the bot may not post there (the
    claim is kept: the caller may post another way, or release it)."""
    claim = ("share", room.id, channel)
    if not await services.once.claim(*claim, ttl=SHARE_WINDOW):
        return ALREADY
    message = invitation(lang, room, services.room_site, inviter, when=when)
    try:
        await client.chat_postMessage(channel=channel, unfurl_links=False, thread_ts=thread_ts, **message.payload())
        return None
    except SlackApiError as error:
        code = str(error.response.get("error"))
        if code not in NOT_POSTABLE:
            await services.once.release(*claim)
            raise
        return code


#: For a planned room: the invitation's time line in a person's language and time zone.
WhenFor = Callable[[str, str | None], Mrkdwn]
#: For a planned room: what follows an invitation sent (person, DM channel, profile): its calendar file, its reminder.
AfterSent = Callable[[str, str, Profile], Awaitable[None]]


async def send_invitations(
    services: Services, client: AsyncWebClient, asker: Asker, room: Room, people: list[str], note: str = "",
    *, when: WhenFor | None = None, then: AfterSent | None = None,
) -> tuple[list[str], list[tuple[str, str]]]:
    """Sends the invitation to each person, in their own language; says who was skipped and why."""
    team_id, inviter = asker.team_id, asker.user_id
    limit = asyncio.Semaphore(DM_CONCURRENCY)

    async def one(person: str) -> str | None:
        """None when sent, else the reason it was not."""
        if person == inviter:
            return "self"
        async with limit:
            profile = await profile_or_none(client, services.profiles, team_id, person)
            if profile is None:
                return "unreachable"
            if profile.is_bot:
                return "bot"
            if profile.deleted:
                return "deactivated"
            if not await services.once.claim("dm", room.id, person, ttl=SHARE_WINDOW):
                return "already"
            lang = language_of(profile, services.default_language)
            message = invitation(lang, room, services.room_site, inviter, note, when(lang, profile.tz) if when else None)
            opened = await attempted(client.conversations_open(users=person), "opening a DM with a person")
            if opened is None or await refusal_of(client.chat_postMessage(channel=opened["channel"]["id"], unfurl_links=False,
                                                                          **message.payload()), "DMing a person"):
                await services.once.release("dm", room.id, person)
                return "unreachable"
            if then is not None:
                await then(person, opened["channel"]["id"], profile)
            return None

    unique = list(dict.fromkeys(people))
    reasons = await asyncio.gather(*(one(person) for person in unique))
    sent = [person for person, reason in zip(unique, reasons, strict=True) if reason is None]
    skipped = [(person, reason) for person, reason in zip(unique, reasons, strict=True) if reason is not None]
    return sent, skipped

