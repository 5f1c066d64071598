"""A new room delivered: to its owner (with what went where), to the people and the channel they named."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import ContextBlock
from slack_sdk.web.async_client import AsyncWebClient

from clients.rooms.models import AccessLevel, Room
from handlers.blocks import Message, mrkdwn, plain
from handlers.core import slack_refusals
from handlers.core.invitations import ALREADY, AfterSent, WhenFor, post_invitation, send_invitations
from handlers.core.room_messages import room_message
from handlers.core.sharing_messages import dm_result
from handlers.i18n import Mrkdwn, text
from handlers.on_behalf import Asker
from handlers.services import Services


@dataclass(frozen=True)
class Choice:
    """What the person asked for in the modal."""

    level: AccessLevel | None
    configuration: dict[str, Any] | None
    post_in: str | None
    starts_at: str | None = None  # the picker's Unix time, unchecked; None: a room for now
    topic: str = ""
    weekly: bool = False


async def create_and_invite(
    services: Services,
    client: AsyncWebClient,
    asker: Asker,
    email: str,
    lang: str,
    *,
    level: AccessLevel | None,
    people: tuple[str, ...],
    channel: str | None,
) -> Message:
    """`/room new [level] [@someone …] [#channel]`: the room, sent to those people and posted there;
    the reply says what went where."""
    room = await services.rooms.create(email, level)
    shown = room_message(lang, room, services.room_site, created=True)
    notes = await invite(services, client, asker, lang, room, list(people), channel)
    return with_notes(shown, notes)


@dataclass(frozen=True)
class Planned:
    """What a planned room adds to its invitations: the time line in each reader's language and
    zone, and what follows each delivery (its calendar file, its reminder)."""

    when: WhenFor
    in_channel: Mrkdwn
    after_dm: AfterSent
    after_channel: Callable[[str], Awaitable[None]]


async def deliver_new_room(
    services: Services, client: AsyncWebClient, asker: Asker, lang: str, room: Room | None, explained: Message | None,
    choice: Choice,
) -> None:
    """The room message (with its buttons) in the person's DM with the bot, then the invitation
    where they asked; or the explanation of what went wrong."""
    if room is None:
        message = explained or plain(text(lang, "error.unavailable"))
    else:
        shown = room_message(lang, room, services.room_site, created=True, in_conversation=False)
        message = with_notes(shown, await invite(services, client, asker, lang, room, [], choice.post_in))
    await slack_refusals.attempted(client.chat_postMessage(channel=asker.user_id, **message.payload()), "DMing the new room")


async def invite(
    services: Services, client: AsyncWebClient, asker: Asker, lang: str, room: Room, people: list[str], channel: str | None,
    planned: Planned | None = None,
) -> list[str]:
    """Sends `room` to `people` and posts it in `channel`; lines saying what happened."""
    notes: list[str] = []
    if people:
        invited = await send_invitations(services, client, asker, room, people, when=planned.when if planned else None,
                                    then=planned.after_dm if planned else None)
        notes.append(dm_result(lang, invited).text)
    if channel:
        refused = await post_invitation(services, client, room, asker.user_id, channel, lang,
                                        when=planned.in_channel if planned else None)
        where = Mrkdwn(f"<#{channel}>")
        if refused is None and planned is not None:
            await planned.after_channel(channel)
        if refused is None or refused == ALREADY:
            notes.append(text(lang, "new.posted_in", channel=where))
        else:
            await services.once.release("share", room.id, channel)
            notes.append(text(lang, "new.not_posted_in", channel=where, reason=slack_refusals.reason(lang, refused),
                              advice=slack_refusals.advice(lang, refused)))
    return notes


def with_notes(message: Message, notes: list[str]) -> Message:
    if not notes:
        return message
    return Message(text=message.text, blocks=[*message.blocks, ContextBlock(elements=[mrkdwn("\n".join(notes)[:2900])])])

