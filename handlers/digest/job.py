"""The daily digest job, Slack's side: post one digest per day and channel, each part once. What a
digest says comes from the dossiers wing (domain/dossiers/digests.py); this words it, posts it and
uploads its chart.

Several bot processes may run it: a Redis lock per day and a mark per posted part make sure
one digest goes out per day, each part once, even when a run is retried after a failure.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from slack_sdk.errors import SlackApiError

from clients.dossiers.accounts import DossierAccount, DossierAccounts
from clients.dossiers.counts import Progress
from clients.dossiers.digest_store import DigestStore, Outcome
from clients.dossiers.subscriptions import Subscription, Subscriptions
from clients.inference.service import InferenceService
from domain.dossiers.accounts import WorkspaceAccounts
from domain.dossiers.counting import Counting, Series
from domain.dossiers.digest_config import DigestConfig
from domain.dossiers.digests import DigestContent, Digests
from domain.dossiers.following import Following
from domain.dossiers.lines import Digest
from handlers.digest.chart import alt_text, render
from handlers.digest.lapses import profile_emails, tell_lapsed
from handlers.digest.messages import ai_line, digest_messages
from handlers.digest.pauses import channel_refusal, pause
from handlers.digest.post import DigestNotPosted, post_parts
from handlers.i18n import text

if TYPE_CHECKING:
    from slack_sdk.web.async_client import AsyncWebClient

    from handlers.workspace_access import Workspaces

log = logging.getLogger(__name__)


@dataclass
class DigestJob:
    """Posts the day's digest once per channel, however many processes run it. Its parts come from the
    dossiers wing, made over its fields as they are (they hold nothing else): `following` (who
    follows what, what is due), `counting` (démarches counted), `digests` (what a digest says)."""

    config: DigestConfig
    store: DigestStore
    # the operator's token (DS_API_TOKEN); None with OAuth installs that serve only workspaces' own tokens
    operator: DossierAccount | None
    workspaces: Workspaces | None  # posts with each workspace's client; None: counts only (a dry run)
    inference: InferenceService | None = None  # writes the optional AI line when configured
    # with OAuth installs: which token reads for each workspace; None: the operator's, for every one
    accounts: DossierAccounts | None = None

    @property
    def following(self) -> Following:
        return Following(self.config, self.store)

    @property
    def counting(self) -> Counting:
        return Counting(self.config, self.store, self.operator)

    @property
    def digests(self) -> Digests:
        return Digests(self.counting, self.following, self.inference)

    @property
    def subscriptions(self) -> Subscriptions:
        """What channels follow (handlers/services.py's Dossiers, for the desk and Home)."""
        return self.store.subscriptions

    @property
    def late_days(self) -> int:
        """After how many days a dossier waits too long (handlers/services.py's Dossiers)."""
        return self.config.late_days

    async def due(self, now: dt.datetime) -> list[tuple[dt.date, Subscription]]:
        """What the scheduler runs now (bot/serving/scheduler.py): the subscriptions whose hour has come."""
        return await self.following.due(now)

    async def account(self, team: str, enterprise: str | None = None) -> DossierAccount | None:
        """The token that reads for the workspace; None when none does (with OAuth installs)."""
        return await WorkspaceAccounts(self.operator, self.accounts).for_team(team, enterprise)

    async def run(
        self,
        day: dt.date,
        *,
        subscription: Subscription | None = None,
        force: bool = False,
        progress_for: Callable[[int], Progress] | None = None,
    ) -> Outcome:
        """Posts `day`'s digest to the subscription's channel (the operator's by default) unless it
        went out already (`force` posts it again, counted afresh)."""
        sub = subscription or self.following.operators
        assert sub is not None
        place = sub.place
        if not force and await self.store.is_posted(day, place):
            return Outcome.ALREADY_POSTED
        async with self.store.day_lease(day, place) as held:
            if not held:
                return Outcome.BUSY
            if not force and await self.store.is_posted(day, place):
                return Outcome.ALREADY_POSTED
            return await self._run_held(day, sub, force, progress_for)

    async def _run_held(self, day: dt.date, sub: Subscription, force: bool,
                        progress_for: Callable[[int], Progress] | None) -> Outcome:
        """Within the day's lease: whose token reads, whose rights still hold and whether the channel
        takes a digest — all before anything is counted or the inference service asked."""
        assert self.workspaces is not None
        slack = await self.workspaces.client(sub.team)
        if slack is None:  # the workspace uninstalled the app: its subscriptions are being removed
            return Outcome.PAUSED
        enterprise = await self.workspaces.enterprise_of(sub.team)
        account = self.operator if sub.operator else await self.account(sub.team, enterprise)
        if account is None:  # the workspace's own token was removed, or the operator's no longer serves it
            log.warning("digest of %s not posted: no dossier-service token serves workspace %s", sub.channel, sub.team)
            return Outcome.NO_TOKEN
        rights = await self.digests.rights(sub, account, profile_emails(slack))
        if rights.newly_lapsed:
            await tell_lapsed(slack, rights.subscription, rights.newly_lapsed, self.config.language)
        if not rights.subscription.live.follows:
            return Outcome.LAPSED
        sub = rights.subscription.live
        refusal = await channel_refusal(slack, sub.channel)
        if refusal is not None:
            return await pause(slack, self.store, day, sub, refusal, self.config.language)
        content = await self.digests.content(day, sub, account, instructions=text(self.config.language, "digest.ai_instructions"),
                                             fresh=force, progress_for=progress_for)
        return await self._post(slack, day, sub, content, force)

    async def _post(self, slack: AsyncWebClient, day: dt.date, sub: Subscription, content: DigestContent,
                    force: bool) -> Outcome:
        """Each part once (a forced run's parts apart from the day's), then the chart, then the day's mark."""
        channel, place, lang, digest = sub.channel, sub.place, self.config.language, content.digest
        log_failures(digest)
        messages = digest_messages(lang, day, digest.lines, digest.failures, ai_line(lang, content.summary))
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
            return await pause(slack, self.store, day, sub, error.code, self.config.language)
        await self._upload_chart(slack, day, channel, place, run, content.trend)
        await self.store.mark_posted(day, place)
        if force:
            await self.store.forced_run_done(day, place)
        log.info("digest of %s posted to %s: %d démarche(s), %d failed", day, channel, len(digest.lines), len(digest.failures))
        return Outcome.POSTED

    async def _upload_chart(self, slack: AsyncWebClient, day: dt.date, channel: str, place: str, run: str,
                            trend: Series | None) -> None:
        """Once per run. The text's sparklines are the digest: whatever stops the chart (a refusal,
        a network failure, a drawing error) leaves them standing, with one log line saying why."""
        part = f"{run}-chart"
        if trend is None or await self.store.is_posted(day, place, part):
            return
        lang = self.config.language
        try:
            png, alt = await render(lang, day, trend), alt_text(lang, day, trend)
            await slack.files_upload_v2(channel=channel, content=png, filename=f"digest-{day}.png",
                                        title=text(self.config.language, "chart.title"), alt_txt=alt)
        except SlackApiError as error:
            log.warning("digest chart not posted to %s: Slack said %s; the text trend stays", channel, error.response.get("error"))
            return
        except Exception as error:  # any failure of an optional part must not cost the digest
            log.warning("digest chart not posted to %s (%s); the text trend stays", channel, str(error) or type(error).__name__)
            return
        await self.store.mark_posted(day, place, part)


def log_failures(digest: Digest) -> None:
    """A démarche not counted: one line, in the operator's words; an error when only the operator
    can fix it (the token, its networks)."""
    for failure in digest.failures:
        log.log(logging.ERROR if failure.operator else logging.WARNING, "démarche %s not counted: %s (%s)",
                failure.number, text("en", f"digest.reason.{failure.reason}"), failure.detail)
