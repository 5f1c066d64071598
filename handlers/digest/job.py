"""The daily digest job: count each configured démarche, post one digest per day, remember it.

Several bot processes may run it: a Redis lock per day and a mark per posted part make sure
one digest goes out per day, each part once, even when a run is retried after a failure.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from slack_sdk.errors import SlackApiError

from clients.dossiers.access import Membership
from clients.dossiers.accounts import DossierAccount, DossierAccounts
from clients.dossiers.counts import DemarcheCounts, DossierCounter, Progress
from clients.dossiers.digest_store import DigestStore, Outcome, Snapshot
from clients.dossiers.errors import DossierConfigError, DossierServiceError
from clients.dossiers.models import STATES
from clients.dossiers.rate_limit import URGENT
from clients.dossiers.records import Counted, Needs
from clients.dossiers.subscriptions import Followed, Subscription, Subscriptions
from clients.inference.service import InferenceService
from handlers.blocks import plain
from handlers.core import slack_refusals
from handlers.digest.chart import alt_text, by_state, render
from handlers.digest.hours import due_day
from handlers.digest.messages import (
    DigestFailure,
    DigestLine,
    digest_messages,
    numbers_text,
)
from handlers.digest.post import HINTS, DigestNotPosted, post_parts
from handlers.digest.rights import with_rights
from handlers.digest.summary import summary_line
from handlers.i18n import Mrkdwn, text

if TYPE_CHECKING:
    from slack_sdk.web.async_client import AsyncWebClient

    from handlers.workspace_access import Workspaces

log = logging.getLogger(__name__)

TREND_DAYS = 14
CONCURRENT_DEMARCHES = 4


@dataclass
class Digest:
    lines: list[DigestLine]
    failures: list[DigestFailure]


@dataclass(frozen=True)
class DigestConfig:
    """What the operator set for digests (bot.config reads it from the environment)."""

    language: str  # DEFAULT_LANGUAGE: the digests' own
    zone: ZoneInfo  # DIGEST_TIMEZONE
    at: dt.time  # DIGEST_TIME: the operator's digest, and the default hour of /digest subscribe
    channel: str | None = None  # DIGEST_CHANNEL
    demarches: tuple[int, ...] = ()  # DIGEST_DEMARCHES
    allowed: frozenset[int] | None = None  # DIGEST_ALLOWED_DEMARCHES; None: any the token can read
    max_per_person: int = 10  # DIGEST_MAX_PER_PERSON
    late_days: int = 7  # DIGEST_LATE_DAYS


@dataclass
class DigestJob:
    config: DigestConfig
    store: DigestStore
    # the operator's token (DS_API_TOKEN); None with OAuth installs that serve only workspaces' own tokens
    operator: DossierAccount | None
    workspaces: Workspaces | None  # posts with each workspace's client; None: counts only (a dry run)
    inference: InferenceService | None = None  # writes the optional AI line when configured
    # with OAuth installs: which token reads for each workspace; None: the operator's, for every one
    accounts: DossierAccounts | None = None

    async def account(self, team: str, enterprise: str | None = None) -> DossierAccount | None:
        """The token that reads for the workspace; None when none does (with OAuth installs)."""
        if self.accounts is None:
            return self.operator
        return await self.accounts.for_team(team, enterprise)

    async def compute(
        self,
        day: dt.date,
        progress_for: Callable[[int], Progress] | None = None,
        *,
        demarches: Sequence[int] | None = None,
        fresh: bool = False,
        account: DossierAccount | None = None,
    ) -> Digest:
        """Counts the démarches a few at a time (the token's allowance is shared through the rate
        limiter, so concurrency only fills each window faster); failures are kept aside. A démarche
        another channel's digest counted within the run window is not counted again, unless `fresh`.
        `account` reads, the operator's by default."""
        limit = asyncio.Semaphore(CONCURRENT_DEMARCHES)
        reader = account or self.operator
        assert reader is not None, "no dossier-service token to count with"

        async def one(number: int) -> DigestLine | DigestFailure:
            async with limit:
                previous = await self.store.previous(number, before=day)
                try:
                    counts, reused = await self._count(reader.counter, number, day, previous,
                                                       progress_for(number) if progress_for else None, fresh=fresh)
                except DossierServiceError as error:
                    level = logging.ERROR if isinstance(error, DossierConfigError) else logging.WARNING
                    log.log(level, "démarche %s not counted: %s (%s)", number, text("en", f"digest.reason.{error.reason}"),
                            error.detail)
                    return DigestFailure(number, error.reason)
                history = [*(await self.store.history(number, day, TREND_DAYS))[:-1], counts.total]
                return DigestLine(counts, previous, history, reused, self.config.late_days)

        numbers = self.config.demarches if demarches is None else demarches
        results = await asyncio.gather(*(one(number) for number in numbers))
        return Digest([r for r in results if isinstance(r, DigestLine)], [r for r in results if isinstance(r, DigestFailure)])

    async def _count(
        self, counter: DossierCounter, number: int, day: dt.date, previous: Snapshot | None, progress: Progress | None, *, fresh: bool
    ) -> tuple[DemarcheCounts, bool]:
        """The démarche's counts, and whether they are another run's, reused."""
        async with self.store.counting(number, day):
            shared = None if fresh else await self.store.shared_count(number, day)
            if shared is not None:
                return shared, True
            counts = await counter.count(number, since=previous.at if previous else None, progress=progress)
            await self.store.record(counts, day)
            await self.store.share_count(counts, day)
            return counts, False

    async def _for_groups(self, digest: Digest, sub: Subscription, account: DossierAccount) -> Digest:
        """A démarche followed for one groupe instructeur counts that group's dossiers only, named by
        its label; the day-to-day change and the trend are the whole démarche's, so they are left out."""
        lines = []
        for line in digest.lines:
            group = sub.group_of(line.counts.number)
            if group is None:
                lines.append(line)
                continue
            part = line.counts.groups.get(group) or Counted({state: 0 for state in STATES}, Needs())
            try:
                label = (await self.membership(line.counts.number, account)).groups.get(group, (f"n° {group}", frozenset()))[0]
            except DossierServiceError:
                label = f"n° {group}"
            counts = replace(line.counts, by_state=part.by_state, needs=part.needs, groups={})
            lines.append(replace(line, counts=counts, previous=None, history=[], group=label, group_number=group))
        return replace(digest, lines=lines)

    async def chart(self, day: dt.date, digest: Digest) -> tuple[bytes, str] | None:
        """The PNG of the digest's 14-day trend by state and its alternative text; None without lines
        (a group's line has no trend of its own)."""
        whole = [line for line in digest.lines if line.group is None]
        if not whole:
            return None
        days = [await self.store.snapshots(line.counts.number, day, TREND_DAYS) for line in whole]
        series = by_state(days)
        lang = self.config.language
        return await render(lang, day, series), alt_text(lang, day, series)

    async def _upload_chart(self, slack: AsyncWebClient, day: dt.date, channel: str, place: str, run: str, digest: Digest) -> None:
        """Once per run. The text's sparklines are the digest: whatever stops the chart (a refusal,
        a network failure, a drawing error) leaves them standing, with one log line saying why."""
        part = f"{run}-chart"
        if await self.store.is_posted(day, place, part):
            return
        try:
            chart = await self.chart(day, digest)
            if chart is None:
                return
            png, alt = chart
            await slack.files_upload_v2(channel=channel, content=png, filename=f"digest-{day}.png",
                                        title=text(self.config.language, "chart.title"), alt_txt=alt)
        except SlackApiError as error:
            log.warning("digest chart not posted to %s: Slack said %s; the text trend stays", channel, error.response.get("error"))
            return
        except Exception as error:  # any failure of an optional part must not cost the digest
            log.warning("digest chart not posted to %s (%s); the text trend stays", channel, str(error) or type(error).__name__)
            return
        await self.store.mark_posted(day, place, part)

    async def summary(self, digest: Digest) -> str | None:
        """The AI line, when the inference service is configured and answers in time."""
        if self.inference is None:
            return None
        return await summary_line(self.inference, self.config.language, digest.lines)

    @property
    def subscriptions(self) -> Subscriptions:
        return self.store.subscriptions

    @property
    def late_days(self) -> int:
        return self.config.late_days

    @property
    def default_time(self) -> dt.time:
        return self.config.at

    @property
    def zone(self) -> ZoneInfo:
        return self.config.zone

    @property
    def allowed(self) -> frozenset[int] | None:
        return self.config.allowed

    @property
    def max_per_person(self) -> int:
        return self.config.max_per_person

    async def membership(self, number: int, account: DossierAccount | None = None) -> Membership:
        """Who may follow the démarche, as `account` (the operator's by default) reads it; raises the
        service's refusal (unknown, not readable, down)."""
        reader = account or self.operator
        assert reader is not None, "no dossier-service token to read with"
        return await reader.access.membership(number)

    async def asked_by(self, day: dt.date, place: str, user: str | None = None) -> str | None:
        return await self.store.asked_by(day, place, user)

    async def asked_today(self, day: dt.date, user: str) -> int:
        """How many digests `user` asked for today with `/digest now`, this one included."""
        return await self.store.count_asked(day, user)

    async def forget_unfollowed(self, demarches: set[int]) -> None:
        """What the bot keeps of démarches nobody follows any more goes at once."""
        operators = set(self.config.demarches)
        for number in demarches - operators:
            if not await self.subscriptions.followed_anywhere(number):
                await self.store.forget(number)

    async def due(self, now: dt.datetime) -> list[tuple[dt.date, Subscription]]:
        """Every subscription whose hour has come today, the operator's first, then by hour; paused
        ones and an operator's digest its channel refused today are left out."""
        due: list[tuple[dt.date, Subscription]] = []
        operators = self.operators
        day = due_day(now, operators.at, self.zone) if operators is not None else None
        if operators is not None and day is not None and not await self.store.refused(day, operators.place):
            due.append((day, operators))
        channels = sorted((s for s in await self.subscriptions.all() if s.paused is None), key=lambda s: s.at)
        return due + [(day, s) for s in channels if (day := due_day(now, s.at, self.zone)) is not None]

    @property
    def operators(self) -> Subscription | None:
        """The operator's own subscription (DIGEST_CHANNEL, DIGEST_DEMARCHES, DIGEST_TIME)."""
        config = self.config
        if not (config.channel and config.demarches):
            return None
        return Subscription(config.channel, tuple(Followed(n) for n in config.demarches), config.at, operator=True)

    async def run(
        self,
        day: dt.date,
        *,
        subscription: Subscription | None = None,
        force: bool = False,
        progress_for: Callable[[int], Progress] | None = None,
    ) -> Outcome:
        """Posts `day`'s digest to the subscription's channel (the operator's by default) unless it
        went out already (`force` posts it again). The operator's digest counts as urgent: its
        requests find room in every window of the token's allowance, whatever else is counting."""
        sub = subscription or self.operators
        assert self.workspaces is not None and sub is not None
        channel, place = sub.channel, sub.place
        if not force and await self.store.is_posted(day, place):
            return Outcome.ALREADY_POSTED
        async with self.store.day_lease(day, place) as held:
            if not held:
                return Outcome.BUSY
            if not force and await self.store.is_posted(day, place):
                return Outcome.ALREADY_POSTED
            slack = await self.workspaces.client(sub.team)
            if slack is None:  # the workspace uninstalled the app: its subscriptions are being removed
                return Outcome.PAUSED
            enterprise = await self.workspaces.enterprise_of(sub.team)
            account = self.operator if sub.operator else await self.account(sub.team, enterprise)
            if account is None:  # the workspace's own token was removed, or the operator's no longer serves it
                log.warning("digest of %s not posted: no dossier-service token serves workspace %s", channel, sub.team)
                return Outcome.NO_TOKEN
            sub = await with_rights(slack, lambda number: self.membership(number, account), self.subscriptions, sub,
                                    self.config.language)
            if not sub.live.follows:
                return Outcome.LAPSED
            sub = sub.live
            refusal = await self._refusal(slack, channel)  # before counting and before asking the inference service
            if refusal is not None:
                return await self._refused(slack, day, sub, refusal)
            urgent = URGENT.set(sub.operator)
            try:
                counted = await self.compute(day, progress_for, demarches=sub.demarches, fresh=force, account=account)
                digest = await self._for_groups(counted, sub, account)
            finally:
                URGENT.reset(urgent)
            lang = self.config.language
            messages = digest_messages(lang, day, digest.lines, digest.failures, await self.summary(digest))
            run = await self.store.forced_run(day, place) if force else "daily"
            try:
                await post_parts(
                    slack,
                    channel,
                    messages,
                    already_posted=lambda part: self.store.is_posted(day, place, f"{run}-{part}"),
                    mark_posted=lambda part: self.store.mark_posted(day, place, f"{run}-{part}"),
                )
            except DigestNotPosted as error:
                if not error.permanent:
                    raise
                return await self._refused(slack, day, sub, error.code)
            await self._upload_chart(slack, day, channel, place, run, digest)
            await self.store.mark_posted(day, place)
            if force:
                await self.store.forced_run_done(day, place)
            log.info("digest of %s posted to %s: %d démarche(s), %d failed", day, channel, len(digest.lines), len(digest.failures))
            return Outcome.POSTED

    async def _refusal(self, slack: AsyncWebClient, channel: str) -> str | None:
        """Slack's reason the channel cannot take a digest, when it is known before counting."""
        try:
            info = (await slack.conversations_info(channel=channel)).get("channel") or {}
        except SlackApiError as error:
            code = str(error.response.get("error"))
            return code if code in slack_refusals.CHANNEL_REFUSALS else None  # e.g. no scope to look at a DM: try posting
        except Exception:  # Slack unreachable now: the post will tell
            return None
        if info.get("is_archived"):
            return "is_archived"
        if info.get("is_private") and not info.get("is_member") and not info.get("is_im"):
            return "not_in_channel"
        if not info.get("is_private") and not info.get("is_im") and info.get("is_member") is False:
            await self._join(slack, channel)
        return None

    async def _join(self, slack: AsyncWebClient, channel: str) -> None:
        """A public channel's digest text needs no membership (chat:write.public), its chart does."""
        try:
            await slack.conversations_join(channel=channel)
        except SlackApiError as error:
            log.warning("could not join %s for the digest's chart (Slack said %s); the text goes out without it",
                        channel, error.response.get("error"))

    async def _refused(self, slack: AsyncWebClient, day: dt.date, sub: Subscription, code: str) -> Outcome:
        """The channel refuses for good: a channel's subscription is paused and whoever set it up is
        told once; the operator's is left until tomorrow, with one error line."""
        lang = self.config.language
        if sub.operator:
            if await self.store.note_refused(day, sub.place, code):
                log.error("the operator's digest cannot go to %s: Slack said %s (%s); fix DIGEST_CHANNEL or the channel, "
                          "it is tried again tomorrow", sub.channel, code, HINTS.get(code, code))
            return Outcome.PAUSED
        current = await self.subscriptions.get(sub.team, sub.channel)
        if current is None or current.paused is not None or not await self.store.note_refused(day, sub.place, code):
            return Outcome.PAUSED
        await self.subscriptions.save(replace(current, paused=code))
        log.warning("digest of %s paused: Slack said %s", sub.channel, code)
        told = text(lang, "digest_cmd.paused_dm", channel=Mrkdwn(f"<#{sub.channel}>"), demarches=numbers_text(current.demarches),
                    reason=slack_refusals.reason(lang, code), first=current.demarches[0])
        for person in dict.fromkeys(f.by for f in current.follows if f.by):
            try:
                await slack.chat_postMessage(channel=person, **plain(told).payload())
            except SlackApiError as error:
                log.warning("could not tell who set up the paused digest: %s", error.response.get("error"))
        return Outcome.PAUSED
