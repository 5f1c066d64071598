"""The card's buttons and windows: Start review, Back to construction, Back into instruction,
Archive, Unarchive and Cancel the correction request (after Slack's confirm dialog), Follow and
Unfollow act at once; the three decisions, Message and Delete a message open a window, whose
submission acts. The card is then replaced by the dossier as it is; whatever went wrong is said beside it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.models.views import View
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.desk import DECISIONS, Act
from clients.dossiers.uploads import TooLarge
from domain.dossiers.acts import Asked
from handlers.blocks import Message, plain
from handlers.core.dossier_links import OPEN_DOSSIER_IDS
from handlers.core.slack_refusals import attempted
from handlers.desk.acting import Outcome, look_up, perform
from handlers.desk.card import ACTION_IDS, CORRECTABLE, UNFOLLOW
from handlers.desk.files import FILE, SlackFile, Unread, described, fetched, shared_file
from handlers.desk.modals import (
    DECISION_MODAL,
    DELETION_MODAL,
    MESSAGE_MODAL,
    WORDS,
    chosen_message,
    correction_of,
    decision_modal,
    deletion_modal,
    message_modal,
    named,
    words_of,
    words_refused,
)
from handlers.i18n import text
from handlers.on_behalf import Asker, language_quickly, reply_privately, respond_ok, run_for, who
from handlers.responses import KeptAliveRespond
from handlers.services import Services

AT_ONCE = {ACTION_IDS[Act.START]: (Act.START, True), ACTION_IDS[Act.REOPEN]: (Act.REOPEN, True),
           ACTION_IDS[Act.FOLLOW]: (Act.FOLLOW, True), UNFOLLOW: (Act.FOLLOW, False),
           **{ACTION_IDS[act]: (act, True) for act in (Act.REINSTRUCT, Act.ARCHIVE, Act.UNARCHIVE, Act.CANCEL_CORRECTION)}}
WITH_WORDS = {ACTION_IDS[act]: act for act in (*DECISIONS, Act.MESSAGE)}
VIEW_SECONDS = 3600  # a window left open this long still updates the card it came from (if Slack keeps its URL)


def register(app: AsyncApp, services: Services) -> None:
    async def act_now(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient,
                      respond: AsyncRespond) -> None:
        await ack()
        number = _number(action)
        if number is None:
            return
        act, follow = AT_ONCE[str(action["action_id"])]
        once = str(body.get("trigger_id") or action.get("action_ts") or "")[:100]  # Slack's: one per click
        await _act(services, client, respond, who(body), Asked(act, number, follow=follow, once=once))

    async def open_window(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        number = _number(action)
        if number is None:
            return
        act = WITH_WORDS[str(action["action_id"])]
        asker = who(body)
        lang = await language_quickly(services, client, asker)  # the trigger lives 3 s
        # the card said whether a correction may be asked (a hint for the window: the service decides)
        correction = str(action.get("value", "")).endswith(CORRECTABLE)
        view = decision_modal(lang, act, number) if act in DECISIONS else message_modal(lang, number, correction=correction)
        await _open(services, client, body, asker, view)

    async def open_deletion(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient) -> None:
        """The window opens at once; the person's messages, read as them, fill it in when they come."""
        await ack()
        number = _number(action)
        if number is None:
            return
        asker = who(body)
        lang = await language_quickly(services, client, asker)
        view_id = await _open(services, client, body, asker, deletion_modal(lang, number, None))
        if not view_id:
            return

        async def work(email: str, lang: str) -> Message | None:
            account = await services.accounts.for_team(asker.team_id)
            mine = await account.desk.messages_of(number, email) if account is not None and account.desk is not None else []
            await attempted(client.views_update(view_id=view_id, view=deletion_modal(lang, number, mine)), "views.update")
            return None

        _, problem = await run_for(services, client, asker, name="dossier_delete_message", work=work)
        if problem is not None:
            await attempted(client.chat_postMessage(channel=asker.user_id, **problem.payload()), "telling why no message was listed")

    async def submitted(ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient) -> None:
        about = named(view)
        words = words_of(view)
        shared = shared_file(view) if about is not None and about[0] is not Act.DELETE_MESSAGE else ""
        refused = words_refused(about[0], words, with_file=bool(shared)) if about is not None else None
        found: SlackFile | str | None = None
        # said in the window, which keeps what was typed: the only calls before this ack are the
        # person's (cached) profile and files.info, each bounded at a second (Slack waits 3 s)
        if refused is not None or shared:
            lang = await language_quickly(services, client, who(body))
            found = await described(client, shared, lang) if shared and refused is None else None
            problems = {WORDS: text(lang, refused[0], **refused[1])} if refused else {FILE: found} if isinstance(found, str) else {}
            if problems:
                await ack(response_action="errors", errors=problems)
                return
        await ack()
        if about is None:
            return
        act, number = about
        asker = who(body)
        view_id = str(view.get("id", ""))[:40]
        card_url = await services.views.get(asker.team_id, view_id)
        respond = KeptAliveRespond(str(card_url), client.session) if card_url and client.session else None
        await _act(services, client, respond, asker, Asked(act, number, words=words, correction=correction_of(view),
                                                           message=chosen_message(view), once=view_id),
                   found if isinstance(found, SlackFile) else None)

    async def open_card(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient,
                        respond: AsyncRespond) -> None:
        await ack()
        number = _number(action)
        if number is None:
            return
        asker = who(body)

        async def work(email: str, lang: str) -> Message:
            return await look_up(services, asker, email, lang, number)

        _, message = await run_for(services, client, asker, name="dossier_open", work=work)
        if message is not None:
            await reply_privately(client, respond, asker.user_id, message)

    for action_id in AT_ONCE:
        app.action(action_id)(act_now)
    for action_id in WITH_WORDS:
        app.action(action_id)(open_window)
    app.action(ACTION_IDS[Act.DELETE_MESSAGE])(open_deletion)
    app.action(OPEN_DOSSIER_IDS)(open_card)
    app.view(DECISION_MODAL)(submitted)
    app.view(MESSAGE_MODAL)(submitted)
    app.view(DELETION_MODAL)(submitted)


async def _open(services: Services, client: AsyncWebClient, body: dict[str, Any], asker: Asker, view: View) -> str:
    """The window opened on the click's trigger (it lives 3 s); its id, remembered with where the
    card is, to replace the card once the window is submitted ("" when Slack did not open it)."""
    opened = await attempted(client.views_open(trigger_id=body["trigger_id"], view=view), "views.open")
    view_id = str((opened.get("view") or {}).get("id", "")) if opened is not None else ""
    if opened is not None and body.get("response_url"):
        await services.views.put(str(body["response_url"]), asker.team_id, view_id)
    return view_id


async def _act(services: Services, client: AsyncWebClient, respond: AsyncRespond | None, asker: Asker, asked: Asked,
               shared: SlackFile | None = None) -> None:
    """The act done for the person, and what they hear of it (what went wrong before it, when anything did);
    a file shared with it read from Slack first, and gone once the act is over."""
    async def work(email: str, lang: str) -> Message | None:
        try:
            file = await fetched(client, shared) if shared is not None else None
        except (Unread, TooLarge):
            return plain(text(lang, "desk.file.unread", number=asked.number))
        try:
            await _tell(client, respond, asker, await perform(services, client, asker, email, lang, replace(asked, file=file)))
        finally:
            if file is not None:
                file.close()
        return None

    _, problem = await run_for(services, client, asker, name=f"dossier_{asked.act.name.lower()}", work=work)
    if problem is not None:
        await _tell(client, respond, asker, Outcome(None, problem))


async def _tell(client: AsyncWebClient, respond: AsyncRespond | None, asker: Asker, outcome: Outcome | None) -> None:
    """The card replaced by the dossier as it is now, and a line beside it when something was not done."""
    if outcome is None:
        return  # another delivery of the same request answers
    if outcome.card is not None and respond is not None:
        await respond_ok(respond, outcome.card, response_type="ephemeral", replace_original=True)
    if outcome.said is not None:
        if respond is not None:
            await reply_privately(client, respond, asker.user_id, outcome.said)
        else:
            await attempted(client.chat_postMessage(channel=asker.user_id, **outcome.said.payload()),
                            "telling the person what happened to their act")


def _number(action: dict[str, Any]) -> int | None:
    value = str(action.get("value", "")).removesuffix(CORRECTABLE)
    return int(value) if value.isdecimal() and len(value) <= 12 else None
