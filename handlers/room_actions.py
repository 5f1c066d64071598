"""Buttons on room messages: details, list paging and the Join link (sharing is in `share`)."""

from __future__ import annotations

import re

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from handlers.on_behalf import reply_for
from handlers.room_messages import (
    ACTION_LIST_PAGE,
    ACTION_OPEN,
    ACTION_SHOW,
    Message,
    room_list_message,
    room_message,
)
from handlers.services import Services


def register(app: AsyncApp, services: Services) -> None:
    async def show_room(ack: AsyncAck, body: dict, action: dict, respond: AsyncRespond, client: AsyncWebClient) -> None:
        await ack()
        room_id = action.get("value", "")

        async def work(email: str, lang: str) -> Message:
            room = await services.rooms.get(email, room_id)
            return room_message(lang, room, services.room_site, created=False)

        await reply_for(services, client, respond, **_who(body), name="show", work=work, ref=room_id)

    async def list_page(ack: AsyncAck, body: dict, action: dict, respond: AsyncRespond, client: AsyncWebClient) -> None:
        await ack()
        value = action.get("value", "")
        page = int(value) if value.isdecimal() and int(value) >= 1 else 1

        async def work(email: str, lang: str) -> Message:
            return room_list_message(lang, await services.rooms.list(email, page), page, services.room_site)

        await reply_for(services, client, respond, **_who(body), name="list", work=work, page=page, replace_original=True)

    async def open_link(ack: AsyncAck) -> None:
        await ack()  # a link button still sends an action; without an ack Slack shows a warning

    app.action(ACTION_SHOW)(show_room)
    app.action(re.compile(f"^{ACTION_LIST_PAGE}_"))(list_page)
    app.action(ACTION_OPEN)(open_link)


def _who(body: dict) -> dict[str, str]:
    return {"team_id": body["team"]["id"], "user_id": body["user"]["id"]}
