"""Slack's refusals, in one place. A listener does not catch `SlackApiError` itself: a call whose
refusal changes nothing but a log line goes through `attempted` (or `refusal_of`, when the caller
says the refusal's code in words); only code that acts on one named refusal (`not_in_channel` → join,
`invalid_scheduled_message_id` → already gone) catches the error, and reads it with `code_of`.
What a person reads of a refusal of a post that is the channel's doing, not the bot's, is said
here too (`refusal.<code>` in the catalogs), with "invite me" only where inviting the bot helps."""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TypeVar

from slack_sdk.errors import SlackApiError

from handlers.i18n import text

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Refusals that will not change by trying again: the channel is gone, archived, or the bot may not post there.
CHANNEL_REFUSALS = frozenset({
    "channel_not_found", "is_archived", "not_in_channel", "restricted_action", "restricted_action_read_only_channel",
    "restricted_action_thread_locked", "restricted_action_thread_only_channel", "restricted_action_non_threadable_channel",
    "team_access_not_granted", "ekm_access_denied",
})
_INVITABLE = frozenset({"not_in_channel", "channel_not_found"})


def code_of(error: SlackApiError) -> str:
    """Slack's name for a refusal (`not_in_channel`), never its whole answer."""
    return str(error.response.get("error") or "unknown")


async def attempted(call: Awaitable[T], doing: str) -> T | None:
    """The call's answer, or None when Slack refused it: the refusal logged as `doing: Slack said <code>`."""
    try:
        return await call
    except SlackApiError as error:
        log.warning("%s: Slack said %s", doing, code_of(error))
        return None


async def refusal_of(call: Awaitable[object], doing: str) -> str | None:
    """None when the call went; else Slack's refusal's code (logged as `attempted` logs it), for the caller to say."""
    try:
        await call
    except SlackApiError as error:
        log.warning("%s: Slack said %s", doing, code_of(error))
        return code_of(error)
    return None


def reason(lang: str, code: str) -> str:
    return text(lang, f"refusal.{code}") if code in CHANNEL_REFUSALS else code


def advice(lang: str, code: str) -> str:
    return text(lang, "refusal.invite") if code in _INVITABLE else ""
