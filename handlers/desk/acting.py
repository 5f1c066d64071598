"""An act on a dossier, done as the person who asked, once.

Authority is read again at every act: the person's e-mail from their Slack profile, matched with
the dossier's group instructeurs as the service lists them now; the instructeur id the act carries
comes from there, never from a button value or a view's metadata (the service trusts whatever id
an administrator's token sends, ds-graphql.md §9.1). A double click, Slack's retry or a second
process sends one mutation: the act is claimed in Redis on the dossier's state it starts from.
Each act is logged (who by Slack id, the dossier, the act, how it ended; never an e-mail or a
motivation), counted, and confirmed to the person by DM with a link to the dossier.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from prometheus_client import Counter
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers import errors
from clients.dossiers.accounts import DossierAccount
from clients.dossiers.desk import Act, Seen
from clients.dossiers.models import STATES
from handlers.blocks import Message, link_mrkdwn, plain
from handlers.core.dossier_links import dossier_url
from handlers.desk.card import card_message
from handlers.i18n import quoted, text
from handlers.on_behalf import Asker
from handlers.services import Services

log = logging.getLogger(__name__)

ACTS = Counter("roombot_dossier_acts_total", "Acts on dossiers asked from Slack, by act and outcome.", ["act", "outcome"])
CLAIM_SECONDS = 120  # the same act from the same state within this is the same click (or Slack's retry)
#: dossiers one person may look up in a minute: each costs the token's allowance, which digests share
LOOKUPS_PER_MINUTE = 30


@dataclass(frozen=True)
class Asked:
    """What a person asked to do, from a button or a modal."""

    act: Act
    number: int
    words: str = ""  # a decision's motivation, or the message
    correction: str | None = None
    follow: bool = True
    once: str = ""  # what makes a second delivery the same request (a modal's view id)


@dataclass(frozen=True)
class Outcome:
    """What the person hears: the card as it is now (to replace theirs), and a line of its own."""

    card: Message | None
    said: Message | None


async def account_for(services: Services, team: str, enterprise: str | None = None) -> DossierAccount | None:
    """The token that reads and acts for the workspace (its own, else the operator's when it serves it)."""
    if services.digests is None:
        return None
    return await services.digests.account(team, enterprise or await services.workspaces.enterprise_of(team))


async def look_up(services: Services, asker: Asker, email: str, lang: str, number: int) -> Message:
    """`/dossier <n>` and the Open buttons: the card, to an administrator of the démarche or an
    instructeur of the dossier's group; one answer for anyone else and for no such dossier."""
    account = await account_for(services, asker.team_id)
    if account is None or account.desk is None:
        return plain(text(lang, "desk.no_token"))
    if not await services.once.within("dossier-look", asker.team_id, asker.user_id, most=LOOKUPS_PER_MINUTE, ttl=60):
        return plain(text(lang, "desk.too_often", most=LOOKUPS_PER_MINUTE))
    try:
        seen = await account.desk.seen_by(number, email, account.access)
    except errors.DossierServiceError as error:
        return plain(_failed(lang, error, number))
    if seen is None:
        return plain(text(lang, "desk.not_seen", number=number))
    return card_message(lang, seen, email, _site(services))


async def perform(services: Services, client: AsyncWebClient, asker: Asker, email: str, lang: str, asked: Asked) -> Outcome | None:
    """Does the act; None when another delivery of the same request is doing it."""
    account = await account_for(services, asker.team_id)
    if account is None or account.desk is None:
        return Outcome(None, plain(text(lang, "desk.no_token")))
    desk = account.desk
    outcome = "refused"
    try:
        seen = await desk.seen_by(asked.number, email, account.access)
        if seen is None:
            return Outcome(None, plain(text(lang, "desk.not_seen", number=asked.number)))
        card = seen.card
        if seen.instructeur_id is None:
            return Outcome(card_message(lang, seen, email, _site(services)), plain(text(lang, "desk.not_instructeur", number=card.number)))
        if asked.act not in card.acts_for(email) or (asked.act is Act.FOLLOW and asked.follow == card.followed_by(email)):
            said = _state_now(lang, card.number, card.state)  # a card older than the dossier: nothing is sent
            return Outcome(card_message(lang, seen, email, _site(services)), plain(said))
        if not await services.once.claim("dossier-act", asker.team_id, str(card.number), asked.act.value, card.state,
                                         str(asked.follow), asked.once, ttl=CLAIM_SECONDS):
            return None
        after = await desk.act(asked.act, card, seen.instructeur_id, text=asked.words, correction=asked.correction,
                               follow=asked.follow)
        outcome = "ok"
        fresh = Seen(after, seen.instructeur_id, seen.administrator) if after is not None else await _again(account, asked.number, email)
        if fresh is not None and fresh.card.demarche is not None:  # one set of numbers: Home and the to-do see the act
            await account.counter.note(fresh.card.demarche.number, fresh.card)
        shown = card_message(lang, fresh, email, _site(services)) if fresh is not None else None
        await _confirm(client, asker, lang, asked, card.number, card.demarche.number if card.demarche else 0, _site(services))
        return Outcome(shown, None)
    except errors.WrongState as error:
        fresh = await _again(account, asked.number, email)
        said = _state_now(lang, asked.number, str(error))
        return Outcome(card_message(lang, fresh, email, _site(services)) if fresh else None, plain(said))
    except errors.DossierServiceError as error:
        outcome = "failed" if isinstance(error, errors.DossierServiceUnavailable) else outcome
        return Outcome(None, plain(_failed(lang, error, asked.number)))
    finally:
        ACTS.labels(act=asked.act.name.lower(), outcome=outcome).inc()
        log.info("dossier act: by %s, dossier %d, %s: %s", asker.user_id, asked.number, asked.act.name.lower(), outcome)


async def _again(account: DossierAccount, number: int, email: str) -> Seen | None:
    assert account.desk is not None
    try:
        return await account.desk.seen_by(number, email, account.access)
    except errors.DossierServiceError:
        return None


async def _confirm(client: AsyncWebClient, asker: Asker, lang: str, asked: Asked, number: int, demarche: int, site: str) -> None:
    """The person's record of what they did, in their DM with the app, with a link to the dossier."""
    key = asked.act.name.lower() if asked.act is not Act.FOLLOW else ("follow" if asked.follow else "unfollow")
    words = text(lang, f"desk.done.{key}", number=number)
    if demarche:
        words += " " + link_mrkdwn(dossier_url(site, demarche, number), text(lang, "desk.open_link"))
    try:
        await client.chat_postMessage(channel=asker.user_id, unfurl_links=False, **plain(words).payload())
    except SlackApiError as error:
        log.warning("could not confirm a dossier act by DM: %s", error.response.get("error"))


def _state_now(lang: str, number: int, state: str) -> str:
    shown = text(lang, f"desk.state.{state}") if state in STATES else state
    return text(lang, "desk.already", number=number, state=shown)


def _failed(lang: str, error: errors.DossierServiceError, number: int) -> str:
    """The service's refusal in words: what happened, and what to do."""
    match error:
        case errors.ReadOnlyToken():
            return text(lang, "desk.read_only")
        case errors.NotInstructeur():
            return text(lang, "desk.not_instructeur", number=number)
        case errors.AnnotationsMissing():
            return text(lang, "desk.annotations", number=number)
        case errors.CorrectionPending():
            return text(lang, "desk.correction_pending", number=number)
        case errors.MessagingClosed():
            return text(lang, "desk.messaging_closed", number=number)
        case errors.SiretIncomplete():
            return text(lang, "desk.siret", number=number)
        case errors.ActRefused(said=said):
            return text(lang, "desk.refused", said=quoted(said, 200))
        case errors.DemarcheNotFound() | errors.DemarcheForbidden():
            return text(lang, "desk.not_seen", number=number)
        case errors.DossierConfigError():
            log.error("the dossier service refuses the bot's token (%s): %s", error.reason, error)
            return text(lang, "desk.token_refused", reason=text(lang, f"digest.reason.{error.reason}"))
    return text(lang, "desk.unavailable")


def _site(services: Services) -> str:
    return services.dossier_site or ""

