"""Slack's refusals of a post that are the channel's doing, not the bot's: each one said in words
(`refusal.<code>` in the catalogs), with "invite me" only where inviting the bot helps."""

from __future__ import annotations

from handlers.i18n import text

#: Refusals that will not change by trying again: the channel is gone, archived, or the bot may not post there.
CHANNEL_REFUSALS = frozenset({
    "channel_not_found", "is_archived", "not_in_channel", "restricted_action", "restricted_action_read_only_channel",
    "restricted_action_thread_locked", "restricted_action_thread_only_channel", "restricted_action_non_threadable_channel",
    "team_access_not_granted", "ekm_access_denied",
})
_INVITABLE = frozenset({"not_in_channel", "channel_not_found"})


def reason(lang: str, code: str) -> str:
    return text(lang, f"refusal.{code}") if code in CHANNEL_REFUSALS else code


def advice(lang: str, code: str) -> str:
    return text(lang, "refusal.invite") if code in _INVITABLE else ""
