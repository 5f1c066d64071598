"""The requesting person's e-mail and language, from their Slack profile only.

The e-mail decides whose rooms the bot acts on, so it never comes from typed text. Profiles are
cached in Redis for a bounded time: `users.info` is rate limited (tier 4) and every command needs it.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import asdict, dataclass
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from clients.json_cache import JsonCache
from handlers.i18n import language_for

PROFILE_TTL = 600

#: A command's person's cached profile, read along with the command's claim (`dedupe.first_delivery`,
#: one Redis round trip for both): the first `load_profile` of that person in the request takes it
#: instead of reading Redis again. A dict, so that taking it is seen by the tasks the request starts.
_READ_WITH_CLAIM: ContextVar[dict[tuple[str, str], Any] | None] = ContextVar("profile_read_with_claim", default=None)


def read_with_claim(team_id: str, user_id: str, cached: Any | None) -> None:
    _READ_WITH_CLAIM.set({(team_id, user_id): cached})


async def _cached(cache: JsonCache, team_id: str, user_id: str) -> Any | None:
    early = _READ_WITH_CLAIM.get()
    if early and (team_id, user_id) in early:
        return early.pop((team_id, user_id))
    return await cache.get(team_id, user_id)


@dataclass(frozen=True)
class Profile:
    email: str | None
    email_confirmed: bool = True
    is_bot: bool = False
    locale: str | None = None
    deleted: bool = False
    tz: str | None = None  # IANA name (`users.info` → `tz`): planned rooms are read and shown in it
    is_admin: bool = False  # a workspace administrator or owner: sees Home's Settings


class ProfileProblem(Exception):
    """The profile cannot be used to act on the room service; `key` names the message to show."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


async def load_profile(client: AsyncWebClient, cache: JsonCache, team_id: str, user_id: str, *,
                       fresh: bool = False) -> Profile:
    """`fresh`: read from Slack whatever is cached (the account as it is now: deactivated, or not)."""
    cached = None if fresh else await _cached(cache, team_id, user_id)
    if cached is not None:
        return Profile(**{name: cached[name] for name in Profile.__dataclass_fields__ if name in cached})
    try:
        response = await client.users_info(user=user_id, include_locale=True)
    except SlackApiError as error:
        raise ProfileProblem("error.profile_unavailable") from error
    user = response["user"]
    profile = Profile(
        email=user.get("profile", {}).get("email") or None,
        # `is_email_confirmed` is absent from some workspaces' answers: only an explicit False refuses.
        email_confirmed=user.get("is_email_confirmed", True) is not False,
        is_bot=bool(user.get("is_bot") or user.get("is_app_user")),
        locale=user.get("locale"),
        deleted=bool(user.get("deleted")),
        tz=user.get("tz") or None,
        is_admin=bool(user.get("is_admin") or user.get("is_owner")),
    )
    await cache.put(asdict(profile), team_id, user_id)
    return profile


def usable_email(profile: Profile) -> str:
    if profile.is_bot:
        raise ProfileProblem("error.bot_user")
    if not profile.email:
        raise ProfileProblem("error.no_email")
    if not profile.email_confirmed:
        raise ProfileProblem("error.email_unconfirmed")
    return profile.email


def language_of(profile: Profile | None, default: str) -> str:
    return language_for(profile.locale if profile else None, default)


async def profile_or_none(client: AsyncWebClient, cache: JsonCache, team_id: str, user_id: str) -> Profile | None:
    """The profile, or None when Slack will not give it (a person who left, a rate limit)."""
    try:
        return await load_profile(client, cache, team_id, user_id)
    except ProfileProblem:
        return None
