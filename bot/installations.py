"""Every workspace's installation, kept in Redis for OAuth installs (`SLACK_CLIENT_ID`).

`slack_sdk` ships no Redis store (slack-platform.md §10), so this is one, behind Bolt's
installation-store and state-store interfaces. An installation is kept whole, sealed with
`TOKEN_ENCRYPTION_KEY`; a workspace's is found by its team id alone (Slack's team ids are unique
across organisations), an organisation-wide one by its enterprise id, and a workspace of an
organisation leads to the organisation's once a request from it was seen. Tokens that rotate are
refreshed by one process at a time: the others wait for it and read what it saved.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError
from slack_bolt.authorization.async_authorize import AsyncInstallationStoreAuthorize
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.error import BoltError
from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore
from slack_sdk.oauth.token_rotation.async_rotator import AsyncTokenRotator
from slack_sdk.web.async_client import AsyncWebClient

from clients.redis_keys import key
from clients.secret_box import SecretBox
from clients.storage import as_text
from clients.workspace_data import forget_team

log = logging.getLogger(__name__)

STATE_SECONDS = 600  # an "Add to Slack" link is good for ten minutes, once
ROTATE_MINUTES = 120  # a rotating token is refreshed when it has less than this left (Bolt's default)
ROTATE_LOCK_SECONDS = 30
# how often a process writes again which organisation a workspace belongs to: an uninstall removes
# it, a reinstall brings it back within this time without a Redis write on every request
MEMBER_REFRESH = 600.0
LOCK_POLL = 0.05
EXPIRED_WAIT_SECONDS = 2.0  # for a token already expired while another process refreshes it (inside the 3 s ack)
INDEX = key("slack-installs")


@dataclass(frozen=True)
class Place:
    """Where an installation lives: a workspace (`team:T…`) or an organisation (`org:E…`)."""

    kind: str
    id: str

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.id}"

    @classmethod
    def of(cls, installation: Installation | Bot) -> Place:
        if installation.is_enterprise_install or not installation.team_id:
            return cls("org", str(installation.enterprise_id))
        return cls("team", installation.team_id)


class InstallationStore(AsyncInstallationStore):
    """Bot installations only: the app asks for no user token."""

    def __init__(self, redis: aioredis.Redis, box: SecretBox) -> None:
        self._redis = redis
        self._box = box

    @property
    def logger(self) -> logging.Logger:
        return log

    async def async_save(self, installation: Installation) -> None:
        place = Place.of(installation)
        sealed = self._box.seal(json.dumps(installation.__dict__))
        try:
            await self._redis.set(key("slack-install", place.kind, place.id), sealed)
            await self._redis.sadd(INDEX, place.name)
        except RedisError as error:  # the install page says so; Bolt turns BoltError into that page
            raise BoltError(f"the installation could not be kept: Redis said {error}") from None

    async def async_save_bot(self, bot: Bot) -> None:
        current = await self.read(Place.of(bot))
        if current is not None:
            current.bot_token, current.bot_refresh_token = bot.bot_token, bot.bot_refresh_token
            current.bot_token_expires_at = bot.bot_token_expires_at
            await self.async_save(current)

    async def async_find_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        """The workspace's own installation, else its organisation's (named by the request, or
        known from an earlier one): one Redis read for a workspace's request."""
        if user_id is not None:
            return None  # only the bot's installation is kept; Bolt then uses it
        if team_id and not is_enterprise_install:
            found = await self.read(Place("team", team_id))
            if found is not None:
                return found
        enterprise = enterprise_id or await self.org_of(team_id)
        return await self.read(Place("org", enterprise)) if enterprise else None

    async def async_find_bot(
        self, *, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None = False,
    ) -> Bot | None:
        found = await self.async_find_installation(enterprise_id=enterprise_id, team_id=team_id,
                                                   is_enterprise_install=is_enterprise_install)
        return found.to_bot() if found is not None and found.bot_token else None

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await self.async_delete_installation(enterprise_id=enterprise_id, team_id=team_id)

    async def async_delete_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None,
    ) -> None:
        if user_id is not None:
            return
        place = Place("team", team_id) if team_id else Place("org", str(enterprise_id))
        await self._redis.delete(key("slack-install", place.kind, place.id))
        await self._redis.srem(INDEX, place.name)
        if place.kind == "org":
            for team in await self.teams_of(place.id):
                await self._redis.delete(key("slack-org-of", team))
            await self._redis.delete(key("slack-org-teams", place.id))

    async def async_delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await self.async_delete_installation(enterprise_id=enterprise_id, team_id=team_id)

    async def org_of(self, team_id: str | None) -> str | None:
        """The organisation whose organisation-wide installation serves the workspace, once seen."""
        return as_text(await self._redis.get(key("slack-org-of", team_id))) if team_id else None

    async def remember_member(self, enterprise_id: str, team_id: str) -> None:
        """A workspace of an organisation-wide installation: its background work (digests,
        reminders) finds the organisation's token by the team alone."""
        await self._redis.set(key("slack-org-of", team_id), enterprise_id)
        await self._redis.sadd(key("slack-org-teams", enterprise_id), team_id)

    async def teams_of(self, enterprise_id: str) -> list[str]:
        return sorted(str(as_text(team)) for team in await self._redis.smembers(key("slack-org-teams", enterprise_id)))

    async def all(self) -> list[Installation]:
        """Every installation, for `check` and the metrics."""
        found = []
        for name in sorted(str(as_text(item)) for item in await self._redis.smembers(INDEX)):
            kind, _, ident = name.partition(":")
            installation = await self.read(Place(kind, ident))
            if installation is not None:
                found.append(installation)
        return found

    async def count(self) -> int:
        return int(await self._redis.scard(INDEX))

    async def read(self, place: Place) -> Installation | None:
        raw = as_text(await self._redis.get(key("slack-install", place.kind, place.id)))
        opened = self._box.open(raw) if raw is not None else None
        if opened is None:
            return None
        return Installation(**json.loads(opened))


class StateStore(AsyncOAuthStateStore):
    """One-time `state` values of the "Add to Slack" link: issued for ten minutes, taken once."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis

    @property
    def logger(self) -> logging.Logger:
        return log

    async def async_issue(self, *args: Any, **kwargs: Any) -> str:
        state = secrets.token_urlsafe(24)
        await self._redis.set(key("oauth-state", state), "1", ex=STATE_SECONDS)
        return state

    async def async_consume(self, state: str) -> bool:
        if not state or len(state) > 100:
            return False
        try:
            return await self._redis.getdel(key("oauth-state", state)) is not None
        except RedisError as error:
            log.warning("an install could not be finished: Redis did not answer (%s); check REDIS_URL", error)
            return False


class Rotation:
    """Refreshes an expiring token once across processes: the first takes a Redis lock, rotates and
    saves; the others wait for the lock to go and read the saved token (Slack's refresh token
    changes on use, so a second refresh with the old one would fail)."""

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
        """The installation with a token good for a while; None when no rotation was needed. Runs
        before a request's ack: only the process that takes the lock calls Slack; the others go on
        with the current token, still good for up to two hours, and wait (briefly) only once it
        has expired."""
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


class Authorize(AsyncInstallationStoreAuthorize):
    """Bolt's authorization from the installation store, with rotation done once across processes
    and each organisation's workspaces remembered for background work."""

    def __init__(self, store: InstallationStore, rotation: Rotation) -> None:
        super().__init__(logger=log, installation_store=store, cache_enabled=True)
        self._store = store
        self._rotation = rotation
        self._members: dict[tuple[str, str], float] = {}  # when each was last written

    def forget_org(self, enterprise_id: str) -> None:
        """This process writes the organisation's workspaces again from their next request."""
        for pair in [pair for pair in self._members if pair[0] == enterprise_id]:
            del self._members[pair]

    async def __call__(self, *, context: AsyncBoltContext, enterprise_id: str | None, team_id: str | None,
                       user_id: str | None, **actor: Any) -> Any:
        pair = (enterprise_id or "", team_id or "")
        if context.is_enterprise_install and all(pair) and time.monotonic() - self._members.get(pair, -MEMBER_REFRESH) >= MEMBER_REFRESH:
            try:
                await self._store.remember_member(*pair)
                self._members[pair] = time.monotonic()
            except RedisError:
                pass  # learnt from the next request
        return await super().__call__(context=context, enterprise_id=enterprise_id, team_id=team_id, user_id=user_id, **actor)

    async def _rotate_and_save_tokens_if_necessary(self, installation: Installation | None) -> Installation | None:
        return await self._rotation.fresh(installation) if installation is not None else None


class Workspaces:
    """A Web API client for a workspace, outside any request (digests, weekly reminders). With a
    single bot token every workspace is the one; with OAuth installs, the workspace's own token,
    refreshed when due, with `team_id` on every call of an organisation's token."""

    def __init__(self, base: AsyncWebClient, store: InstallationStore | None = None, rotation: Rotation | None = None,
                 redis: aioredis.Redis | None = None, authorize: Authorize | None = None) -> None:
        self._base = base
        self._store = store
        self._rotation = rotation
        self._redis = redis
        self._authorize = authorize

    async def enterprise_of(self, team_id: str) -> str | None:
        return await self._store.org_of(team_id) if self._store is not None else None

    async def forget(self, enterprise_id: str | None, team_id: str | None) -> tuple[list[str], int]:
        """The app was removed from a workspace (`team_id`) or an organisation (`team_id` None):
        its installation and every workspace's data go. The workspaces forgotten, and how many
        keys went."""
        if self._store is not None:
            teams = [team_id] if team_id else await self._store.teams_of(str(enterprise_id))
            await self._store.async_delete_installation(enterprise_id=enterprise_id, team_id=team_id)
            if not team_id and enterprise_id and self._authorize is not None:
                self._authorize.forget_org(enterprise_id)
        else:
            teams = [team_id] if team_id else []
        removed = 0
        if self._redis is not None:
            for team in teams:
                removed += await forget_team(self._redis, team)
        return teams, removed

    @property
    def store(self) -> InstallationStore | None:
        return self._store

    async def count(self) -> int:
        """Installations served: workspaces and organisations (1 with a single bot token)."""
        return 1 if self._store is None else await self._store.count()

    async def client(self, team_id: str | None) -> AsyncWebClient | None:
        """None when the workspace has no installation (any more)."""
        if self._store is None:
            return self._base
        if not team_id:
            return None
        installation = await self._store.async_find_installation(enterprise_id=None, team_id=team_id)
        if installation is None or not installation.bot_token:
            return None
        if self._rotation is not None:
            installation = await self._rotation.fresh(installation) or installation
        base = self._base
        return AsyncWebClient(token=installation.bot_token, base_url=base.base_url, session=base.session,
                              retry_handlers=base.retry_handlers, timeout=base.timeout,
                              team_id=team_id if installation.is_enterprise_install else None)
