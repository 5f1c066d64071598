"""App Home: `app_home_opened` publishes the person's rooms; its control creates a room."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from clients.rooms.models import AccessLevel, Room, RoomPage
from domain.rooms.meeting_times import zone_named
from handlers.blocks import Message, plain
from handlers.core.meeting_messages import upcoming_blocks
from handlers.core.room_messages import room_message
from handlers.core.slack_refusals import attempted
from handlers.dedupe import first_delivery
from handlers.home.messages import HOME_NEW_ROOM, home_view
from handlers.home.settings_view import settings_blocks
from handlers.i18n import quoted, text
from handlers.on_behalf import Asker, attempt, run_for, who, workspace_of
from handlers.profiles import profile_or_none
from handlers.services import Services


def register(app: AsyncApp, services: Services) -> None:
    async def home_opened(event: dict[str, Any], body: dict[str, Any], client: AsyncWebClient) -> None:
        if event.get("tab") == "home" and await first_delivery(services, body):
            await publish_home(services, client, Asker(workspace_of(body), event["user"]))

    async def new_room(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        chosen = str((action.get("selected_option") or {}).get("value", AccessLevel.TRUSTED))
        level = AccessLevel(chosen) if chosen in AccessLevel.__members__.values() else None
        await publish_home(services, client, who(body), create=level, refused_level=None if level else chosen)

    async def refresh(client: AsyncWebClient, team: str, user: str, said: Message | None) -> None:
        await publish_home(services, client, Asker(team, user), said=said)

    app.event("app_home_opened")(home_opened)
    app.action(HOME_NEW_ROOM)(new_room)
    services.home.refresh = refresh


async def publish_home(
    services: Services,
    client: AsyncWebClient,
    asker: Asker,
    *,
    create: AccessLevel | None = None,
    refused_level: str | None = None,
    said: Message | None = None,
) -> None:
    """The optional new room's card (or why it could not be made), the person's planned rooms,
    then their rooms, most recent first: a refused creation keeps the list, a list that fails
    keeps the card. `refused_level` is a level no menu offers (a forged request), answered in
    words; `said` is what a Home button just did."""
    person = replace(asker, on_home=True)
    card = await _new_room_card(services, client, person, create, refused_level)
    notice = card if card is not None else said

    async def rooms(email: str, lang: str) -> tuple[RoomPage, list[Room]]:
        page = await services.rooms.list(email, 1)
        return page, await services.rooms.latest(email, page)  # as the service has them now

    listed = await attempt(services, client, person, name="home", work=rooms)
    lang, problem = listed.lang, listed.problem
    page, recent = listed.value if listed.value is not None else (None, [])
    profile = await profile_or_none(client, services.profiles, asker.team_id, asker.user_id)
    meetings = await services.meetings.upcoming(asker.team_id, asker.user_id, dt.datetime.now(dt.UTC))
    upcoming = upcoming_blocks(lang, zone_named(profile.tz if profile else None, services.zone), meetings, asker.user_id)
    admin_part = await settings_blocks(services, asker, lang) if profile and profile.is_admin else []
    email = (profile.email or "") if profile and not profile.deleted else ""
    sections = [block for section in services.home.sections for block in await section(asker.team_id, asker.user_id, email, lang)] \
        if email else []
    view = home_view(lang, page, services.room_site, [m for m in (notice, problem) if m is not None],
                     recent=recent, levels=await services.rooms.levels.offered(), upcoming=[*upcoming, *sections],
                     settings=admin_part)
    await attempted(client.views_publish(user_id=asker.user_id, view=view), "views.publish")


async def _new_room_card(services: Services, client: AsyncWebClient, person: Asker, create: AccessLevel | None,
                         refused_level: str | None) -> Message | None:
    """Home's new room (or why it could not be made), or the words for a level no menu offers."""
    if refused_level is not None:

        async def no_such_level(email: str, lang: str) -> Message:
            return plain(text(lang, "usage.bad_level", level=quoted(refused_level)))

        return (await run_for(services, client, person, name="home_new", work=no_such_level, needs_email=False))[1]
    if create is not None:

        async def new_room(email: str, lang: str) -> Message:
            created = await services.rooms.create(email, create)
            return room_message(lang, created, services.room_site, created=True, in_conversation=False)

        return (await run_for(services, client, person, name="home_new", work=new_room))[1]
    return None
