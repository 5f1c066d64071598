"""The watch's news, told by DM: each round (`domain.dossiers.news`) says who has what new; this
tells each person once, in one DM a round, in their language — if their Slack account still
stands with the same e-mail (read afresh before telling).

Every `DS_WATCH_SECONDS` one process of the deployment (a Redis lease) runs the round.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass

from babel.dates import format_date
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import ActionsBlock, Block, ContextBlock, SectionBlock
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.models import STATES
from clients.dossiers.news_kinds import Relation
from clients.dossiers.watch import DossierChange
from domain.dossiers.hearing import held_until
from domain.dossiers.news import NewsRounds, Watcher, Why
from domain.rooms.meeting_times import zone_named
from handlers.blocks import MAX_BLOCKS, Message, mrkdwn
from handlers.core.dossier_links import open_button
from handlers.core.slack_refusals import code_of, refusal_of
from handlers.desk.hearing import kind_name, mute_buttons, snooze_buttons
from handlers.i18n import LANGUAGES, counted, text
from handlers.profiles import Profile, ProfileProblem, language_of, load_profile, usable_email
from handlers.services import Services

log = logging.getLogger(__name__)

MOST_ITEMS = 20  # in one DM; the rest is counted
#: Slack's refusals of a DM (or of the person's profile) that trying again will not change: the
#: person is gone, deactivated, a bot, or the workspace's account is: their watch is dropped
GONE = frozenset({"cannot_dm_bot", "user_disabled", "user_not_found", "account_inactive", "channel_not_found"})


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
        """Reads every watched démarche once per token, tells each person what is theirs (or holds it
        through their quiet hours and snoozes), then sends what was held for whoever may hear it now;
        how many DMs went out."""
        rounds = NewsRounds(self.services.watches, self.services.accounts, self.services.choices)
        told = 0
        for watcher in await rounds.read(now):
            told += await self._tell(rounds, watcher, now)
        for team, user in await self.services.hours.holding():
            told += await self._release(team, user, now)
        return told

    async def _tell(self, rounds: NewsRounds, watcher: Watcher, now: dt.datetime) -> int:
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
                return await self._drop(team, user, "deactivated")
            if usable_email(profile) != email:
                return 0  # given another address since: what was theirs is not told
        except ProfileProblem as problem:
            cause = problem.__cause__
            if isinstance(cause, SlackApiError) and code_of(cause) in GONE:
                return await self._drop(team, user, code_of(cause))
            return 0  # no e-mail, or Slack busy: nothing of the démarches is told this round
        news = await rounds.untold(watcher, theirs)
        items = [Item.of(change, why) for change, why in news]
        if not items:
            return 0
        if await self._held(team, user, profile, now):
            await self.services.hours.hold(team, user, [item.dumped() for item in items])
            return 0
        items = [*map(Item.loaded, await self.services.hours.take_held(team, user)), *items]
        return await self._send(client, team, user, language_of(profile, self.services.default_language), items)

    async def _held(self, team: str, user: str, profile: Profile, now: dt.datetime) -> bool:
        hours = self.services.hours
        zone = zone_named(profile.tz, self.services.zone)
        return held_until(now, await hours.quiet(team, user), await hours.snoozed_until(team, user), zone) is not None

    async def _release(self, team: str, user: str, now: dt.datetime) -> int:
        """What was held for a person, in one DM once their quiet hours or snooze are over."""
        client = await self.services.workspaces.client(team)
        if client is None:
            return 0
        try:
            profile = await load_profile(client, self.services.profiles, team, user)
        except ProfileProblem:
            return 0
        if profile.deleted or await self._held(team, user, profile, now):
            return 0
        items = [Item.loaded(raw) for raw in await self.services.hours.take_held(team, user)]
        return await self._send(client, team, user, language_of(profile, self.services.default_language), items) if items else 0

    async def _send(self, client: AsyncWebClient, team: str, user: str, lang: str, items: list[Item]) -> int:
        """One DM; when Slack refuses it for now, what it held is held again for the next round."""
        refused = await refusal_of(client.chat_postMessage(channel=user, unfurl_links=False, **news_message(lang, items).payload()),
                                   "telling a watcher what changed")
        if refused in GONE:
            return await self._drop(team, user, refused)
        if refused:
            await self.services.hours.hold(team, user, [item.dumped() for item in items])
            return 0
        return 1

    async def _drop(self, team: str, user: str, why: str | None) -> int:
        """A person Slack says is gone for good: their watch goes, and nothing is tried again."""
        await self.services.watches.stop(team, user)
        log.info("watch of %s/%s dropped: %s", team, user, why)
        return 0


@dataclass(frozen=True)
class Item:
    """One piece of news as the DM tells it, and why it came (kept as JSON while it is held)."""

    demarche: int
    number: int
    kind: str
    state: str
    follows: bool
    group: str  # the label of the person's group it is in, for why it came
    detail: str = ""  # as DossierChange's
    other: int | None = None

    @classmethod
    def of(cls, change: DossierChange, why: Why) -> Item:
        return cls(change.demarche, change.number, change.kind, change.state, why.relation is Relation.FOLLOWS, why.group,
                   change.detail, change.other)

    def dumped(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def loaded(cls, raw: str) -> Item:
        return cls(**json.loads(raw))


def news_words(lang: str, item: Item) -> str:
    """One item's words: `desk.news.<kind>`, or `desk.news.<kind>_<detail>` for a kind told two
    ways (a correction asked or resolved, a dossier moved to or away from the group)."""
    two_ways = item.kind in ("correction", "group")
    detail = item.detail
    if item.kind == "expiring":
        detail = format_date(dt.date.fromisoformat(item.detail), "long", locale=lang if lang in LANGUAGES else "en")
    return text(lang, f"desk.news.{item.kind}_{item.detail}" if two_ways else f"desk.news.{item.kind}",
                number=item.number, demarche=item.demarche, detail=detail or "—",
                group=item.other if item.other is not None else "—",
                state=text(lang, f"desk.state.{item.state}") if item.state in STATES else item.state)


def news_message(lang: str, items: list[Item]) -> Message:
    blocks: list[Block] = [SectionBlock(text=mrkdwn(text(lang, "desk.news_title", count=len(items))))]
    for item in items[:MOST_ITEMS]:
        blocks.append(SectionBlock(text=mrkdwn(f"{news_words(lang, item)}\n{_why(lang, item)}"), accessory=open_button(lang, item.number)))
    if len(items) > MOST_ITEMS:
        blocks.append(ContextBlock(elements=[mrkdwn(counted(lang, "desk.news_more", len(items) - MOST_ITEMS))]))
    blocks.append(ActionsBlock(elements=[*mute_buttons(lang, [(item.demarche, item.kind) for item in items]), *snooze_buttons(lang)]))
    assert len(blocks) <= MAX_BLOCKS
    return Message(text=text(lang, "desk.news_title", count=len(items)), blocks=blocks)


def _why(lang: str, item: Item) -> str:
    if item.follows:
        return text(lang, "hear.why_follows")
    kind = kind_name(lang, item.kind)
    if item.group:
        return text(lang, "hear.why_group", kind=kind, group=item.group, demarche=item.demarche)
    return text(lang, "hear.why_all", kind=kind, demarche=item.demarche)
