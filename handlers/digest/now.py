"""`/digest now [force]`: the day's digest of this channel posted at once, not at its hour.

A run can cost a walk of every démarche followed, so a person may ask NOW_PER_DAY times a day; `force`
(post again what was posted) is only for whoever asked first today here. The run is the scheduler's own
(DigestJob.run: its lease, each part once), so asking while it posts does nothing twice.
"""

from __future__ import annotations

import datetime as dt

from slack_bolt.context.respond.async_respond import AsyncRespond

from clients.dossiers.digest_store import Outcome
from handlers.blocks import Message, plain
from handlers.digest.job import DigestJob
from handlers.digest.post import DigestNotPosted
from handlers.digest.request import Where
from handlers.i18n import text

#: `/digest now` a person may ask for in a day: each can cost a walk of every démarche followed.
NOW_PER_DAY = 3


async def post_now(digests: DigestJob, where: Where, force: bool, respond: AsyncRespond) -> Message:
    """What can be said at once is (nothing to post, over the limit, already posted); a run is said
    started before it counts, then its outcome in words."""
    lang = where.lang
    subscription = await digests.subscriptions.get(where.team, where.channel)
    operators = digests.following.operators
    if subscription is None and operators is not None and operators.channel == where.channel:
        subscription = operators
    if subscription is None:
        return plain(text(lang, "digest_cmd.nothing_to_post"))
    day = dt.datetime.now(digests.following.zone).date()
    first_asker = await digests.following.asked_by(day, subscription.place, where.user)
    if force and first_asker != where.user:
        return plain(text(lang, "digest_cmd.force_refused"))
    if await digests.following.asked_today(day, where.user) > NOW_PER_DAY:
        return plain(text(lang, "digest_cmd.now_limit", most=NOW_PER_DAY))
    if not force and await digests.store.is_posted(day, subscription.place):  # said at once, not after "counting…"
        return plain(text(lang, "digest_cmd.already"))
    await respond(**plain(text(lang, "digest_cmd.started")).payload(response_type="ephemeral"))
    try:
        outcome = await digests.run(day, subscription=subscription, force=force)
    except DigestNotPosted as error:
        return plain(text(lang, "digest_cmd.not_posted", reason=str(error)))
    key = {Outcome.POSTED: "digest_cmd.posted", Outcome.ALREADY_POSTED: "digest_cmd.already", Outcome.BUSY: "digest_cmd.busy",
           Outcome.PAUSED: "digest_cmd.refused_here", Outcome.NO_TOKEN: "digest_cmd.no_token_here",
           Outcome.LAPSED: "digest_cmd.lapsed_now"}
    return plain(text(lang, key[outcome]))


