"""A channel that refuses the digest for good (archived, the bot removed, posting restricted):
known before counting when Slack says so, and then a channel's subscription paused with whoever
set it up told once; the operator's is tried again the next day."""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from slack_sdk.errors import SlackApiError

from clients.dossiers.digest_store import DigestStore, Outcome
from clients.dossiers.subscriptions import Subscription
from handlers.blocks import plain
from handlers.core import slack_refusals
from handlers.digest.messages import named_demarches
from handlers.digest.post import HINTS
from handlers.i18n import Mrkdwn, text

if TYPE_CHECKING:
    from slack_sdk.web.async_client import AsyncWebClient

log = logging.getLogger(__name__)


async def channel_refusal(slack: AsyncWebClient, channel: str) -> str | None:
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
        await _join(slack, channel)
    return None


async def _join(slack: AsyncWebClient, channel: str) -> None:
    """A public channel's digest text needs no membership (chat:write.public), its chart does."""
    try:
        await slack.conversations_join(channel=channel)
    except SlackApiError as error:
        log.warning("could not join %s for the digest's chart (Slack said %s); the text goes out without it",
                    channel, error.response.get("error"))


async def pause(slack: AsyncWebClient, store: DigestStore, day: dt.date, sub: Subscription, code: str, lang: str) -> Outcome:
    """The channel refuses for good: a channel's subscription is paused and whoever set it up is
    told once; the operator's is left until tomorrow, with one error line."""
    if sub.operator:
        if await store.note_refused(day, sub.place, code):
            log.error("the operator's digest cannot go to %s: Slack said %s (%s); fix DIGEST_CHANNEL or the channel, "
                      "it is tried again tomorrow", sub.channel, code, HINTS.get(code, code))
        return Outcome.PAUSED
    current = await store.subscriptions.get(sub.team, sub.channel)
    if current is None or current.paused is not None or not await store.note_refused(day, sub.place, code):
        return Outcome.PAUSED
    await store.subscriptions.save(replace(current, paused=code))
    log.warning("digest of %s paused: Slack said %s", sub.channel, code)
    told = text(lang, "digest_cmd.paused_dm", channel=Mrkdwn(f"<#{sub.channel}>"),
                demarches=named_demarches(lang, current.demarches, of=True),
                reason=slack_refusals.reason(lang, code), first=current.demarches[0])
    for person in dict.fromkeys(f.by for f in current.follows if f.by):
        await slack_refusals.attempted(slack.chat_postMessage(channel=person, **plain(told).payload()),
                                       "telling who set up the paused digest")
    return Outcome.PAUSED
