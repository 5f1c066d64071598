"""Home → "My dossiers": for each démarche the person watches, what needs doing in their groups
— late dossiers, SVA/SVR dates soon or past, applicants waiting for an answer — with buttons that
open the cards; and the watch's toggle. Read from what the digest and the watch keep (no request
but the member list, kept a few minutes)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement, HeaderBlock, SectionBlock
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.accounts import DossierAccount
from domain.dossiers.awaiting import NEEDS, awaiting
from handlers.blocks import Message, mrkdwn
from handlers.core.dossier_links import open_button
from handlers.desk.watch import watch_off, watch_on
from handlers.i18n import Mrkdwn, counted, text
from handlers.on_behalf import run_for, who
from handlers.services import Services

WATCH_TOGGLE = "dossier_watch_toggle"
MOST_DEMARCHES = 5  # on Home; `/dossier watch` lists them all
MOST_BUTTONS = 5  # a démarche's dossiers to open, the most pressing first


def register(app: AsyncApp, services: Services) -> None:
    async def section(team: str, user: str, email: str, lang: str) -> list[Block]:
        return await my_dossiers(services, team, user, email, lang)

    async def toggled(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)
        on = str(action.get("value")) == "on"

        async def work(email: str, lang: str) -> Message:
            return await (watch_on(services, asker, email, lang, ()) if on else watch_off(services, asker, lang))

        _, said = await run_for(services, client, asker, name="dossier_watch" if on else "dossier_unwatch", work=work,
                                needs_email=on)
        if services.home.refresh is not None:
            await services.home.refresh(client, asker.team_id, asker.user_id, said)

    if services.digests is not None:
        services.home.sections.append(section)
        app.action(WATCH_TOGGLE)(toggled)


async def my_dossiers(services: Services, team: str, user: str, email: str, lang: str) -> list[Block]:
    watched = await services.watches.of(team, user)
    toggle = ButtonElement(text=text(lang, "desk.home.stop" if watched else "desk.home.start"), action_id=WATCH_TOGGLE,
                           value="off" if watched else "on")
    blocks: list[Block] = [HeaderBlock(text=text(lang, "desk.home.title"))]
    if not watched:
        return [*blocks, SectionBlock(text=mrkdwn(text(lang, "desk.home.not_watching")), accessory=toggle)]
    blocks.append(SectionBlock(text=mrkdwn(counted(lang, "desk.home.watching", len(watched))), accessory=toggle))
    account = await services.accounts.for_team(team)
    if account is None or services.digests is None:
        return blocks
    late_days = services.digests.late_days
    lines = 0
    for number in watched[:MOST_DEMARCHES]:
        found = await needs_line(services, account, number, email, lang, late_days)
        if found is None:
            continue
        line, numbers = found
        blocks.append(SectionBlock(text=mrkdwn(line)))
        if numbers:
            blocks.append(ActionsBlock(elements=[open_button(lang, n) for n in numbers[:MOST_BUTTONS]]))
        lines += 1
    if not lines:
        blocks.append(SectionBlock(text=mrkdwn(text(lang, "desk.home.nothing"))))
    return blocks


async def needs_line(services: Services, account: DossierAccount, number: int, email: str, lang: str,
                     late_days: int, today: dt.datetime | None = None) -> tuple[str, list[int]] | None:
    """A démarche's line for the person, and its dossiers to open, the most pressing first; None
    when nothing needs doing there, or nothing of it is theirs (any more). With `today` (the daily
    DM), the dossiers followed by nobody and the corrections received too."""
    found = await awaiting(account, services.watches, number, email, late_days, today)
    if found is None:
        return None
    parts = [counted(lang, f"desk.home.{why}", len(found.needs[why])) for why in NEEDS if why in found.needs]
    if found.corrected:
        parts.append(counted(lang, "desk.home.corrected", len(found.corrected)))
    if found.unanswered:
        parts.append(counted(lang, "desk.home.unanswered", len(found.unanswered)))
    if found.unfollowed:
        parts.append(counted(lang, "desk.home.unfollowed_more" if found.unfollowed_more else "desk.home.unfollowed",
                             len(found.unfollowed)))
    if not found.counted and not parts:
        return text(lang, "desk.home.not_counted", title=found.title, number=number), []
    line = text(lang, "desk.home.line", title=found.title, number=number, needs=Mrkdwn(" · ".join(parts)))
    return line, found.pressing
