"""Posting a room's invitation, once per room and place: into a conversation, or to people by
direct message, each in their own language (who is invited and skipped is the rooms wing's:
domain/rooms/invitations.py; this is its Slack courier). Sharing's buttons and every new-room
path use it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from clients.rooms.models import Room
from domain.rooms.invitations import SHARE_WINDOW, Invited, invite_people
from handlers.core.sharing_messages import invitation
from handlers.core.slack_refusals import CHANNEL_REFUSALS, attempted, refusal_of
from handlers.i18n import Mrkdwn
from handlers.on_behalf import Asker
from handlers.profiles import Profile, language_of, profile_or_none
from handlers.services import Services

# chat.postMessage errors meaning "the bot may not post there", as opposed to a real failure
NOT_POSTABLE = CHANNEL_REFUSALS | {"cannot_dm_bot"}

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


@dataclass(frozen=True)
class _DirectMessages:
    """The wing's Courier on Slack: a person's profile, the invitation in their language by DM."""

    services: Services
    client: AsyncWebClient
    asker: Asker
    room: Room
    note: str
    when: WhenFor | None
    then: AfterSent | None

    async def recipient(self, person: str) -> Profile | None:
        return await profile_or_none(self.client, self.services.profiles, self.asker.team_id, person)

    async def deliver(self, person: str, recipient: Profile) -> bool:
        lang = language_of(recipient, self.services.default_language)
        when = self.when(lang, recipient.tz) if self.when else None
        message = invitation(lang, self.room, self.services.room_site, self.asker.user_id, self.note, when)
        opened = await attempted(self.client.conversations_open(users=person), "opening a DM with a person")
        if opened is None or await refusal_of(self.client.chat_postMessage(channel=opened["channel"]["id"], unfurl_links=False,
                                                                           **message.payload()), "DMing a person"):
            return False
        if self.then is not None:
            await self.then(person, opened["channel"]["id"], recipient)
        return True


async def send_invitations(
    services: Services, client: AsyncWebClient, asker: Asker, room: Room, people: list[str], note: str = "",
    *, when: WhenFor | None = None, then: AfterSent | None = None,
) -> Invited:
    """Sends the invitation to each person, in their own language; says who was skipped and why."""
    courier = _DirectMessages(services, client, asker, room, note, when, then)
    return await invite_people(services.once, room.id, asker.user_id, people, courier)
