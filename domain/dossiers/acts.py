"""An act on a dossier, done as the person who asked, once — and how it ended, as data.

Authority is read again at every act: the person's e-mail (from their profile, which the surface
reads), matched with the dossier's group instructeurs as the service lists them now; the instructeur
id the act carries comes from there, never from a button value or a view's metadata (the service
trusts whatever id an administrator's token sends, ds-graphql.md §9.1). A request delivered twice,
or to two processes, sends one mutation: each request (a click's trigger_id, a window's view id) is
claimed in Redis by the person, for as long as Slack's signature on it holds; a change of state
(or of the archive) claims the dossier too while it is in flight, naming who acts, so that whoever
comes second is told who (and what the dossier shows), never left without an answer. When the service failed or did not
answer after the act was sent, the dossier is read again and what it shows is the result; nothing
invites a retry of what may be done. What failed before anything was sent gives its claims back.
Each act is logged (who by user id, the dossier, the act, how it ended; never an e-mail or a
motivation) and counted.
"""

from __future__ import annotations

import datetime as dt
import enum
import logging
from dataclasses import dataclass

from prometheus_client import Counter

from clients.dossiers import errors
from clients.dossiers.accounts import DossierAccount
from clients.dossiers.desk import ARCHIVES, LEADS_TO, ON_MESSAGE, Act, AnnotationEdit, DossierCard, Seen
from clients.dossiers.news_kinds import Kind
from clients.dossiers.rate_limit import Priority, with_priority
from clients.dossiers.uploads import Upload
from clients.dossiers.watch import Watches
from clients.once import Once
from domain.dossiers.accounts import WorkspaceAccounts
from domain.dossiers.lookup import seen_again

log = logging.getLogger(__name__)

ACTS = Counter("roombot_dossier_acts_total", "Acts on dossiers asked from Slack, by act and outcome.", ["act", "outcome"])
#: one request (a click, a window's submission) acts once for this long: Slack's signature window (handlers.dedupe)
REQUEST_SECONDS = 600
#: a state change in flight holds its dossier this long at most (the act's 30 s budget, and the read after)
ACTING_SECONDS = 120
#: acts whose news the service tells without saying who did them: the watch is told who, not to tell them
NOTED = {Act.ADD_LABEL: Kind.LABELS, Act.REMOVE_LABEL: Kind.LABELS, Act.REGROUP: Kind.GROUP, Act.ANNOTATE: Kind.ANNOTATIONS}
#: who last changed a dossier's state, named to whoever comes after with a card older than the change
DONE_SECONDS = 900
#: the acts that hold the dossier while in flight: the changes of state, and the archive's (back into
#: review takes a dossier out of it: the two racing would leave one person's card untrue)
HOLDS = (*LEADS_TO, *ARCHIVES)


@dataclass(frozen=True)
class Asked:
    """What a person asked to do, from a button or a window."""

    act: Act
    number: int
    words: str = ""  # a decision's motivation, or the message
    correction: str | None = None
    follow: bool = True
    choice: str = ""  # the label or group id (checked by the service against the dossier's démarche)
    edits: tuple[AnnotationEdit, ...] = ()  # the private annotations' new values
    message: str = ""  # the message to delete, as chosen in the window: acted on only if the dossier shows it theirs
    file: Upload | None = None  # a file read from Slack, to give with a message or a decision
    once: str = ""  # the request, as its redeliveries carry it: a click's trigger_id, a window's view id


class Ended(enum.Enum):
    """How an act ended (`ActResult` carries what each needs to be said)."""

    DONE = "done"  # done: `seen` as it is now (None when it could not be read again), `demarche` for the link
    NO_TOKEN = "no_token"  # no dossier-service token reads for the workspace
    NOT_SEEN = "not_seen"  # no such dossier, or not one this person may see
    NOT_INSTRUCTEUR = "not_instructeur"  # they may see it (an administrator), not act on it
    STILL = "still"  # (un)follow, (un)archive, a label, a group: it already was so
    GONE = "gone"  # the correction or message acted on is no longer there (or was never theirs): nothing sent
    ALREADY = "already"  # the dossier's state moved on: `state`; `by` and `act` when the bot did it for someone else lately
    BUSY = "busy"  # someone else's act is in flight: `by`
    BUSY_YOU = "busy_you"  # their own previous act is still in flight
    NOT_DONE = "not_done"  # the service answered an error after the act was sent, and the dossier shows it not done
    UNKNOWN = "unknown"  # sent, and nobody can tell yet whether it was done: `demarche` for where to look
    REFUSED = "refused"  # the service refused it (or is down): `error`


@dataclass(frozen=True)
class ActResult:
    ended: Ended
    number: int
    seen: Seen | None = None  # the dossier as the person may see it now, when it was read
    demarche: int = 0
    by: str = ""  # the Slack user id of whoever acted or acts on it
    act: Act | None = None  # what they did or do
    state: str = ""
    error: errors.DossierServiceError | None = None
    held: bool = False  # an act in flight held the dossier: nothing was sent
    group: str = ""  # a re-routing done: the group the dossier is with now
    label: str = ""  # a label added or removed: its name


@dataclass(frozen=True)
class DossierActs:
    accounts: WorkspaceAccounts
    once: Once
    watches: Watches | None = None  # told who acted where the service does not say (their watch keeps it from them)

    @with_priority(Priority.ACT)
    async def perform(self, team: str, user: str, email: str, asked: Asked) -> ActResult | None:
        """Does the act; None when another delivery of the same request is doing it (and answers)."""
        account = await self.accounts.for_team(team)
        if account is None or account.desk is None:
            return ActResult(Ended.NO_TOKEN, asked.number)
        outcome = "refused"
        try:
            result = await self._perform(account, team, user, email, asked)
            outcome = _label(result)
            return result
        finally:
            ACTS.labels(act=asked.act.name.lower(), outcome=outcome).inc()
            log.info("dossier act: by %s, dossier %d, %s: %s", user, asked.number, asked.act.name.lower(), outcome)

    async def _perform(self, account: DossierAccount, team: str, user: str, email: str, asked: Asked) -> ActResult | None:
        assert account.desk is not None
        try:
            seen = await account.desk.seen_by(asked.number, email, account.access)
            if seen is None:
                return ActResult(Ended.NOT_SEEN, asked.number)
            card = seen.card
            if seen.instructeur_id is None:
                return ActResult(Ended.NOT_INSTRUCTEUR, card.number, seen)
            moot = _moot(asked, seen, email)
            if moot is not None:
                return moot
            if asked.act not in card.acts_for(email):  # a card older than the dossier: nothing is sent
                return await self._moved(team, user, card.number, card.state, seen)
            if not await self.once.claim("dossier-request", team, user, asked.once, ttl=REQUEST_SECONDS):
                return None  # another delivery of this very click or submission acts, and answers
            holder = f"{user}|{asked.once}|{asked.act.name}"
            if asked.act in HOLDS:
                held = await self.once.claim_as("dossier-acting", team, str(card.number), holder=holder, ttl=ACTING_SECONDS)
                if held is not None:
                    return await _busy(account, user, email, card.number, held)
            return await self._send(account, team, user, email, asked, seen, holder)
        except errors.WrongState as error:
            fresh = await seen_again(account, asked.number, email)
            return await self._moved(team, user, asked.number, fresh.card.state if fresh else str(error), fresh)
        except errors.DossierServiceError as error:
            return ActResult(Ended.REFUSED, asked.number, error=error)

    async def _send(self, account: DossierAccount, team: str, user: str, email: str, asked: Asked, seen: Seen,
                    holder: str) -> ActResult:
        """The mutation, sent once the request and the dossier are claimed."""
        assert account.desk is not None and seen.instructeur_id is not None
        card = seen.card
        try:
            after = await account.desk.act(asked.act, card, seen.instructeur_id, text=asked.words, correction=asked.correction,
                                           follow=asked.follow, choice=asked.choice, edits=asked.edits,
                                           message_id=_message_of(asked, card, email), file=asked.file)
        except errors.OutcomeUnknown as error:
            return await self._unknown(account, team, user, email, asked, seen, holder, error)
        except errors.DossierServiceError:
            await self._release(team, user, asked, card.number, holder)  # nothing was done: trying again must work
            raise
        if after is None:
            return await self._done(account, team, user, email, asked, card, await seen_again(account, asked.number, email), holder)
        if after.demarche is not None and after.instructeur_id(email) is None:  # sent to a group they are not in
            await account.counter.note(after.demarche.number, after)
        mine = after.instructeur_id(email)  # a group change may leave them out of it: no card of it then
        fresh = Seen(after, mine, seen.administrator) if mine is not None or seen.administrator else None
        return await self._done(account, team, user, email, asked, card, fresh, holder, after)

    async def _done(self, account: DossierAccount, team: str, user: str, email: str, asked: Asked, card: DossierCard,
                    fresh: Seen | None, holder: str, after: DossierCard | None = None) -> ActResult:
        """The act done: who did it noted for whoever comes next (and for the watch, where the service
        does not say who), the dossier free again, the kept counts told (one set of numbers: Home and
        the to-do see the act at once)."""
        if self.watches is not None and asked.act in NOTED and card.demarche is not None:
            await self.watches.did(card.demarche.number, card.number, NOTED[asked.act], email, dt.datetime.now(dt.UTC))
        if fresh is not None and fresh.card.demarche is not None:
            await account.counter.note(fresh.card.demarche.number, fresh.card)
        if asked.act in LEADS_TO:
            await self.once.note("dossier-done", team, str(card.number), value=f"{user}|{asked.act.name}", ttl=DONE_SECONDS)
        if asked.act in HOLDS:
            await self.once.release_held("dossier-acting", team, str(card.number), holder=holder)
        group = after.groupeInstructeur.label if after is not None and after.groupeInstructeur else ""
        labels = [*card.labels, *(after.labels if after is not None else [])]
        label = next((found.name for found in labels if asked.choice and found.id == asked.choice), "")
        return ActResult(Ended.DONE, card.number, fresh, demarche=card.demarche.number if card.demarche else 0, act=asked.act,
                         group=group, label=label)

    async def _unknown(self, account: DossierAccount, team: str, user: str, email: str, asked: Asked, seen: Seen,
                       holder: str, error: errors.OutcomeUnknown) -> ActResult:
        """The act reached the service, which failed or did not answer: what the dossier shows now —
        done, or (when the service had finished with it) not done — else unknown (annotations: always,
        the card cannot tell)."""
        card = seen.card
        fresh = await seen_again(account, asked.number, email)
        if fresh is not None and _shows(asked, card, fresh.card, email):
            return await self._done(account, team, user, email, asked, card, fresh, holder)
        if fresh is not None and error.answered and asked.act is not Act.ANNOTATE:  # the card shows no annotation
            await self._release(team, user, asked, card.number, holder)
            return ActResult(Ended.NOT_DONE, card.number, fresh)
        log.warning("dossier act: the outcome of %s on dossier %d is unknown: %s", asked.act.name.lower(), card.number, error)
        return ActResult(Ended.UNKNOWN, card.number, demarche=card.demarche.number if card.demarche else 0)

    async def _moved(self, team: str, user: str, number: int, state: str, seen: Seen | None) -> ActResult:
        """Nothing done on a dossier whose state moved on: who moved it when the bot did it lately."""
        noted = await self.once.noted("dossier-done", team, str(number))
        by, _, name = (noted or "").partition("|")
        act = Act.__members__.get(name)
        if act in LEADS_TO and LEADS_TO[act] == state and by != user:
            return ActResult(Ended.ALREADY, number, seen, by=by, act=act, state=state)
        return ActResult(Ended.ALREADY, number, seen, state=state)

    async def _release(self, team: str, user: str, asked: Asked, number: int, holder: str) -> None:
        await self.once.release("dossier-request", team, user, asked.once)
        if asked.act in HOLDS:
            await self.once.release_held("dossier-acting", team, str(number), holder=holder)


def _moot(asked: Asked, seen: Seen, email: str) -> ActResult | None:
    """Nothing to send: the dossier already is as asked, or the message acted on is not there (or not theirs)."""
    card = seen.card
    if _still(asked, card, email):
        return ActResult(Ended.STILL, card.number, seen, act=asked.act)
    if asked.act in ON_MESSAGE and not _message_of(asked, card, email):
        return ActResult(Ended.GONE, card.number, seen, act=asked.act)
    return None


def _still(asked: Asked, card: DossierCard, email: str) -> bool:
    """Whether the dossier already is as the act would leave it."""
    if asked.act is Act.FOLLOW:
        return asked.follow == card.followed_by(email)
    if asked.act in ARCHIVES:
        return ARCHIVES[asked.act] == card.archived
    if asked.act in (Act.ADD_LABEL, Act.REMOVE_LABEL):
        return (asked.act is Act.ADD_LABEL) == any(label.id == asked.choice for label in card.labels)
    if asked.act is Act.REGROUP:
        return card.groupeInstructeur is not None and card.groupeInstructeur.id == asked.choice
    return False


def _message_of(asked: Asked, card: DossierCard, email: str) -> str:
    """The id of the message an act on one acts on, from the dossier as read now: the pending
    correction's, or — for a deletion — the chosen message if it is one of the person's; "" otherwise."""
    if asked.act is Act.CANCEL_CORRECTION:
        pending = card.pending_correction
        return pending.id if pending is not None else ""
    if asked.act is Act.DELETE_MESSAGE:
        return asked.message if any(m.id == asked.message for m in card.own_messages(email)) else ""
    return ""


def _shows(asked: Asked, before: DossierCard, after: DossierCard, email: str) -> bool:
    """Whether the dossier read again shows the act done (annotations: the card cannot tell)."""
    if asked.act is Act.ANNOTATE:
        return False
    if asked.act in LEADS_TO:
        return after.state == LEADS_TO[asked.act] != before.state
    if asked.act is Act.MESSAGE:
        return _written(after, email) > _written(before, email)
    acted = _message_of(asked, before, email)
    if asked.act is Act.DELETE_MESSAGE:
        return all(m.id != acted for m in after.own_messages(email))
    if asked.act is Act.CANCEL_CORRECTION:
        return after.pending_correction is None or after.pending_correction.id != acted
    return _still(asked, after, email)  # followed or not, archived or not, a label, the group: as the act leaves it


def _written(card: DossierCard, email: str) -> int:
    """How many messages the person wrote on the dossier (those deleted too)."""
    mine = email.strip().lower()
    return sum(m.email.strip().lower() == mine for m in card.messages)


async def _busy(account: DossierAccount, user: str, email: str, number: int, held: str) -> ActResult:
    """Someone's act on the dossier is in flight: nothing is sent; who, and what the dossier shows now."""
    by, _, rest = held.partition("|")
    act = Act.__members__.get(rest.rpartition("|")[2])
    fresh = await seen_again(account, number, email)
    if by == user:
        return ActResult(Ended.BUSY_YOU, number, fresh, held=True)
    if fresh is not None and act in LEADS_TO and fresh.card.state == LEADS_TO[act]:
        return ActResult(Ended.ALREADY, number, fresh, by=by, act=act, state=fresh.card.state, held=True)
    return ActResult(Ended.BUSY, number, fresh, by=by, act=act, held=True)


def _label(result: ActResult | None) -> str:
    """The outcome as the metric and the log name it."""
    match result:
        case None:
            return "refused"
        case ActResult(ended=Ended.DONE):
            return "ok"
        case ActResult(held=True):
            return "busy"
        case ActResult(ended=Ended.NOT_DONE):
            return "failed"
        case ActResult(ended=Ended.UNKNOWN):
            return "unknown"
        case ActResult(ended=Ended.REFUSED, error=errors.DossierServiceUnavailable()):
            return "failed"
    return "refused"
