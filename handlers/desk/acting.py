"""An act on a dossier, done as the person who asked, once.

Authority is read again at every act: the person's e-mail from their Slack profile, matched with
the dossier's group instructeurs as the service lists them now; the instructeur id the act carries
comes from there, never from a button value or a view's metadata (the service trusts whatever id
an administrator's token sends, ds-graphql.md §9.1). A click or a submission delivered twice, or
to two processes, sends one mutation: each request (a click's trigger_id, a window's view id) is claimed in
Redis by the person, for as long as Slack's signature on it holds; a change of state claims the
dossier too while it is in flight, naming who acts, so that whoever comes second is told who (and
what the dossier shows), never left without an answer. When the service failed or did not answer
after the act was sent, the dossier is read again and what it shows is said; nothing invites a
retry of what may be done. What failed before anything was sent gives its claims back.
Each act is logged (who by Slack id, the dossier, the act, how it ended; never an e-mail or a
motivation), counted, and confirmed to the person by DM with a link to the dossier.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from prometheus_client import Counter
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers import errors
from clients.dossiers.accounts import DossierAccount
from clients.dossiers.desk import LEADS_TO, Act, DossierCard, Seen
from clients.dossiers.models import STATES
from clients.dossiers.rate_limit import Priority, with_priority
from handlers.blocks import Message, link_mrkdwn, plain
from handlers.core.dossier_links import dossier_url
from handlers.core.slack_refusals import attempted
from handlers.dedupe import COMMAND_WINDOW
from handlers.desk.card import card_message
from handlers.error_replies import dossier_refusal
from handlers.i18n import Mrkdwn, text
from handlers.on_behalf import Asker
from handlers.services import Services

log = logging.getLogger(__name__)

ACTS = Counter("roombot_dossier_acts_total", "Acts on dossiers asked from Slack, by act and outcome.", ["act", "outcome"])
#: one click (its trigger_id) or window submission (its view id) acts once while Slack's signature on it holds
REQUEST_SECONDS = COMMAND_WINDOW
#: a state change in flight holds its dossier this long at most (the act's 30 s budget, and the read after)
ACTING_SECONDS = 120
#: who last changed a dossier's state, named to whoever comes after with a card older than the change
DONE_SECONDS = 900
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
    once: str = ""  # the request, as its redeliveries carry it: a click's trigger_id, a window's view id


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


@with_priority(Priority.ASKED)
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
        return plain(dossier_refusal(lang, error, number))
    if seen is None:
        return plain(text(lang, "desk.not_seen", number=number))
    return card_message(lang, seen, email, _site(services))


@with_priority(Priority.ACT)
async def perform(services: Services, client: AsyncWebClient, asker: Asker, email: str, lang: str, asked: Asked) -> Outcome | None:
    """Does the act; None when another delivery of the same request is doing it."""
    account = await account_for(services, asker.team_id)
    if account is None or account.desk is None:
        return Outcome(None, plain(text(lang, "desk.no_token")))
    outcome = "refused"
    try:
        seen = await account.desk.seen_by(asked.number, email, account.access)
        if seen is None:
            return Outcome(None, plain(text(lang, "desk.not_seen", number=asked.number)))
        card = seen.card
        if seen.instructeur_id is None:
            return Outcome(card_message(lang, seen, email, _site(services)), plain(text(lang, "desk.not_instructeur", number=card.number)))
        if asked.act is Act.FOLLOW and asked.follow == card.followed_by(email):
            return Outcome(card_message(lang, seen, email, _site(services)),
                           plain(text(lang, f"desk.still.{'follow' if asked.follow else 'unfollow'}", number=card.number)))
        if asked.act not in card.acts_for(email):  # a card older than the dossier: nothing is sent
            return Outcome(card_message(lang, seen, email, _site(services)), plain(await _moved(services, asker, lang, card)))
        if not await services.once.claim("dossier-request", asker.team_id, asker.user_id, asked.once, ttl=REQUEST_SECONDS):
            return None  # another delivery of this very click or submission acts, and answers
        holder = f"{asker.user_id}|{asked.once}|{asked.act.name}"
        if asked.act in LEADS_TO:
            held = await services.once.claim_as("dossier-acting", asker.team_id, str(card.number), holder=holder, ttl=ACTING_SECONDS)
            if held is not None:
                outcome = "busy"
                return await _busy(services, account, asker, email, lang, card.number, held)
        try:
            after = await account.desk.act(asked.act, card, seen.instructeur_id, text=asked.words,
                                           correction=asked.correction, follow=asked.follow)
        except errors.OutcomeUnknown as error:
            outcome, told = await _unknown(services, client, account, asker, email, lang, asked, seen, holder, error)
            return told
        except errors.DossierServiceError:
            await _release(services, asker, asked, card.number, holder)  # nothing was done: trying again must work
            raise
        outcome = "ok"
        fresh = Seen(after, seen.instructeur_id, seen.administrator) if after is not None else await _again(account, asked.number, email)
        return await _done(services, client, account, asker, email, lang, asked, card, fresh, holder)
    except errors.WrongState as error:
        fresh = await _again(account, asked.number, email)
        said = await _moved(services, asker, lang, fresh.card if fresh else None, number=asked.number, state=str(error))
        return Outcome(card_message(lang, fresh, email, _site(services)) if fresh else None, plain(said))
    except errors.DossierServiceError as error:
        outcome = "failed" if isinstance(error, errors.DossierServiceUnavailable) else outcome
        return Outcome(None, plain(dossier_refusal(lang, error, asked.number)))
    finally:
        ACTS.labels(act=asked.act.name.lower(), outcome=outcome).inc()
        log.info("dossier act: by %s, dossier %d, %s: %s", asker.user_id, asked.number, asked.act.name.lower(), outcome)


async def _done(services: Services, client: AsyncWebClient, account: DossierAccount, asker: Asker, email: str, lang: str,
                asked: Asked, card: DossierCard, fresh: Seen | None, holder: str) -> Outcome:
    """The act done: who did it noted for whoever comes next, the dossier free again, the kept counts
    told (one set of numbers: Home and the to-do see the act at once), the person told."""
    if fresh is not None and fresh.card.demarche is not None:
        await account.counter.note(fresh.card.demarche.number, fresh.card)
    if asked.act in LEADS_TO:
        await services.once.note("dossier-done", asker.team_id, str(card.number), value=f"{asker.user_id}|{asked.act.name}",
                                 ttl=DONE_SECONDS)
        await services.once.release_held("dossier-acting", asker.team_id, str(card.number), holder=holder)
    await _confirm(client, asker, lang, asked, card.number, card.demarche.number if card.demarche else 0, _site(services))
    return Outcome(card_message(lang, fresh, email, _site(services)) if fresh is not None else None, None)


async def _unknown(services: Services, client: AsyncWebClient, account: DossierAccount, asker: Asker, email: str, lang: str,
                   asked: Asked, seen: Seen, holder: str, error: errors.OutcomeUnknown) -> tuple[str, Outcome]:
    """The act reached the service, which failed or did not answer: what the dossier shows now is
    said — done, or (when the service had finished with it) not done — else that it is unknown and
    where to look. Never an invitation to do again what may be done."""
    card = seen.card
    fresh = await _again(account, asked.number, email)
    if fresh is not None and _shows(asked, card, fresh.card, email):
        return "ok", await _done(services, client, account, asker, email, lang, asked, card, fresh, holder)
    if fresh is not None and error.answered:
        await _release(services, asker, asked, card.number, holder)
        return "failed", Outcome(card_message(lang, fresh, email, _site(services)), plain(text(lang, "desk.not_done", number=card.number)))
    log.warning("dossier act: the outcome of %s on dossier %d is unknown: %s", asked.act.name.lower(), card.number, error)
    link = Mrkdwn(link_mrkdwn(dossier_url(_site(services), card.demarche.number, card.number), text(lang, "desk.open_link"))) \
        if card.demarche else Mrkdwn("")
    return "unknown", Outcome(None, plain(text(lang, "desk.outcome_unknown", number=card.number, link=link)))


def _shows(asked: Asked, before: DossierCard, after: DossierCard, email: str) -> bool:
    """Whether the dossier read again shows the act done."""
    if asked.act in LEADS_TO:
        return after.state == LEADS_TO[asked.act] != before.state
    if asked.act is Act.FOLLOW:
        return after.followed_by(email) == asked.follow
    mine = email.strip().lower()
    return sum(m.email.strip().lower() == mine for m in after.messages) > sum(m.email.strip().lower() == mine for m in before.messages)


async def _busy(services: Services, account: DossierAccount, asker: Asker, email: str, lang: str, number: int,
                held: str) -> Outcome:
    """Someone else's act on the dossier is in flight (or this person's previous one): nothing is
    sent, and they are told who, and what the dossier shows now."""
    user, _, rest = held.partition("|")
    act = Act.__members__.get(rest.rpartition("|")[2])
    fresh = await _again(account, number, email)
    card = card_message(lang, fresh, email, _site(services)) if fresh else None
    if user == asker.user_id:
        return Outcome(card, plain(text(lang, "desk.busy_you", number=number)))
    if fresh is not None and act in LEADS_TO and fresh.card.state == LEADS_TO[act]:
        return Outcome(card, plain(text(lang, f"desk.by.{act.name.lower()}", who=_mention(lang, user), number=number)))
    return Outcome(card, plain(text(lang, "desk.busy", who=_mention(lang, user), number=number)))


async def _moved(services: Services, asker: Asker, lang: str, card: DossierCard | None, *, number: int = 0,
                 state: str = "") -> str:
    """Why nothing was done on a dossier whose state moved on: who moved it when the bot did it
    lately, else the state it is in now."""
    number, state = (card.number, card.state) if card is not None else (number, state)
    noted = await services.once.noted("dossier-done", asker.team_id, str(number))
    user, _, name = (noted or "").partition("|")
    act = Act.__members__.get(name)
    if act in LEADS_TO and LEADS_TO[act] == state and user != asker.user_id:
        return text(lang, f"desk.by.{act.name.lower()}", who=_mention(lang, user), number=number)
    return _state_now(lang, number, state)


async def _release(services: Services, asker: Asker, asked: Asked, number: int, holder: str) -> None:
    await services.once.release("dossier-request", asker.team_id, asker.user_id, asked.once)
    if asked.act in LEADS_TO:
        await services.once.release_held("dossier-acting", asker.team_id, str(number), holder=holder)


def _mention(lang: str, user: str) -> Mrkdwn:
    return Mrkdwn(f"<@{user}>") if user.isalnum() else Mrkdwn(text(lang, "desk.someone"))


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
    await attempted(client.chat_postMessage(channel=asker.user_id, unfurl_links=False, **plain(words).payload()),
                    "confirming a dossier act by DM")


def _state_now(lang: str, number: int, state: str) -> str:
    shown = text(lang, f"desk.state.{state}") if state in STATES else state
    return text(lang, "desk.already", number=number, state=shown)


def _site(services: Services) -> str:
    return services.dossier_site or ""

