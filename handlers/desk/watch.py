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

from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import Block, ContextBlock, SectionBlock

from clients.dossiers import errors
from clients.dossiers.accounts import DossierAccount
from clients.dossiers.models import STATES
from clients.dossiers.watch import DossierChange, Watches, changes_since
from handlers.blocks import MAX_BLOCKS, Message, mrkdwn, plain
from handlers.core.dossier_links import open_button
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


async def watch_on(services: Services, asker: Asker, email: str, lang: str, numbers: tuple[int, ...]) -> Message:
    """Watches the démarches named (or, with none, those the workspace's digests follow), of
    which the person is an administrator or an instructeur now."""
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
        found: dict[tuple[str, int], list[DossierChange]] = {}
        limit = asyncio.Semaphore(CONCURRENT_POLLS)

        async def poll(name: str, number: int, account: DossierAccount) -> None:
            async with limit:
                found[(name, number)] = await _read(watches, account, number, now)

        await asyncio.gather(*(poll(name, number, account) for (name, number), account in polls.items()))
        sent = 0
        for (team, user), numbers in people.items():
            account = accounts.get(team)
            if account is not None:
                changes = [change for number in numbers for change in found.get((account.name, number), [])]
                sent += await self._tell(watches, account, team, user, changes)
        return sent

    async def _tell(self, watches: Watches, account: DossierAccount, team: str, user: str, changes: list[DossierChange]) -> int:
        if not changes:
            return 0
        client = await self.services.workspaces.client(team)
        if client is None:
            return 0
        try:
            profile = await load_profile(client, self.services.profiles, team, user)
            email = usable_email(profile)
        except ProfileProblem:
            return 0  # their account went, or has no e-mail: nothing of the démarches is theirs any more
        lang = language_of(profile, self.services.default_language)
        theirs = [change for change in changes if await _concerns(account, change, email)]
        fresh = set(await watches.first_time(team, user, [change.mark for change in theirs]))
        news = [change for change in theirs if change.mark in fresh]
        if not news:
            return 0
        try:
            await client.chat_postMessage(channel=user, unfurl_links=False, **_news(lang, news).payload())
        except SlackApiError as error:
            log.warning("could not tell a watcher what changed: %s", error.response.get("error"))
            return 0
        return 1


async def _read(watches: Watches, account: DossierAccount, number: int, now: dt.datetime) -> list[DossierChange]:
    """The démarche's changes since it was last read for this token (from now on, the first time)."""
    since = await watches.since(account.name, number)
    if since is None or account.desk is None:
        await watches.read_until(account.name, number, now)
        return []
    try:
        changes, waiting = await changes_since(account.desk.service, number, since)
    except errors.OverShare:
        log.info("watch of n° %d waits: the share of the allowance for watches is spent this minute", number)
        return []
    except errors.DossierServiceError as error:
        log.warning("watch of n° %d not read: %s (%s)", number, error.reason, error)
        return []
    await watches.note_unanswered(account.name, number, waiting)
    await watches.read_until(account.name, number, now)
    return changes


async def _concerns(account: DossierAccount, change: DossierChange, email: str) -> bool:
    """A deposit or the applicant's message in one of their groups; a state changed by someone
    else on a dossier they follow. Their groups are read as the service lists them now."""
    if change.kind == "state":
        return email.lower() in change.followers and change.by != email.lower()
    try:
        groups = (await account.access.membership(change.demarche)).groups_of(email)
    except errors.DossierServiceError:
        return False
    return change.group in groups


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
