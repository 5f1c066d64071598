"""The Workflow Builder step `create_room`: a room for the step's `owner` (their e-mail from their
Slack profile, never from an input), its link and id as the step's outputs."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.complete.async_complete import AsyncComplete
from slack_bolt.context.fail.async_fail import AsyncFail
from slack_sdk.web.async_client import AsyncWebClient

from clients.rooms.models import AccessLevel, Room
from domain.rooms.room_refs import room_link
from handlers.blocks import Message, plain
from handlers.dedupe import first_delivery
from handlers.i18n import text
from handlers.on_behalf import Asker, run_for, workspace_of
from handlers.services import Services

CREATE_ROOM_FUNCTION = "create_room"



def register(app: AsyncApp, services: Services) -> None:
    async def create_room_step(inputs: dict[str, Any], complete: AsyncComplete, fail: AsyncFail, client: AsyncWebClient,
                               body: dict[str, Any]) -> None:
        if not await first_delivery(services, body):
            return
        team = workspace_of(body) or str((body.get("event") or {}).get("team_id") or "")
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

    app.function(CREATE_ROOM_FUNCTION)(create_room_step)
