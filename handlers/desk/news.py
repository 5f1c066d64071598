"""The watch's news, told by DM: each round (`domain.dossiers.news`) says who has what new; this
tells each person once, in one DM a round, in their language — if their Slack account still
stands with the same e-mail (read afresh before telling). A person deactivated or gone from the
workspace, or whose DM Slack refuses for good, has their watch dropped: nothing is tried again.

Every `DS_WATCH_SECONDS` one process of the deployment (a Redis lease) runs the round.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from babel.dates import format_date
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import Block, ContextBlock, SectionBlock

from clients.dossiers.models import STATES
from clients.dossiers.news_kinds import Choices, ServiceDefaults
from clients.dossiers.watch import DossierChange
from domain.dossiers.news import NewsRounds, Watcher
from handlers.blocks import MAX_BLOCKS, Message, mrkdwn
from handlers.core.dossier_links import open_button
from handlers.core.slack_refusals import code_of, refusal_of
from handlers.i18n import LANGUAGES, counted, text
from handlers.profiles import ProfileProblem, language_of, load_profile, usable_email
from handlers.services import Services

log = logging.getLogger(__name__)

MOST_ITEMS = 20  # in one DM; the rest is counted
#: Slack's refusals of a DM (or of the person's profile) that trying again will not change: the
#: person is gone, deactivated, a bot, or the workspace's account is: their watch is dropped
GONE = frozenset({"cannot_dm_bot", "user_disabled", "user_not_found", "account_inactive", "channel_not_found"})


@dataclass
class Watching:
    """For the scheduler: a round of reading and telling, every `seconds`, by one process; how much
    of each kind each person wants comes from `choices` (the service's defaults until they choose)."""

    services: Services
    seconds: int
    choices: Choices = field(default_factory=ServiceDefaults)

    async def due(self, now: dt.datetime) -> list[tuple[str, Callable[[], Awaitable[object]]]]:
        watches = self.services.watches
        if not await watches.everyone() or not await watches.round(self.seconds):
            return []
        return [("dossier watch", lambda: self.round(now))]

    async def round(self, now: dt.datetime) -> int:
        """Reads every watched démarche once per token, tells each person what is theirs; how many
        DMs went out."""
        rounds = NewsRounds(self.services.watches, self.services.accounts, self.choices)
        return sum([await self._tell(rounds, watcher) for watcher in await rounds.read(now)])

    async def _tell(self, rounds: NewsRounds, watcher: Watcher) -> int:
        client = await self.services.workspaces.client(watcher.team)
        if client is None:
            return 0
        profiles, team, user = self.services.profiles, watcher.team, watcher.user
        try:
            email = usable_email(await load_profile(client, profiles, team, user))
            theirs = await rounds.theirs(watcher, email)
            if not any(theirs.values()):
                return 0
            profile = await load_profile(client, profiles, team, user, fresh=True)  # the account as it is now
            if profile.deleted:
                return await self._drop(watcher, "deactivated")
            if usable_email(profile) != email:
                return 0  # given another address since: what was theirs is not told
        except ProfileProblem as problem:
            cause = problem.__cause__
            if isinstance(cause, SlackApiError) and code_of(cause) in GONE:
                return await self._drop(watcher, code_of(cause))
            return 0  # no e-mail, or Slack busy: nothing of the démarches is told this round
        news = await rounds.untold(watcher, theirs)
        if not news:
            return 0
        lang = language_of(profile, self.services.default_language)
        refused = await refusal_of(client.chat_postMessage(channel=user, unfurl_links=False, **news_message(lang, news).payload()),
                                   "telling a watcher what changed")
        if refused in GONE:
            return await self._drop(watcher, refused)
        return 0 if refused else 1

    async def _drop(self, watcher: Watcher, why: str | None) -> int:
        """A person Slack says is gone for good: their watch goes, and nothing is tried again."""
        await self.services.watches.stop(watcher.team, watcher.user)
        log.info("watch of %s/%s dropped: %s", watcher.team, watcher.user, why)
        return 0


def news_words(lang: str, change: DossierChange) -> str:
    """One item's words: `desk.news.<kind>`, or `desk.news.<kind>_<detail>` for a kind told two
    ways (a correction asked or resolved, a dossier moved to or away from the group)."""
    two_ways = change.kind in ("correction", "group")
    detail = change.detail
    if change.kind == "expiring":
        detail = format_date(dt.date.fromisoformat(change.detail), "long", locale=lang if lang in LANGUAGES else "en")
    return text(lang, f"desk.news.{change.kind}_{change.detail}" if two_ways else f"desk.news.{change.kind}",
                number=change.number, demarche=change.demarche, detail=detail or "—",
                group=change.other if change.other is not None else "—",
                state=text(lang, f"desk.state.{change.state}") if change.state in STATES else change.state)


def news_message(lang: str, changes: list[DossierChange]) -> Message:
    blocks: list[Block] = [SectionBlock(text=mrkdwn(text(lang, "desk.news_title", count=len(changes))))]
    for change in changes[:MOST_ITEMS]:
        blocks.append(SectionBlock(text=mrkdwn(news_words(lang, change)), accessory=open_button(lang, change.number)))
    if len(changes) > MOST_ITEMS:
        blocks.append(ContextBlock(elements=[mrkdwn(counted(lang, "desk.news_more", len(changes) - MOST_ITEMS))]))
    assert len(blocks) <= MAX_BLOCKS
    return Message(text=text(lang, "desk.news_title", count=len(changes)), blocks=blocks)
