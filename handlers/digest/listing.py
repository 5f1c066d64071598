"""`/digest list`: what this channel follows, at what hour, and when it is posted next.

Needs nobody's profile: anyone in the channel may see what it follows and who set each démarche up.
How a followed group and the next post are worded is kept here and used by subscribing's answers too,
so that what the channel is told when it subscribes reads as `/digest list` shows it.
"""

from __future__ import annotations

import datetime as dt

from clients.dossiers.accounts import DossierAccount
from clients.dossiers.errors import DossierServiceError
from clients.dossiers.subscriptions import Followed, Subscription
from domain.dossiers.schedule import next_due
from handlers.blocks import Message, plain
from handlers.core import slack_refusals
from handlers.digest.job import DigestJob
from handlers.digest.messages import named_demarches, named_labels
from handlers.i18n import Mrkdwn, clock, day_at, text, zone_words


async def list_here(digests: DigestJob, account: DossierAccount, team: str, channel: str, lang: str) -> Message:
    """The channel's own subscription (paused or lapsed entries said so) and the operator's, when it posts here."""
    lines = []
    mine = await digests.subscriptions.get(team, channel)
    if mine is not None:
        entries = []
        for f in mine.follows:
            group = " " + text(lang, "digest_cmd.group", group=await group_label(digests, account, f)) if f.group is not None else ""
            setter = f" ({text(lang, 'digest_cmd.set_up_by', person=Mrkdwn(f'<@{f.by}>'))})" if f.by else ""
            lapsed = f" ({text(lang, 'digest_cmd.lapsed_entry')})" if f.lapsed else ""
            entries.append(f"n° {f.demarche}{group}{setter}{lapsed}")
        lines.append(text(lang, "digest_cmd.list", demarches=named_labels(lang, entries), time=clock(lang, mine.at),
                          zone=zone_words(lang, digests.following.zone), next=await next_run(digests, mine, lang)))
        if mine.paused:
            lines.append(text(lang, "digest_cmd.paused", reason=slack_refusals.reason(lang, mine.paused)))
    operators = digests.following.operators
    if operators is not None and operators.channel == channel:
        lines.append(text(lang, "digest_cmd.operators", demarches=named_demarches(lang, operators.demarches),
                          time=clock(lang, operators.at), zone=zone_words(lang, digests.following.zone)))
    return plain("\n".join(lines) or text(lang, "digest_cmd.none"))


async def group_label(digests: DigestJob, account: DossierAccount, followed: Followed) -> str:
    """A followed group by its label, as the service names it (its number when that cannot be read)."""
    try:
        label = (await digests.counting.membership(followed.demarche, account)).groups.get(followed.group or 0, ("", frozenset()))[0]
    except DossierServiceError:
        label = ""
    return label or f"n° {followed.group}"


async def next_run(digests: DigestJob, subscription: Subscription, lang: str) -> str:
    """When the scheduler will post next, by the rules it follows (domain/dossiers/schedule.py)."""
    now = dt.datetime.now(dt.UTC)
    zone = digests.following.zone
    today = now.astimezone(zone).date()
    due = next_due(now, subscription.at, zone, subscription.since, await digests.store.is_posted(today, subscription.place))
    if due is None:
        return text(lang, "digest_cmd.next_now")
    return day_at(lang, due)
