"""A room about a message (the message shortcut): its invitation posted in that message's thread, or
the room given privately, with why, where the bot cannot post."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from handlers.blocks import Message, plain
from handlers.core import slack_refusals
from handlers.core.invitations import ALREADY, post_invitation
from handlers.core.room_messages import room_message
from handlers.i18n import text
from handlers.on_behalf import channel_of, reply_for, who
from handlers.services import Services

FROM_MESSAGE_SHORTCUT = "room_from_message"
CLICK_WINDOW = 600  # a second click within this makes no second room


def register(app: AsyncApp, services: Services) -> None:
    async def from_message(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient, respond: AsyncRespond) -> None:
        await ack()
        asker = who(body)
        channel = channel_of(body)
        message = body.get("message") or {}
        thread = str(message.get("thread_ts") or message.get("ts") or "")[:30] or None
        if not await services.once.claim_or_assume("from_message", asker.team_id, asker.user_id, channel[:30], thread or "",
                                                  ttl=CLICK_WINDOW):
            return  # a double click on the shortcut: the first one makes the room

        async def work(email: str, lang: str) -> Message | None:
            room = await services.rooms.create(email)
            refused = await post_invitation(services, client, room, asker.user_id, channel, lang, thread_ts=thread)
            if refused is None or refused == ALREADY:
                return None
            await services.once.release("share", room.id, channel)
            shown = room_message(lang, room, services.room_site, created=True, in_conversation=False)
            said = text(lang, "new.thread_not_postable", reason=slack_refusals.reason(lang, refused),
                        advice=slack_refusals.advice(lang, refused))
            return Message(text=shown.text, blocks=[*plain(said).blocks, *shown.blocks])

        await reply_for(services, client, respond, asker, name="from_message", work=work)

    app.shortcut(FROM_MESSAGE_SHORTCUT)(from_message)
