"""Home → "Team space": the same set-up as `/dossier team`, from a window (démarche, group, hour, and
on an organisation-wide install the workspace: handlers/team/workspaces.py). The space gets a channel
of its own (adopting a channel is the command's, typed there); the answer comes by direct message,
the addresses of those without an account in it, for the person alone."""

from __future__ import annotations

import datetime as dt
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.models.blocks import Block, ButtonElement, InputBlock, Option, PlainTextInputElement, SectionBlock, StaticSelectElement
from slack_sdk.models.views import View
from slack_sdk.web.async_client import AsyncWebClient

from handlers.blocks import mrkdwn, plain, view_input
from handlers.core import grammar
from handlers.core.numbers import is_number
from handlers.core.slack_refusals import attempted
from handlers.i18n import text
from handlers.on_behalf import Asker, language_quickly, run_for, who
from handlers.services import Services
from handlers.team.setup import Ask, set_up
from handlers.team.workspaces import Place, granted, organisation_wide, place_of

ACTION_HOME = "team_home"
TEAM_MODAL = "team_space_modal"
DEMARCHE, GROUP, HOUR, WORKSPACE = "team_demarche", "team_group", "team_hour", "team_workspace"
#: a window submitted twice within this sets up once
SUBMISSION_WINDOW = 600


def team_window(lang: str, workspaces: list[tuple[str, str]] | None = None, current: str = "") -> View:
    """The window; with a workspace to pick first when the install serves several (an organisation's)."""
    pick: list[Block] = []
    if workspaces and len(workspaces) > 1:
        options = [Option(value=team, text=name[:75]) for team, name in workspaces]
        pick = [InputBlock(block_id=WORKSPACE, label=text(lang, "team.window_workspace"), hint=text(lang, "team.window_workspace_hint"),
                           element=StaticSelectElement(action_id=WORKSPACE, options=options,
                                                       initial_option=next((o for o in options if o.value == current), None)))]
    return View(type="modal", callback_id=TEAM_MODAL, title=text(lang, "team.window_title")[:24],
                submit=text(lang, "team.window_submit")[:24], close=text(lang, "new.cancel")[:24], blocks=[
                    *pick,
                    InputBlock(block_id=DEMARCHE, label=text(lang, "team.window_demarche"),
                               element=PlainTextInputElement(action_id=DEMARCHE, max_length=9)),
                    InputBlock(block_id=GROUP, label=text(lang, "team.window_group"), optional=True,
                               hint=text(lang, "team.window_group_hint"), element=PlainTextInputElement(action_id=GROUP, max_length=9)),
                    InputBlock(block_id=HOUR, label=text(lang, "team.window_hour"), optional=True,
                               element=PlainTextInputElement(action_id=HOUR, max_length=10, placeholder="09:00")),
                ])


def read_window(view: dict[str, Any]) -> Ask | dict[str, str]:
    """The window's answers, or each field's problem (its catalog key; Slack shows it under the field)."""
    typed = {name: str(view_input(view, name).get("value") or "").strip() for name in (DEMARCHE, GROUP, HOUR)}
    problems = {}
    if not is_number(typed[DEMARCHE], 9):
        problems[DEMARCHE] = "team.window_not_number"
    if typed[GROUP] and not is_number(typed[GROUP], 9):
        problems[GROUP] = "team.window_not_number"
    hour: dt.time | None = None
    if typed[HOUR]:
        found = grammar.clock_time(typed[HOUR].split())
        if found is None or found[1] != len(typed[HOUR].split()):
            problems[HOUR] = "team.window_not_hour"
        else:
            hour = found[0]
    if problems:
        return problems
    return Ask(int(typed[DEMARCHE]), int(typed[GROUP]) if typed[GROUP] else None, hour)


def register(app: AsyncApp, services: Services) -> None:
    async def section(team: str, user: str, email: str, lang: str) -> list[Block]:
        if services.digests is None:
            return []
        return [SectionBlock(text=mrkdwn(text(lang, "team.home")),
                             accessory=ButtonElement(text=text(lang, "team.home_button"), action_id=ACTION_HOME))]

    async def open_window(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)
        lang = await language_quickly(services, client, asker)  # the trigger lives 3 s: one call more at most
        opened = await attempted(client.views_open(trigger_id=body["trigger_id"], view=team_window(lang)),
                                 "opening the team-space window")
        if opened is None or not organisation_wide(body):
            return
        # an organisation's workspaces are listed once the window is open (their pages may outlast
        # the trigger), then offered in it; Slack keeps what the person typed meanwhile (same ids)
        workspaces = await granted(client)
        if len(workspaces) > 1:
            shown = opened["view"]
            await attempted(client.views_update(view_id=shown["id"], hash=shown.get("hash"),
                                                view=team_window(lang, workspaces, asker.team_id)),
                            "offering an organisation's workspaces in the team-space window")

    async def submitted(ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient) -> None:
        asker = who(body)
        read = read_window(view)
        if isinstance(read, dict):  # the person's language is read only when there is something to say
            lang = await language_quickly(services, client, asker)
            await ack(response_action="errors", errors={block: text(lang, key) for block, key in read.items()})
            return
        await ack()
        if not await services.once.claim_or_assume("view", str(view.get("id", ""))[:40], ttl=SUBMISSION_WINDOW):
            return  # submitted again: the first submission sets up
        picked = str((view_input(view, WORKSPACE).get("selected_option") or {}).get("value") or "")
        await _deliver(services, client, Asker(asker.team_id, asker.user_id, on_home=True), read, picked)

    services.home.sections.append(section)
    app.action(ACTION_HOME)(open_window)
    app.view(TEAM_MODAL)(submitted)


async def _deliver(services: Services, client: AsyncWebClient, asker: Asker, ask: Ask, picked: str) -> None:
    async def work(email: str, lang: str) -> Any:
        place = await place_of(services, client, asker.team_id, picked, asker.user_id, email, lang)
        if not isinstance(place, Place):
            return place
        return await set_up(services, place.client, place.team, place.user, email, lang, ask)

    _, message = await run_for(services, client, asker, name="team_home", work=work)
    message = message or plain("")
    await attempted(client.chat_postMessage(channel=asker.user_id, **message.payload()), "DMing a team space's set-up")
