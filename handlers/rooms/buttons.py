"""Buttons on room messages: details, list paging and the Join link (sharing is in `share`)."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from clients.rooms.errors import RoomGone, RoomNotFound
from handlers.blocks import ACTION_OPEN, Message
from handlers.core.room_messages import ACTION_LIST_PAGE, ACTION_SHOW
from handlers.on_behalf import reply_for, who
from handlers.rooms.command import List, Show, answer, page_number
from handlers.services import Services


def register(app: AsyncApp, services: Services) -> None:
    async def show_room(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond, client: AsyncWebClient) -> None:
        await ack()
        request = Show(ref=action.get("value", ""), room_id=action.get("value", ""))

        async def details(email: str, lang: str) -> Message:
            try:
                return await answer(services, request, email, lang)
            except RoomNotFound as error:  # the button's room existed: it was deleted since
                raise RoomGone(str(error), error.ref) from None

        await reply_for(services, client, respond, who(body), name="show", work=details)

    async def list_page(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond, client: AsyncWebClient) -> None:
        await ack()
        request = List(page_number(action.get("value", "")) or 1)
        await reply_for(services, client, respond, who(body), name="list", replace_original=True,
                        work=lambda email, lang: answer(services, request, email, lang))

    async def open_link(ack: AsyncAck) -> None:
        await ack()  # a link button still sends an action; without an ack Slack shows a warning

    app.action(ACTION_SHOW)(show_room)
    app.action(re.compile(f"^{ACTION_LIST_PAGE}_"))(list_page)
    app.action(ACTION_OPEN)(open_link)
