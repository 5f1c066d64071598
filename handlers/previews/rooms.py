"""Link previews for room links pasted in a conversation (`link_shared` → `chat.unfurl`), and for
dossier links (handlers.previews.dossiers): at most five a message.

The person who pasted the link sees the room's details when the room service lets them see it
(their delegated token); everyone else's pastes get a plain "video room — Join" preview, so a
preview never reveals a room to someone who could not look it up.
"""

from __future__ import annotations

import contextlib
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.models.blocks import (
    ContextBlock,
    SectionBlock,
)
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.previews import DossierFacts
from clients.rooms.errors import RoomServiceError
from clients.rooms.models import Room
from domain.dossiers.previews import previewed
from domain.rooms.room_refs import read_room_ref
from handlers.blocks import join_button, mrkdwn
from handlers.core.dossier_links import read_dossier_link
from handlers.core.room_messages import room_details
from handlers.core.slack_refusals import attempted
from handlers.dedupe import first_delivery
from handlers.i18n import text
from handlers.on_behalf import Asker, run_for, workspace_of
from handlers.previews.dossiers import dossier_preview
from handlers.services import Services

#: Room links previewed per message; more get no preview (each could cost room-service calls).
MAX_LINKS = 5


def register(app: AsyncApp, services: Services) -> None:
    async def link_shared(event: dict[str, Any], body: dict[str, Any], client: AsyncWebClient) -> None:
        if not await first_delivery(services, body):
            return
        pasted = [str(link.get("url", "")) for link in event.get("links", [])[:50]]
        links = {url: ref for url in pasted if (ref := read_room_ref(url))}
        links = dict(list(links.items())[:MAX_LINKS])
        dossier_links = {url: found for url in pasted if (found := read_dossier_link(url, services.dossier_site))}
        dossier_links = dict(list(dossier_links.items())[:MAX_LINKS - len(links)])
        if not links and not dossier_links:
            return
        rooms: dict[str, Room] = {}
        dossiers: dict[str, DossierFacts] = {}

        async def work(email: str, lang: str) -> None:
            dossiers.update(await previewed(services.accounts, services.once, workspace_of(body), body.get("enterprise_id"),
                                            str(event.get("user", "")), email, dossier_links))
            by_slug = await services.rooms.find_by_slugs(email, [ref.slug for ref in links.values() if ref.slug])
            for url, ref in links.items():
                if ref.slug:
                    if ref.slug in by_slug:
                        rooms[url] = by_slug[ref.slug]
                    continue
                with contextlib.suppress(RoomServiceError):  # not theirs, unknown or unreachable: a plain preview
                    rooms[url] = await services.rooms.get(email, ref.room_id or "")

        lang, _ = await run_for(services, client, Asker(workspace_of(body), event.get("user", "")),
                                name="unfurl", work=work)
        unfurls = {url: preview(lang, url, rooms.get(url), owner=event.get("user")) for url in links}
        unfurls |= {url: dossier_preview(lang, number, dossiers.get(url)) for url, (_, number) in dossier_links.items()}
        target = ({"unfurl_id": event["unfurl_id"], "source": event["source"]} if event.get("unfurl_id")
                  else {"channel": event.get("channel"), "ts": event.get("message_ts")})
        await attempted(client.chat_unfurl(unfurls=unfurls, **target), "chat.unfurl")

    app.event("link_shared")(link_shared)


def preview(lang: str, url: str, room: Room | None, owner: str | None = None) -> dict[str, Any]:
    """What everyone in the conversation sees of a room link; with the room (theirs: their token
    could read it), its level is worded for the others, who will wait for `owner` to let them in."""
    join = join_button(lang, url)
    if room is None:
        return {"blocks": [SectionBlock(text=mrkdwn(f"*{text(lang, 'unfurl.plain')}*"), accessory=join).to_dict()]}
    details = room_details(lang, room, owner=owner)
    return {"blocks": [
        SectionBlock(text=mrkdwn(f"*{text(lang, 'room.title', name=room.slug)}*"), accessory=join).to_dict(),
        ContextBlock(elements=[mrkdwn(" · ".join(details))]).to_dict(),
    ]}
