"""The new-room modal: opened from the global shortcut or Home's "More options", answered within
Slack's 3 s (the service's refusals on the modal's fields), the room delivered by DM.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.models.blocks import PlainTextObject, SectionBlock
from slack_sdk.models.views import View
from slack_sdk.web.async_client import AsyncWebClient

from clients.rooms.errors import RoomRejected
from clients.rooms.models import Room
from domain.rooms.planning import Planning
from handlers.blocks import Message
from handlers.core.creation import Choice, deliver_new_room
from handlers.core.meeting_messages import problem_words
from handlers.core.planning import make_planned, owner_zone
from handlers.core.room_messages import HOME_NEW_ROOM_OPTIONS
from handlers.core.slack_refusals import attempted
from handlers.core.when import DEFAULT_MINUTES, start_problem
from handlers.i18n import text
from handlers.new_room.messages import NEW_ROOM_MODAL, STARTS_AT, field_errors, new_room_modal, read_choice
from handlers.on_behalf import Asker, language_quickly, run_for, who
from handlers.services import ROOM_WINDOW, Services

NEW_ROOM_SHORTCUT = "room_new_shortcut"

SUBMISSION_WINDOW = 600  # a modal submitted twice within this makes one room

ANSWER_IN_MODAL = 1.2  # seconds the creation may take and still answer on the modal's fields


def register(app: AsyncApp, services: Services) -> None:
    async def window_for(lang: str, channel: str) -> View:
        return new_room_modal(lang, await services.rooms.levels.offered(), channel)

    services.windows[ROOM_WINDOW] = window_for  # a team space's "Plan a team meeting" opens it for its channel

    async def open_modal(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)
        lang = await language_quickly(services, client, asker)  # the trigger lives 3 s
        await attempted(client.views_open(trigger_id=body["trigger_id"], view=new_room_modal(lang, await services.rooms.levels.offered())),
                        "views.open")

    async def submitted(ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient) -> None:
        asker = who(body)
        if not await services.once.claim_or_assume("view", str(view.get("id", ""))[:40], ttl=SUBMISSION_WINDOW):
            await ack()  # submitted again: the first submission makes the room
            return
        choice = read_choice(view)
        if choice.starts_at is not None:
            await _planned(services, client, asker, choice, ack, str(view.get("id", ""))[:40])
            return
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
        await deliver_new_room(services, client, asker, lang, rooms[0] if rooms else None, explained, choice)

    app.shortcut(NEW_ROOM_SHORTCUT)(open_modal)
    app.action(HOME_NEW_ROOM_OPTIONS)(open_modal)
    app.view(NEW_ROOM_MODAL)(submitted)


def _creating_view(lang: str) -> View:
    return View(type="modal", title=PlainTextObject(text=text(lang, "new.title")[:24]),
                close=PlainTextObject(text=text(lang, "dm.close")), blocks=[SectionBlock(text=text(lang, "new.creating"))])


async def _planned(services: Services, client: AsyncWebClient, asker: Asker, choice: Choice, ack: AsyncAck, view_id: str) -> None:
    """The modal with a start: a time that cannot be is answered on its field; then the meeting
    is planned after the ack (it sends many messages) and the owner gets the room by DM."""
    lang = await language_quickly(services, client, asker)
    problem = start_problem(choice.starts_at, dt.datetime.now(dt.UTC))
    if problem is not None:
        await services.once.release("view", view_id)
        await ack(response_action="errors", errors={STARTS_AT: problem_words(lang, problem)[:150]})
        return
    await ack()
    assert choice.starts_at is not None
    start = dt.datetime.fromtimestamp(int(choice.starts_at), dt.UTC)

    async def plan(email: str, lang: str) -> Message:
        planning = Planning(start, await owner_zone(services, client, asker), DEFAULT_MINUTES, choice.weekly, choice.topic,
                            choice.level, channel=choice.post_in, configuration=choice.configuration)
        return await make_planned(services, client, asker, email, lang, planning)

    _, message = await run_for(services, client, asker, name="new_modal_planned", work=plan)
    if message is not None:
        await attempted(client.chat_postMessage(channel=asker.user_id, **message.payload()), "DMing the planned room")
