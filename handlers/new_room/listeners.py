"""Rooms from anywhere in Slack: the new-room modal (global shortcut, Home), a room about a message
(message shortcut), invitations in one `/room new` line, and a Workflow Builder step.

Every path acks within 3 s, acts for the person whose Slack profile gives the e-mail (never an
input), answers in their language, and creates one room per submission or request.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.context.complete.async_complete import AsyncComplete
from slack_bolt.context.fail.async_fail import AsyncFail
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import ContextBlock, PlainTextObject, SectionBlock
from slack_sdk.models.views import View
from slack_sdk.web.async_client import AsyncWebClient

from clients.rooms.errors import RoomRejected
from clients.rooms.models import AccessLevel, Room
from handlers import refusals
from handlers.blocks import Message, mrkdwn, plain
from handlers.dedupe import first_delivery
from handlers.home.messages import HOME_NEW_ROOM_OPTIONS
from handlers.i18n import Mrkdwn, text
from handlers.new_room.messages import NEW_ROOM_MODAL, Choice, field_errors, new_room_modal, read_choice
from handlers.on_behalf import Asker, reply_for, run_for, who
from handlers.rooms.messages import room_link, room_message
from handlers.services import Services
from handlers.sharing.buttons import ALREADY, channel_of, language_quickly, post_invitation, send_invitations
from handlers.sharing.messages import dm_result

log = logging.getLogger(__name__)

NEW_ROOM_SHORTCUT = "room_new_shortcut"
FROM_MESSAGE_SHORTCUT = "room_from_message"
CREATE_ROOM_FUNCTION = "create_room"
SUBMISSION_WINDOW = 600  # a modal submitted twice within this makes one room
ANSWER_IN_MODAL = 1.2  # seconds the creation may take and still answer on the modal's fields


def register(app: AsyncApp, services: Services) -> None:
    async def open_modal(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)
        lang = await language_quickly(services, client, asker)  # the trigger lives 3 s
        try:
            await client.views_open(trigger_id=body["trigger_id"], view=new_room_modal(lang, await services.rooms.levels.offered()))
        except SlackApiError as error:
            log.warning("views.open failed: %s", error.response.get("error"))

    async def submitted(ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient) -> None:
        asker = who(body)
        if not await services.once.claim_or_assume("view", str(view.get("id", ""))[:40], ttl=SUBMISSION_WINDOW):
            await ack()  # submitted again: the first submission makes the room
            return
        choice = read_choice(view)
        rejected: list[RoomRejected] = []
        rooms: list[Room] = []

        async def create(email: str, lang: str) -> Message | None:
            try:
                rooms.append(await services.rooms.create(email, choice.level, choice.configuration))
            except RoomRejected as error:
                rejected.append(error)
                raise
            return None

        # Slack waits 3 s for the answer, network included: the answer is due ANSWER_IN_MODAL after
        # this point whatever is slow, so the language is looked up beside the creation, not after it
        language = asyncio.ensure_future(language_quickly(services, client, asker))
        making = asyncio.ensure_future(run_for(services, client, asker, name="new_modal", work=create))
        done, _ = await asyncio.wait({making}, timeout=ANSWER_IN_MODAL)
        if done and rejected:
            _, explained = making.result()
            await services.once.release("view", str(view.get("id", ""))[:40])
            assert explained is not None
            await ack(response_action="errors", errors=field_errors(rejected[0].fields, explained))
            return
        if done:
            await ack()
        else:  # slow: say so on the modal, and deliver by DM when the room exists
            lang = language.result() if language.done() else services.default_language
            await ack(response_action="update", view=_creating_view(lang))
        lang, explained = await making
        await _deliver_new_room(services, client, asker, lang, rooms[0] if rooms else None, explained, choice)

    async def from_message(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient, respond: AsyncRespond) -> None:
        await ack()
        asker = who(body)
        channel = channel_of(body)
        message = body.get("message") or {}
        thread = str(message.get("thread_ts") or message.get("ts") or "")[:30] or None
        if not await services.once.claim_or_assume("from_message", asker.user_id, channel[:30], thread or "",
                                                  ttl=SUBMISSION_WINDOW):
            return  # a double click on the shortcut: the first one makes the room

        async def work(email: str, lang: str) -> Message | None:
            room = await services.rooms.create(email)
            refused = await post_invitation(services, client, room, asker.user_id, channel, lang, thread_ts=thread)
            if refused is None or refused == ALREADY:
                return None
            await services.once.release("share", room.id, channel)
            shown = room_message(lang, room, services.room_site, created=True, in_conversation=False)
            said = text(lang, "new.thread_not_postable", reason=refusals.reason(lang, refused), advice=refusals.advice(lang, refused))
            return Message(text=shown.text, blocks=[*plain(said).blocks, *shown.blocks])

        await reply_for(services, client, respond, asker, name="from_message", work=work)

    async def create_room_step(inputs: dict[str, Any], complete: AsyncComplete, fail: AsyncFail, client: AsyncWebClient,
                               body: dict[str, Any]) -> None:
        if not await first_delivery(services, body):
            return
        team = str(body.get("team_id") or (body.get("event") or {}).get("team_id") or "")
        owner = str(inputs.get("owner") or "")
        wanted = str(inputs.get("access_level") or "").strip().lower()
        rooms: list[Room] = []

        async def work(email: str, lang: str) -> Message | None:
            if wanted and wanted not in AccessLevel.__members__.values():
                return plain(text(lang, "usage.bad_level", level=wanted[:40]))
            rooms.append(await services.rooms.create(email, AccessLevel(wanted) if wanted else None))
            return None

        _, explained = await run_for(services, client, Asker(team, owner), name="workflow_step", work=work)
        if rooms:
            room = rooms[0]
            url = room_link(room, services.room_site) or ""
            await complete(outputs={"room_url": url, "room_id": room.id, "access_level": room.access_level})
        else:
            await fail(error=explained.text if explained else "no room")

    app.shortcut(NEW_ROOM_SHORTCUT)(open_modal)
    app.action(HOME_NEW_ROOM_OPTIONS)(open_modal)
    app.view(NEW_ROOM_MODAL)(submitted)
    app.shortcut(FROM_MESSAGE_SHORTCUT)(from_message)
    app.function(CREATE_ROOM_FUNCTION)(create_room_step)


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
    notes = await _invite(services, client, asker, lang, room, list(people), channel)
    return _with_notes(shown, notes)


async def _deliver_new_room(
    services: Services, client: AsyncWebClient, asker: Asker, lang: str, room: Room | None, explained: Message | None,
    choice: Choice,
) -> None:
    """The room message (with its buttons) in the person's DM with the bot, then the invitation
    where they asked; or the explanation of what went wrong."""
    if room is None:
        message = explained or plain(text(lang, "error.unavailable"))
    else:
        shown = room_message(lang, room, services.room_site, created=True, in_conversation=False)
        message = _with_notes(shown, await _invite(services, client, asker, lang, room, [], choice.post_in))
    try:
        await client.chat_postMessage(channel=asker.user_id, **message.payload())
    except SlackApiError as error:
        log.warning("could not DM the new room: %s", error.response.get("error"))


async def _invite(
    services: Services, client: AsyncWebClient, asker: Asker, lang: str, room: Room, people: list[str], channel: str | None
) -> list[str]:
    """Sends `room` to `people` and posts it in `channel`; lines saying what happened."""
    notes: list[str] = []
    if people:
        sent, skipped = await send_invitations(services, client, asker, room, people)
        notes.append(dm_result(lang, sent, skipped).text)
    if channel:
        refused = await post_invitation(services, client, room, asker.user_id, channel, lang)
        where = Mrkdwn(f"<#{channel}>")
        if refused is None or refused == ALREADY:
            notes.append(text(lang, "new.posted_in", channel=where))
        else:
            await services.once.release("share", room.id, channel)
            notes.append(text(lang, "new.not_posted_in", channel=where, reason=refusals.reason(lang, refused),
                              advice=refusals.advice(lang, refused)))
    return notes


def _with_notes(message: Message, notes: list[str]) -> Message:
    if not notes:
        return message
    return Message(text=message.text, blocks=[*message.blocks, ContextBlock(elements=[mrkdwn("\n".join(notes)[:2900])])])


def _creating_view(lang: str) -> View:
    return View(type="modal", title=PlainTextObject(text=text(lang, "new.title")[:24]),
                close=PlainTextObject(text=text(lang, "dm.close")), blocks=[SectionBlock(text=text(lang, "new.creating"))])
