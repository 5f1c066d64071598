"""The daily digest job: post one digest per day and channel, remember it (counting: counting.py;
who follows what: following.py).

Several bot processes may run it: a Redis lock per day and a mark per posted part make sure
one digest goes out per day, each part once, even when a run is retried after a failure.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from slack_sdk.errors import SlackApiError

from clients.dossiers.accounts import DossierAccount, DossierAccounts
from clients.dossiers.counts import Progress
from clients.dossiers.digest_store import DigestStore, Outcome
from clients.dossiers.rate_limit import PRIORITY, Priority
from clients.dossiers.subscriptions import Subscription
from clients.inference.service import InferenceService
from handlers.blocks import plain
from handlers.core import slack_refusals
from handlers.digest.counting import Digest, DigestConfig, DigestCounting
from handlers.digest.following import DigestFollowing
from handlers.digest.messages import (
    digest_messages,
    named_demarches,
)
from handlers.digest.post import HINTS, DigestNotPosted, post_parts
from handlers.digest.rights import with_rights
from handlers.i18n import Mrkdwn, text

if TYPE_CHECKING:
    from slack_sdk.web.async_client import AsyncWebClient

    from handlers.workspace_access import Workspaces

log = logging.getLogger(__name__)

TREND_DAYS = 14
CONCURRENT_DEMARCHES = 4


@dataclass
class DigestJob(DigestCounting, DigestFollowing):
    """Posts the day's digest once per channel, however many processes run it: counting and who follows
    what come from its two parts (counting.py, following.py)."""


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
            urgent = PRIORITY.set(Priority.OPERATOR if sub.operator else Priority.DIGEST)
            try:
                counted = await self.compute(day, progress_for, demarches=sub.demarches, fresh=force, account=account)
                digest = await self.for_groups(counted, sub, account)
            finally:
                PRIORITY.reset(urgent)
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
        told = text(lang, "digest_cmd.paused_dm", channel=Mrkdwn(f"<#{sub.channel}>"),
                    demarches=named_demarches(lang, current.demarches, of=True),
                    reason=slack_refusals.reason(lang, code), first=current.demarches[0])
        for person in dict.fromkeys(f.by for f in current.follows if f.by):
            await slack_refusals.attempted(slack.chat_postMessage(channel=person, **plain(told).payload()),
                                           "telling who set up the paused digest")
        return Outcome.PAUSED
