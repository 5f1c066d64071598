"""The desk's acts and look-ups in the person's words: `domain.dossiers` does them and says how
they ended (`ActResult`, `LookedUp`); this turns that into the card as it is now (to replace
theirs), a line of its own, and — for an act done — their record of it by DM, with a link to the
dossier."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.desk import Act, Seen
from clients.dossiers.models import STATES
from domain.dossiers.acts import ActResult, Asked, DossierActs, Ended
from domain.dossiers.lookup import LOOKUPS_PER_MINUTE, Found
from domain.dossiers.lookup import look_up as find
from handlers.blocks import Message, link_mrkdwn, plain
from handlers.core.dossier_links import dossier_url
from handlers.core.slack_refusals import attempted
from handlers.desk.card import card_message
from handlers.error_replies import dossier_refusal
from handlers.i18n import Mrkdwn, counted, text
from handlers.on_behalf import Asker
from handlers.services import Services

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    """What the person hears: the card as it is now (to replace theirs), and a line of its own."""

    card: Message | None
    said: Message | None


async def look_up(services: Services, asker: Asker, email: str, lang: str, number: int) -> Message:
    """`/dossier <n>` and the Open buttons: the card, or why not."""
    looked = await find(services.accounts, asker.team_id, asker.user_id, email, number)
    match looked.found:
        case Found.SEEN if looked.seen is not None:
            return card_message(lang, looked.seen, email, _site(services))
        case Found.NO_TOKEN:
            return plain(text(lang, "desk.no_token"))
        case Found.TOO_OFTEN:
            return plain(text(lang, "desk.too_often", most=LOOKUPS_PER_MINUTE))
        case Found.REFUSED if looked.error is not None:
            return plain(dossier_refusal(lang, looked.error, number))
    return plain(text(lang, "desk.not_seen", number=number))


async def perform(services: Services, client: AsyncWebClient, asker: Asker, email: str, lang: str, asked: Asked) -> Outcome | None:
    """Does the act; None when another delivery of the same request is doing it (and answers)."""
    result = await DossierActs(services.accounts, services.once, services.watches).perform(asker.team_id, asker.user_id, email, asked)
    if result is None:
        return None
    if result.ended is Ended.DONE:
        await _confirm(client, asker, lang, asked, result, _site(services))
        if result.seen is None and asked.act is Act.REGROUP:  # sent to a group they are not in: no card of it now
            return Outcome(plain(_done_words(lang, asked, result)), None)
    return Outcome(_card(services, lang, result.seen, email), _said(services, asker, lang, asked, result))


def _card(services: Services, lang: str, seen: Seen | None, email: str) -> Message | None:
    return card_message(lang, seen, email, _site(services)) if seen is not None else None


def _said(services: Services, asker: Asker, lang: str, asked: Asked, result: ActResult) -> Message | None:
    """The line beside the card: why nothing was done, or what is not known; none for an act done."""
    number = result.number
    match result.ended:
        case Ended.DONE:
            return None
        case Ended.NO_TOKEN:
            return plain(text(lang, "desk.no_token"))
        case Ended.NOT_INSTRUCTEUR:
            return plain(text(lang, "desk.not_instructeur", number=number))
        case Ended.STILL:
            return plain(text(lang, f"desk.still.{_key(asked)}", number=number))
        case Ended.GONE:
            return plain(text(lang, f"desk.gone.{_key(asked)}", number=number))
        case Ended.ALREADY if result.by and result.act is not None:
            return plain(text(lang, f"desk.by.{result.act.name.lower()}", who=_mention(lang, result.by), number=number))
        case Ended.ALREADY:
            return plain(_state_now(lang, number, result.state))
        case Ended.BUSY_YOU:
            return plain(text(lang, "desk.busy_you", number=number))
        case Ended.BUSY:
            return plain(text(lang, "desk.busy", who=_mention(lang, result.by), number=number))
        case Ended.NOT_DONE:
            return plain(text(lang, "desk.not_done", number=number))
        case Ended.UNKNOWN:
            link = Mrkdwn(link_mrkdwn(dossier_url(_site(services), result.demarche, number), text(lang, "desk.open_link"))) \
                if result.demarche else Mrkdwn("")
            return plain(text(lang, "desk.outcome_unknown", number=number, link=link))
        case Ended.REFUSED if result.error is not None:
            return plain(dossier_refusal(lang, result.error, number))
    return plain(text(lang, "desk.not_seen", number=number))


def _mention(lang: str, user: str) -> Mrkdwn:
    return Mrkdwn(f"<@{user}>") if user.isalnum() else Mrkdwn(text(lang, "desk.someone"))


def _key(asked: Asked) -> str:
    """The act as the catalogs name it (`desk.done.*`, `desk.still.*`, `desk.gone.*`; Follow's: follow or unfollow)."""
    return asked.act.name.lower() if asked.act is not Act.FOLLOW else ("follow" if asked.follow else "unfollow")


def _done_words(lang: str, asked: Asked, result: ActResult) -> str:
    key = _key(asked)
    if asked.act is Act.ANNOTATE:
        return counted(lang, "desk.done.annotate", len(asked.edits), number=result.number,
                       names=", ".join(f"« {edit.label} »" for edit in asked.edits))
    if asked.act in (Act.ADD_LABEL, Act.REMOVE_LABEL) and result.label:
        return text(lang, f"desk.done.{key}.named", number=result.number, label=result.label)
    return text(lang, f"desk.done.{key}", number=result.number, group=result.group)


async def _confirm(client: AsyncWebClient, asker: Asker, lang: str, asked: Asked, result: ActResult, site: str) -> None:
    """The person's record of what they did, in their DM with the app, with a link to the dossier."""
    words, demarche, number = _done_words(lang, asked, result), result.demarche, result.number
    if demarche:
        words += " " + link_mrkdwn(dossier_url(site, demarche, number), text(lang, "desk.open_link"))
    await attempted(client.chat_postMessage(channel=asker.user_id, unfurl_links=False, **plain(words).payload()),
                    "confirming a dossier act by DM")


def _state_now(lang: str, number: int, state: str) -> str:
    shown = text(lang, f"desk.state.{state}") if state in STATES else state
    return text(lang, "desk.already", number=number, state=shown)


def _site(services: Services) -> str:
    return services.dossier_site or ""

