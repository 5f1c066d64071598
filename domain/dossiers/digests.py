"""What a channel's digest of a day says, as data: its démarches counted (a group's share for a
group's digest, at the priority of whose digest it is), the AI line's sentence, the chart's
series; and whose rights still hold. The surface words it, posts it once, and draws the chart."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from clients.dossiers.accounts import DossierAccount
from clients.dossiers.counts import Progress
from clients.dossiers.rate_limit import PRIORITY, Priority
from clients.dossiers.subscriptions import Subscription
from clients.inference.service import InferenceService
from domain.dossiers.counting import Counting, Series
from domain.dossiers.following import Following
from domain.dossiers.lines import Digest
from domain.dossiers.rights import Emails, Rights, with_rights
from domain.dossiers.summary import summary_sentence


@dataclass(frozen=True)
class DigestContent:
    """What to post: the lines and failures, the AI's sentence (None without the service or its
    answer), and the 14-day series by state for the chart (None when no whole démarche was counted)."""

    digest: Digest
    summary: str | None
    trend: Series | None


@dataclass(frozen=True)
class Digests:
    counting: Counting
    following: Following
    inference: InferenceService | None = None  # writes the optional AI line when configured

    async def rights(self, sub: Subscription, account: DossierAccount, emails: Emails) -> Rights:
        """The subscription as its setters' rights stand now (domain/dossiers/rights.py)."""
        return await with_rights(emails, lambda number: self.counting.membership(number, account),
                                 self.following.subscriptions, sub)

    async def content(
        self,
        day: dt.date,
        sub: Subscription,
        account: DossierAccount,
        *,
        instructions: str,
        fresh: bool = False,
        progress_for: Callable[[int], Progress] | None = None,
    ) -> DigestContent:
        """The operator's digest counts as urgent: its requests find room in every window of the
        token's allowance, whatever else is counting. `instructions`: the AI line's, in the
        digest's language."""
        urgent = PRIORITY.set(Priority.OPERATOR if sub.operator else Priority.DIGEST)
        try:
            counted = await self.counting.compute(day, progress_for, demarches=sub.demarches, fresh=fresh, account=account)
            digest = await self.counting.for_groups(counted, sub, account)
        finally:
            PRIORITY.reset(urgent)
        return DigestContent(digest, await self.summary(digest, instructions), await self.counting.trend(day, digest))

    async def summary(self, digest: Digest, instructions: str) -> str | None:
        """The AI's sentence, when the inference service is configured and answers in time."""
        if self.inference is None:
            return None
        return await summary_sentence(self.inference, instructions, digest.lines)
