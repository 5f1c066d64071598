"""`/dossier watch`: a person hears, by DM, what concerns them in the démarches they work on — a
dossier of one of their groups deposited, the applicant writing on one, a dossier they follow
changing state by someone else's hand.

Every `DS_WATCH_SECONDS` one process of the deployment (a Redis lease) reads each watched démarche
once for every token (`clients.dossiers.watch`), then tells each person once, in one DM a round,
what is theirs: their groups and their follows as the service lists them now, so rights that end
stop the messages. What was told is remembered; nothing is told twice.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from slack_sdk.models.blocks import Block, ContextBlock, SectionBlock

from clients.dossiers import errors
from clients.dossiers.accounts import DossierAccount
from clients.dossiers.models import STATES
from clients.dossiers.rate_limit import Priority, with_priority
from clients.dossiers.watch import OVERLAP, DossierChange, Watches, changes_since
from handlers.blocks import MAX_BLOCKS, Message, mrkdwn, plain
from handlers.core.dossier_links import open_button
from handlers.core.slack_refusals import attempted
from handlers.desk.acting import account_for
from handlers.i18n import counted, text
from handlers.on_behalf import Asker
from handlers.profiles import ProfileProblem, language_of, load_profile, usable_email
from handlers.services import Services

log = logging.getLogger(__name__)

MOST_WATCHED = 20  # démarches one person watches
WATCH_CHANGES_PER_HOUR = 10  # each reads up to MOST_WATCHED member lists
CONCURRENT_POLLS = 4
MOST_ITEMS = 20  # in one DM; the rest is counted


@with_priority(Priority.ASKED)
async def watch_on(services: Services, asker: Asker, email: str, lang: str, numbers: tuple[int, ...]) -> Message:
    """Watches the démarches named (or, with none, those the workspace's digests follow), of
    which the person is an administrator or an instructeur now. One that cannot be checked just
    now (the service down, or this minute's share of the allowance spent) changes nothing."""
    account = await account_for(services, asker.team_id)
    if account is None or services.digests is None:
        return plain(text(lang, "desk.no_token"))
    if not await services.once.within("dossier-watch", asker.team_id, asker.user_id, most=WATCH_CHANGES_PER_HOUR, ttl=3600):
        return plain(text(lang, "desk.watch_too_often", most=WATCH_CHANGES_PER_HOUR))
    # with no number: those the person watches already (kept, not dropped), and the digests' own
    followed = [n for sub in await services.digests.subscriptions.all(asker.team_id) for n in sub.demarches]
    asked = numbers or tuple(dict.fromkeys([*(await services.watches.of(asker.team_id, asker.user_id) or ()), *followed]))
    kept: list[int] = []
    refused: list[int] = []
    for number in asked[:MOST_WATCHED]:
        try:
            entitled = (await account.access.membership(number)).entitled(email)
        except errors.DossierServiceUnavailable:
            return plain(text(lang, "desk.watch_unchecked", numbers=_numbers([number])))
        except errors.DossierServiceError:
            entitled = False
        (kept if entitled else refused).append(number)
    if not kept:
        return plain(text(lang, "desk.watch_none" if not numbers else "desk.watch_refused", numbers=_numbers(refused)))
    await services.watches.start(asker.team_id, asker.user_id, kept)
    minutes = max(1, services.watch_seconds // 60)
    lines = [counted(lang, "desk.watch_on", minutes, numbers=_numbers(kept), minutes=minutes)]
    if refused:
        lines.append(text(lang, "desk.watch_refused", numbers=_numbers(refused)))
    return plain("\n".join(lines))


async def watch_off(services: Services, asker: Asker, lang: str) -> Message:
    stopped = await services.watches.stop(asker.team_id, asker.user_id)
    return plain(text(lang, "desk.watch_off" if stopped else "desk.watch_was_off"))


@dataclass
class Watching:
    """For the scheduler: a round of reading and telling, every `seconds`, by one process."""

    services: Services
    seconds: int

    async def due(self, now: dt.datetime) -> list[tuple[str, Callable[[], Awaitable[object]]]]:
        watches = self.services.watches
        if not await watches.everyone() or not await watches.round(self.seconds):
            return []
        return [("dossier watch", lambda: self.round(now))]

    async def round(self, now: dt.datetime) -> int:
        """Reads every watched démarche once per token, tells each person what is theirs; how many
        DMs went out."""
        watches = self.services.watches
        people = await watches.everyone()
        accounts = {team: await account_for(self.services, team) for team in {team for team, _ in people}}
        polls = {(account.name, number): account for (team, _), numbers in people.items()
                 if (account := accounts.get(team)) is not None for number in numbers}
        found: dict[tuple[str, int], Polled] = {}
        limit = asyncio.Semaphore(CONCURRENT_POLLS)

        async def poll(name: str, number: int, account: DossierAccount) -> None:
            async with limit:
                found[(name, number)] = await _read(watches, account, number, now)

        await asyncio.gather(*(poll(name, number, account) for (name, number), account in polls.items()))
        sent = 0
        for (team, user), numbers in people.items():
            account = accounts.get(team)
            if account is not None:
                polled = {number: found[(account.name, number)] for number in numbers if (account.name, number) in found}
                sent += await self._tell(watches, account, team, user, polled)
        return sent

    async def _tell(self, watches: Watches, account: DossierAccount, team: str, user: str, polled: dict[int, Polled]) -> int:
        if not any(each.changes for each in polled.values()):
            return 0
        client = await self.services.workspaces.client(team)
        if client is None:
            return 0
        try:
            email = usable_email(await load_profile(client, self.services.profiles, team, user))
            theirs = {number: [change for change in each.changes if await _concerns(account, change, email)]
                      for number, each in polled.items()}
            if not any(theirs.values()):
                return 0
            profile = await load_profile(client, self.services.profiles, team, user, fresh=True)  # the account as it is now
            if profile.deleted or usable_email(profile) != email:
                return 0  # deactivated (or given another address) since: what was theirs is not told
        except ProfileProblem:
            return 0  # their account went, or has no e-mail: nothing of the démarches is theirs any more
        news: list[DossierChange] = []
        for number, changes in theirs.items():
            once = list({change.mark: change for change in changes}.values())  # a dossier changed mid-read comes twice
            fresh = await watches.first_time(team, user, number, once, polled[number].forget_before)
            news += [change for change in once if change.mark in fresh]
        if not news:
            return 0
        told = await attempted(client.chat_postMessage(channel=user, unfurl_links=False, **_news(
            language_of(profile, self.services.default_language), news).payload()), "telling a watcher what changed")
        return 0 if told is None else 1


@dataclass(frozen=True)
class Polled:
    """A démarche's changes read this round, and the moment before which a change cannot be read
    again (what was told of older ones can be forgotten)."""

    changes: list[DossierChange]
    forget_before: dt.datetime


async def _read(watches: Watches, account: DossierAccount, number: int, now: dt.datetime) -> Polled:
    """The démarche's changes since it was last read for this token (from now on, the first time);
    a backlog too large for one round goes on from its cursor the next."""
    reading = await watches.reading(account.name, number)
    if reading is None or account.desk is None:
        await watches.read_until(account.name, number, now)
        return Polled([], now - OVERLAP)
    since, after = reading
    try:
        read = await changes_since(account.desk.service, number, since, after)
    except errors.OverShare:
        log.info("watch of n° %d waits: the share of the allowance for watches is spent this minute", number)
        return Polled([], since - OVERLAP)
    except errors.DossierServiceError as error:
        log.warning("watch of n° %d not read: %s (%s)", number, error.reason, error)
        if after is not None and isinstance(error, errors.QueryRejected):  # a cursor the service no longer takes
            await watches.read_on(account.name, number, None)
        return Polled([], since - OVERLAP)
    await watches.note_unanswered(account.name, number, read.waiting)
    if read.after is not None:
        await watches.read_on(account.name, number, read.after)
        return Polled(read.changes, since - OVERLAP)
    await watches.read_until(account.name, number, now)
    return Polled(read.changes, now - OVERLAP)


async def _concerns(account: DossierAccount, change: DossierChange, email: str) -> bool:
    """In one of their groups as the service lists them now (rights that ended stop the news): a
    deposit, the applicant's message; a state changed by someone else on a dossier they follow."""
    try:
        groups = (await account.access.membership(change.demarche)).groups_of(email)
    except errors.DossierServiceError:
        return False
    if change.group not in groups:
        return False
    if change.kind == "state":
        return email.lower() in change.followers and change.by != email.lower()
    return True


def _news(lang: str, changes: list[DossierChange]) -> Message:
    blocks: list[Block] = [SectionBlock(text=mrkdwn(text(lang, "desk.news_title", count=len(changes))))]
    for change in changes[:MOST_ITEMS]:
        said = text(lang, f"desk.news.{change.kind}", number=change.number, demarche=change.demarche,
                    state=text(lang, f"desk.state.{change.state}") if change.state in STATES else change.state)
        blocks.append(SectionBlock(text=mrkdwn(said), accessory=open_button(lang, change.number)))
    if len(changes) > MOST_ITEMS:
        blocks.append(ContextBlock(elements=[mrkdwn(counted(lang, "desk.news_more", len(changes) - MOST_ITEMS))]))
    assert len(blocks) <= MAX_BLOCKS
    return Message(text=text(lang, "desk.news_title", count=len(changes)), blocks=blocks)


def _numbers(numbers: list[int] | tuple[int, ...]) -> str:
    return ", ".join(f"n° {number}" for number in numbers)
