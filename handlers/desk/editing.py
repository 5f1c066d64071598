"""The card's windows read from the service — Labels, Annotations, Group — and their submissions.

A click opens the window at once (Slack's trigger lasts 3 s, the service may take longer), saying it
is being read; the dossier is then read for the person (an instructeur of its group now, else the
window says why) and the window filled in. A submission is one act per change, each checked again
as every act is (domain.dossiers.acts): the labels chosen to add and to remove, the group, the
annotations that changed (refused ones said beside their field, nothing sent). The card the window
came from is replaced by the dossier as the act left it; the overflow menu's links (what only the
service's pages do) are acknowledged and nothing more."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.models.views import View
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.desk import Act
from domain.dossiers.acts import Asked
from domain.dossiers.editing import Shown, editable
from handlers.blocks import Message
from handlers.core.slack_refusals import attempted
from handlers.desk.annotating import annotations_window, read_annotations
from handlers.desk.buttons import _act
from handlers.desk.card import ACTION_IDS, EDITS, ELSEWHERE
from handlers.desk.forms import (
    ADD,
    ANNOTATIONS_MODAL,
    GROUP,
    GROUP_MODAL,
    LABELS_MODAL,
    READING,
    REMOVE,
    chosen,
    group_window,
    labels_window,
    reading,
    said,
)
from handlers.error_replies import dossier_refusal
from handlers.i18n import text
from handlers.on_behalf import Asker, language_quickly, run_for, who
from handlers.responses import KeptAliveRespond
from handlers.services import Services

FROM_SERVICE = {ACTION_IDS[act]: act for act in EDITS}


def register(app: AsyncApp, services: Services) -> None:
    async def open_window(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        value = str(action.get("value", ""))
        if not value.isdecimal() or len(value) > 12:
            return
        act, number, asker = FROM_SERVICE[str(action["action_id"])], int(value), who(body)
        lang = await language_quickly(services, client, asker)  # the trigger lives 3 s
        opened = await attempted(client.views_open(trigger_id=body["trigger_id"], view=reading(lang, act, number)), "views.open")
        shown: dict[str, Any] = (opened.get("view") if opened is not None else None) or {}
        view_id = str(shown.get("id", ""))
        if not view_id:
            return
        if body.get("response_url"):  # where the card is, to replace it once the window is submitted
            await services.views.put(str(body["response_url"]), asker.team_id, view_id)
        await _fill(services, client, asker, act, number, view_id)

    async def labels(ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        number = _number(view, Act.ADD_LABEL)
        state = view.get("state") or {}
        asked = [(Act.ADD_LABEL, label) for label in chosen(state, ADD)] + [(Act.REMOVE_LABEL, label) for label in chosen(state, REMOVE)]
        changes: list[tuple[Act, str]] = []
        for act, label in asked:  # each label once, as first asked (a window drawn by the bot names each once)
            if all(label != done for _, done in changes):
                changes.append((act, label))
        if number is not None:
            for index, (act, label) in enumerate(changes):
                await _submitted(services, client, body, view, Asked(act, number, choice=label), index)

    async def regroup(ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient) -> None:
        number, group = _number(view, Act.REGROUP), chosen(view.get("state") or {}, GROUP)
        if not group:
            lang = await language_quickly(services, client, who(body))
            await ack(response_action="errors", errors={GROUP: text(lang, "desk.window.regroup.choose")})
            return
        await ack()
        if number is not None:
            await _submitted(services, client, body, view, Asked(Act.REGROUP, number, choice=group[0]), 0)

    async def annotate(ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient) -> None:
        edits, refused = read_annotations(view)
        if refused:
            lang = await language_quickly(services, client, who(body))
            await ack(response_action="errors", errors={block: text(lang, key) for block, key in refused.items()})
            return
        await ack()
        number = _number(view, Act.ANNOTATE)
        if number is not None and edits:
            await _submitted(services, client, body, view, Asked(Act.ANNOTATE, number, edits=tuple(edits)), 0)

    async def acknowledged(ack: AsyncAck) -> None:
        await ack()  # a link followed (the overflow), or a window that only said something

    for action_id in FROM_SERVICE:
        app.action(action_id)(open_window)
    app.action(ELSEWHERE)(acknowledged)
    app.view(READING)(acknowledged)
    app.view(LABELS_MODAL)(labels)
    app.view(GROUP_MODAL)(regroup)
    app.view(ANNOTATIONS_MODAL)(annotate)


async def _fill(services: Services, client: AsyncWebClient, asker: Asker, act: Act, number: int, view_id: str) -> None:
    """The window filled in with what the service lists now, for this person, or why not."""
    async def work(email: str, lang: str) -> Message | None:
        found = await editable(services.accounts, asker.team_id, email, number, act)
        await _update(client, view_id, _window(lang, act, number, found))
        return None

    lang, problem = await run_for(services, client, asker, name=f"dossier_{act.name.lower()}_window", work=work)
    if problem is not None:
        await _update(client, view_id, said(lang, act, problem.text))


def _window(lang: str, act: Act, number: int, found: Any) -> View:
    match found.shown:
        case Shown.READY if act is Act.ANNOTATE:
            return annotations_window(lang, number, found.fields)
        case Shown.READY if found.seen is not None and found.choices is not None:
            card = found.seen.card
            return labels_window(lang, card, found.choices) if act is Act.ADD_LABEL else group_window(lang, card, found.choices)
        case Shown.NO_TOKEN:
            return said(lang, act, text(lang, "desk.no_token"))
        case Shown.NOT_INSTRUCTEUR:
            return said(lang, act, text(lang, "desk.not_instructeur", number=number))
        case Shown.REFUSED if found.error is not None:
            return said(lang, act, dossier_refusal(lang, found.error, number))
    return said(lang, act, text(lang, "desk.not_seen", number=number))


async def _update(client: AsyncWebClient, view_id: str, view: View) -> None:
    await attempted(client.views_update(view_id=view_id, view=view), "views.update")


async def _submitted(services: Services, client: AsyncWebClient, body: dict[str, Any], view: dict[str, Any], asked: Asked,
                     index: int) -> None:
    """One change of a submitted window, done as the person, once (the window's id and the change's place in it)."""
    asker = who(body)
    view_id = str(view.get("id", ""))[:40]
    card_url = await services.views.get(asker.team_id, view_id)
    respond = KeptAliveRespond(str(card_url), client.session) if card_url and client.session else None
    once = f"{view_id}:{index}:{asked.act.name}:{asked.choice[:60]}"
    await _act(services, client, respond, asker, Asked(asked.act, asked.number, choice=asked.choice, edits=asked.edits, once=once))


def _number(view: dict[str, Any], act: Act) -> int | None:
    """The dossier a submitted window is about, when its metadata names the act of that window."""
    name, _, number = str(view.get("private_metadata", "")).partition(":")
    return int(number) if name == act.name and number.isdecimal() and len(number) <= 12 else None
