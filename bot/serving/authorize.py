"""Each request's authorization with OAuth installs: its place's bot token, refreshed once across
processes when it rotates, and what Slack says of an organisation's workspaces.

Bolt's own installation-store authorization reads the store twice a request (the installation,
then the person's own) and rotates in every process at once; the app asks for no person's token,
so one read does, and one process rotates while the others go on with the still-good token.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.authorization.async_authorize import AsyncAuthorize
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.errors import SlackApiError, SlackTokenRotationError
from slack_sdk.oauth.installation_store import Installation
from slack_sdk.oauth.token_rotation.async_rotator import AsyncTokenRotator
from slack_sdk.web.async_client import AsyncWebClient

from bot.serving.installations import InstallationStore, InstallationUnreadable, Place
from clients.redis_keys import key

log = logging.getLogger(__name__)

ROTATE_MINUTES = 120  # a rotating token is refreshed when it has less than this left (Bolt's default)
ROTATE_LOCK_SECONDS = 30
LOCK_POLL = 0.05
EXPIRED_WAIT_SECONDS = 2.0  # for a token already expired while another process refreshes it (inside the 3 s ack)
# how often a process asks Slack again which workspaces an organisation's install serves, once a
# request came from one it did not know (auth.teams.list is Tier 2: 20 a minute)
MEMBERS_REFRESH = 600.0
MAX_CACHED = 10_000
#: the context key a listener-side middleware reads to answer "being repaired" (bot.serving.slack_app)
UNREADABLE = "installation_unreadable"

Spawn = Callable[[Coroutine[Any, Any, None]], None]


class Rotation:
    """Refreshes an expiring token once across processes: the first takes a Redis lock, rotates and
    saves; the others go on with the current token, still good for up to two hours, and wait
    (briefly) only once it has expired — Slack's refresh token changes on use, so a second refresh
    with the old one would fail."""

    def __init__(self, redis: aioredis.Redis, store: InstallationStore, rotator: AsyncTokenRotator,
                 minutes: int = ROTATE_MINUTES) -> None:
        self._redis = redis
        self._store = store
        self._rotator = rotator
        self.minutes = minutes

    def due(self, installation: Installation) -> bool:
        expires = installation.bot_token_expires_at
        return bool(installation.bot_refresh_token) and expires is not None and expires - time.time() < self.minutes * 60

    async def fresh(self, installation: Installation) -> Installation | None:
        """The installation with a token good for a while; None when no rotation was needed."""
        if not self.due(installation):
            return None
        place = Place.of(installation)
        lock = key("slack-rotate", place.kind, place.id)
        if await self._redis.set(lock, "1", nx=True, ex=ROTATE_LOCK_SECONDS):
            try:
                current = await self._store.read(place) or installation
                if not self.due(current):
                    return current  # another process rotated it meanwhile
                refreshed = await self._rotator.perform_token_rotation(installation=current, minutes_before_expiration=self.minutes)
                if refreshed is not None:
                    await self._store.async_save(refreshed)
                    log.info("the bot token of %s was refreshed", place.name)
                return refreshed
            finally:
                await self._redis.delete(lock)
        if (installation.bot_token_expires_at or 0) > time.time():
            return None
        for _ in range(int(EXPIRED_WAIT_SECONDS / LOCK_POLL)):  # the lock is another process's: polled
            if not await self._redis.exists(lock):
                break
            await asyncio.sleep(LOCK_POLL)
        return await self._store.read(place)


class Members:
    """Which workspaces an organisation-wide install serves, as Slack says: `auth.teams.list` with
    the organisation's token, asked when a request comes from a workspace this process has not
    seen Slack confirm (a request's own ids prove nothing: a Slack Connect channel brings people
    of other organisations). Background work and an organisation's uninstall rely on this list."""

    def __init__(self, store: InstallationStore, base: AsyncWebClient, spawn: Spawn) -> None:
        self._store = store
        self._base = base
        self._spawn = spawn
        self._asked: dict[str, float] = {}  # enterprise → when this process last asked Slack
        self._known: set[tuple[str, str]] = set()

    def seen(self, enterprise_id: str, team_id: str, token: str) -> None:
        """A request from `team_id` under the organisation's install: confirmed in the background
        (the request itself is served by the organisation's token either way)."""
        if (enterprise_id, team_id) in self._known:
            return
        if time.monotonic() - self._asked.get(enterprise_id, -MEMBERS_REFRESH) < MEMBERS_REFRESH:
            return
        self._asked[enterprise_id] = time.monotonic()
        self._spawn(self.ask_slack(enterprise_id, token))

    def installed(self, enterprise_id: str, token: str) -> None:
        """An organisation's install, just made (or made again): the workspaces it already serves."""
        self._asked[enterprise_id] = time.monotonic()
        self._spawn(self.ask_slack(enterprise_id, token))

    async def ask_slack(self, enterprise_id: str, token: str) -> None:
        teams: list[str] = []
        cursor = None
        try:
            for _ in range(50):  # 50 pages of 1,000 workspaces
                answer = await self._base.auth_teams_list(token=token, limit=1000, cursor=cursor)
                teams += [str(team["id"]) for team in answer.get("teams") or [] if team.get("id")]
                cursor = (answer.get("response_metadata") or {}).get("next_cursor")
                if not cursor:
                    break
            known = set(await self._store.teams_of(enterprise_id))
            await self._store.add_members(enterprise_id, sorted(set(teams) - known))
            await self._store.remove_members(enterprise_id, sorted(known - set(teams)))
        except (SlackApiError, RedisError) as error:
            log.warning("could not learn the workspaces of organisation %s: %s", enterprise_id, _said(error))
            self._asked.pop(enterprise_id, None)
            return
        self._known |= {(enterprise_id, team) for team in teams}
        log.info("organisation %s: its install serves %d workspace(s)", enterprise_id, len(teams))

    def forget(self, enterprise_id: str, teams: list[str] | None = None) -> None:
        """The organisation's install left the workspaces (all of them when None)."""
        self._known = {pair for pair in self._known if pair[0] != enterprise_id or (teams is not None and pair[1] not in teams)}
        self._asked.pop(enterprise_id, None)

    def granted(self, enterprise_id: str, teams: list[str]) -> None:
        self._known |= {(enterprise_id, team) for team in teams}


class Authorize(AsyncAuthorize):
    def __init__(self, store: InstallationStore, rotation: Rotation, members: Members) -> None:
        self._store = store
        self._rotation = rotation
        self.members = members
        self._results: dict[str, AuthorizeResult] = {}  # auth.test's answer per token, as Bolt caches it

    async def __call__(self, *, context: AsyncBoltContext, enterprise_id: str | None, team_id: str | None,
                       user_id: str | None, **actor: Any) -> AuthorizeResult | None:
        try:
            installation = await self._store.async_find_installation(
                enterprise_id=enterprise_id, team_id=team_id, is_enterprise_install=context.is_enterprise_install)
        except InstallationUnreadable:
            log.error("the installation of %s does not open with TOKEN_ENCRYPTION_KEY: was the key changed? "
                      "Put the previous key back (after the new one, comma separated)", team_id or enterprise_id)
            context[UNREADABLE] = True
            return AuthorizeResult(enterprise_id=enterprise_id, team_id=team_id, user_id=user_id)
        if installation is None or not installation.bot_token:
            return None
        try:
            installation = await self._rotation.fresh(installation) or installation
        except SlackTokenRotationError as error:
            log.error("the bot token of %s could not be refreshed: %s", Place.of(installation).name, _said(error))
            return None
        token = str(installation.bot_token)
        # Bolt leaves `team_id` empty for an organisation's events (their grant's team is null):
        # its commands and buttons name the workspace, which is enough to ask Slack
        if context.is_enterprise_install and enterprise_id and team_id:
            self.members.seen(enterprise_id, team_id, token)
        if token not in self._results:
            try:
                answer = await context.client.auth_test(token=token)
            except SlackApiError as error:
                log.info("the stored bot token of %s is refused by Slack: %s", Place.of(installation).name, _said(error))
                return None
            if len(self._results) >= MAX_CACHED:  # rotated tokens would pile up
                self._results.clear()
            self._results[token] = AuthorizeResult.from_auth_test_response(
                auth_test_response=answer, bot_token=token, user_token=None, bot_scopes=installation.bot_scopes, user_scopes=None)
        return self._results[token]


def _said(error: Exception) -> str:
    response = getattr(error, "response", None)
    return str(response.get("error")) if response is not None and hasattr(response, "get") else type(error).__name__
