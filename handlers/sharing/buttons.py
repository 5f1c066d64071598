"""Sharing a room: into the conversation it was shown in, or by direct message to chosen people.

Each share happens once per room and destination within a short window (a Redis claim), so a
double click or a repeated delivery posts nothing twice.
"""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from clients.rooms.models import is_room_id
from handlers.blocks import Message, plain, view_input
from handlers.core import slack_refusals
from handlers.core.invitations import ALREADY, post_invitation, send_invitations
from handlers.core.room_messages import ACTION_SEND_DM, ACTION_SHARE_CHANNEL, room_label
from handlers.core.sharing_messages import (
    DM_MODAL,
    MAX_PEOPLE,
    NOTE_ACTION,
    NOTE_BLOCK,
    PEOPLE_ACTION,
    PEOPLE_BLOCK,
    DmTarget,
    dm_modal,
    dm_outcome,
    dm_progress,
    dm_result,
    invitation,
)
from handlers.i18n import Mrkdwn, quoted, text
from handlers.on_behalf import channel_of, language_quickly, reply_for, reply_privately, respond_ok, run_for, who
from handlers.services import Services


def register(app: AsyncApp, services: Services) -> None:
    async def share_in_channel(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond,
                               client: AsyncWebClient) -> None:
        await ack()
        user_id, channel = who(body).user_id, channel_of(body)

        async def work(email: str, lang: str) -> Message | None:
            room = await services.rooms.get(email, action.get("value", ""))
            refused = await post_invitation(services, client, room, user_id, channel, lang)
            if refused is None:
                return plain(text(lang, "share.posted", channel=Mrkdwn(f"<#{channel}>")))
            if refused == ALREADY:
                return plain(text(lang, "share.already"))
            # A private channel or a DM the bot is not in: post as the person, through response_url.
            message = invitation(lang, room, services.room_site, user_id)
            if await respond_ok(respond, message, response_type="in_channel", replace_original=False):
                return None
            await services.once.release("share", room.id, channel)
            return plain(text(lang, "share.cannot_post", reason=slack_refusals.reason(lang, refused),
                              advice=slack_refusals.advice(lang, refused), link=room_label(room, services.room_site)))

        await reply_for(services, client, respond, who(body), name="share_channel", work=work)

    async def open_dm_modal(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient,
                            respond: AsyncRespond) -> None:
        await ack()
        asker = who(body)
        user_id = asker.user_id
        lang = await language_quickly(services, client, asker)  # the trigger lives 3 s
        value = str(action.get("value", ""))
        if not is_room_id(value):  # a forged button: no modal for a room that cannot exist
            await reply_privately(client, respond, user_id, plain(text(lang, "error.room_not_found", ref=quoted(value))))
            return
        target = DmTarget(room_id=value, channel_id=channel_of(body))
        opened = await slack_refusals.attempted(client.views_open(trigger_id=body["trigger_id"], view=dm_modal(lang, target)), "views.open")
        if opened is None:
            await reply_privately(client, respond, user_id, plain(text(lang, "dm.modal_failed")))

    async def send_dms(ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient) -> None:
        people: list[str] = view_input(view, PEOPLE_BLOCK, PEOPLE_ACTION).get("selected_users") or []
        note: str = str(view_input(view, NOTE_BLOCK, NOTE_ACTION).get("value") or "").strip()
        asker = who(body)
        user_id = asker.user_id
        lang = await language_quickly(services, client, asker)  # ack is due within 3 s
        if not people or len(people) > MAX_PEOPLE:
            await ack(response_action="errors", errors={PEOPLE_BLOCK: text(lang, "dm.choose_people", most=MAX_PEOPLE)})
            return
        await ack(response_action="update", view=dm_progress(lang))
        target = DmTarget.load(view.get("private_metadata", ""))

        async def work(email: str, lang: str) -> Message:
            room = await services.rooms.get(email, target.room_id)
            return dm_result(lang, await send_invitations(services, client, asker, room, people, note))

        lang, message = await run_for(services, client, asker, name="send_dm", work=work)
        if message is None:
            return
        if await slack_refusals.attempted(client.views_update(view_id=view["id"], view=dm_outcome(lang, message)), "views.update") is None:
            # the person closed the window meanwhile: tell them in the app's DM
            await slack_refusals.attempted(client.chat_postMessage(channel=user_id, **message.payload()), "DMing what was shared")

    app.action(ACTION_SHARE_CHANNEL)(share_in_channel)
    app.action(ACTION_SEND_DM)(open_dm_modal)
    app.view(DM_MODAL)(send_dms)

