"""Home → "What you hear": for each démarche the person watches, a window with a choice per kind of
news (all the dossiers of their groups, only those they follow, nothing); their quiet hours and
snooze, with the snooze's buttons. The window's metadata names only the démarche: whether they
watch it is read again when it is submitted, and only their own choices change.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement, HeaderBlock, InputBlock, Option, SectionBlock, StaticSelectElement
from slack_sdk.models.views import View
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.news_kinds import DEFAULTS, Kind, Level
from handlers.blocks import Message, mrkdwn, plain, view_input
from handlers.core.slack_refusals import attempted
from handlers.desk.hearing import kind_name, snooze_buttons
from handlers.i18n import Mrkdwn, clock, text
from handlers.on_behalf import language_quickly, run_for, who
from handlers.services import Services

OPEN = "hear_open"  # + `_<démarche>`: one per block
CHOICES_MODAL = "hear_choices"
LEVEL = "level"  # each kind's select, in the block `kind_<kind>`
MOST_DEMARCHES = 5  # on Home; each has its window


def choices_view(lang: str, demarche: int, levels: dict[Kind, Level]) -> View:
    """One démarche's window: a choice per kind, at the person's present level."""

    def option(level: Level) -> Option:
        return Option(value=level.value, text=text(lang, f"hear.level.{level.value}"))

    blocks: list[Any] = [SectionBlock(text=mrkdwn(text(lang, "hear.window_intro", demarche=demarche)))]
    for kind in Kind:
        blocks.append(InputBlock(block_id=f"kind_{kind.value}", label=_capital(kind_name(lang, kind.value)),
                                 element=StaticSelectElement(action_id=LEVEL, options=[option(level) for level in Level],
                                                             initial_option=option(levels[kind]))))
    return View(type="modal", callback_id=CHOICES_MODAL, private_metadata=str(demarche), title=text(lang, "hear.window_title"),
                submit=text(lang, "hear.window_save"), close=text(lang, "desk.cancel"), blocks=blocks)


async def hearing_section(services: Services, team: str, user: str, lang: str) -> list[Block]:
    watched = await services.watches.of(team, user)
    if not watched:
        return []
    blocks: list[Block] = [HeaderBlock(text=text(lang, "hear.home_title"))]
    for number in watched[:MOST_DEMARCHES]:
        levels = await services.choices.levels(team, user, number)
        changed = [text(lang, "hear.home_changed", kind=kind_name(lang, kind.value), level=text(lang, f"hear.home_level.{level.value}"))
                   for kind, level in levels.items() if level is not DEFAULTS[kind]]
        line = text(lang, "hear.home_line", demarche=number,
                    choices=Mrkdwn(" · ".join(changed) if changed else text(lang, "hear.home_defaults")))
        blocks.append(SectionBlock(text=mrkdwn(line), accessory=ButtonElement(
            text=text(lang, "hear.home_choose"), action_id=f"{OPEN}_{number}", value=str(number))))
    blocks.append(SectionBlock(text=mrkdwn(await _when(services, team, user, lang))))
    blocks.append(ActionsBlock(elements=snooze_buttons(lang)))
    return blocks


async def _when(services: Services, team: str, user: str, lang: str) -> str:
    """Their quiet hours, snooze and daily message, in their zone."""
    quiet = await services.hours.quiet(team, user)
    parts = [text(lang, "hear.home_quiet", start=clock(lang, quiet.start), end=clock(lang, quiet.end)) if quiet
             else text(lang, "hear.home_no_quiet")]
    daily = await services.hours.daily(team, user)
    parts.append(text(lang, "hear.home_daily", at=clock(lang, daily.at)) if daily else text(lang, "hear.home_no_daily"))
    snoozed = await services.hours.snoozed_until(team, user)
    if snoozed is not None and snoozed > dt.datetime.now(dt.UTC):
        parts.append(text(lang, "hear.home_snoozed", until=clock(lang, snoozed)))
    return " · ".join(parts)


def register(app: AsyncApp, services: Services) -> None:
    async def section(team: str, user: str, email: str, lang: str) -> list[Block]:
        return await hearing_section(services, team, user, lang)

    async def open_window(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)
        lang = await language_quickly(services, client, asker)
        value = str(action.get("value", ""))
        if not re.fullmatch(r"[0-9]{1,9}", value, re.ASCII):
            return
        levels = await services.choices.levels(asker.team_id, asker.user_id, int(value))
        await attempted(client.views_open(trigger_id=body["trigger_id"], view=choices_view(lang, int(value), levels)),
                        "opening the window of what a person hears")

    async def submitted(ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)
        metadata = str(view.get("private_metadata", ""))

        async def work(email: str, lang: str) -> Message:
            if not re.fullmatch(r"[0-9]{1,9}", metadata, re.ASCII):
                return plain(text(lang, "hear.button_unread"))
            demarche = int(metadata)
            if demarche not in (await services.watches.of(asker.team_id, asker.user_id) or []):
                return plain(text(lang, "hear.not_watched", demarche=demarche))
            for kind in Kind:
                chosen = _level(view_input(view, f"kind_{kind.value}", LEVEL).get("selected_option"))
                if chosen is not None:
                    await services.choices.choose(asker.team_id, asker.user_id, demarche, kind, chosen)
            return plain(text(lang, "hear.window_saved", demarche=demarche))

        _, said = await run_for(services, client, asker, name="hear_choices", work=work, needs_email=False)
        if services.home.refresh is not None:
            await services.home.refresh(client, asker.team_id, asker.user_id, said)

    if services.digests is not None:
        services.home.sections.append(section)
        app.action(re.compile(f"^{OPEN}_"))(open_window)
        app.view(CHOICES_MODAL)(submitted)


def _level(selected: object) -> Level | None:
    value = selected.get("value") if isinstance(selected, dict) else None
    try:
        return Level(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _capital(words: str) -> str:
    return words[:1].upper() + words[1:]

