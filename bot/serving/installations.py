"""Every workspace's installation, kept in Redis for OAuth installs (`SLACK_CLIENT_ID`).

`slack_sdk` ships no Redis store (slack-platform.md §10), so this is one, keeping the contract of
`AsyncInstallationStore` as slack_sdk's own store tests state it (`tests/installs/test_store_contract.py`
runs them): a place (a workspace, or an organisation for an organisation-wide install) holds its
bot, its latest installation and each installing person's own, in one Redis hash; a user-only
grant never replaces the bot; a lookup names the organisation the installation was made in.
Everything is sealed with `TOKEN_ENCRYPTION_KEY`. A workspace served by an organisation-wide
install is recorded as the organisation's only from what Slack itself says: the
`team_access_granted` event and `auth.teams.list` (bot.serving.authorize).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import redis.asyncio as aioredis
from redis.exceptions import RedisError
from slack_bolt.error import BoltError
from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore

from clients.redis_keys import key
from clients.secret_box import SecretBox, Unopenable
from clients.storage import as_text

log = logging.getLogger(__name__)

INDEX = key("slack-installs")  # the places whose bot is installed: "team:T…" or "org:E…"
BOT, LATEST, USER = "bot", "installer", "user:"
#: the bot's own fields of an installation: a user's grant carries none, or stale ones
BOT_FIELDS = ("bot_id", "bot_user_id", "bot_token", "bot_scopes", "bot_refresh_token", "bot_token_expires_at")


class InstallationUnreadable(Exception):
    """An installation is kept but no key of `TOKEN_ENCRYPTION_KEY` opens it (the key was changed):
    nothing is deleted, the operator is told by `check`, people that the bot is being repaired."""


@dataclass(frozen=True)
class Place:
    """Where an installation lives: a workspace (`team:T…`) or an organisation (`org:E…`)."""

    kind: str
    id: str

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.id}"

    @property
    def redis_key(self) -> str:
        return key("slack-place", self.kind, self.id)

    @classmethod
    def of(cls, found: Installation | Bot) -> Place:
        if found.is_enterprise_install or not found.team_id:
            return cls("org", str(found.enterprise_id))
        return cls("team", found.team_id)

    @classmethod
    def named(cls, name: str) -> Place:
        kind, _, ident = name.partition(":")
        return cls(kind, ident)

    @classmethod
    def asked(cls, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None) -> Place | None:
        """The place a lookup names: an organisation-wide install is found by its organisation,
        whichever of its workspaces asks."""
        if is_enterprise_install or not team_id:
            return cls("org", enterprise_id) if enterprise_id else None
        return cls("team", team_id)


class InstallationStore(AsyncInstallationStore):
    def __init__(self, redis: aioredis.Redis, box: SecretBox) -> None:
        self._redis = redis
        self._box = box

    @property
    def logger(self) -> logging.Logger:
        return log

    async def async_save(self, installation: Installation) -> None:
        """The installation as the latest of its place and as its installer's own; its bot, when
        it has one (a person's own grant, with no bot token, leaves the bot as it was)."""
        place = Place.of(installation)
        fields = {LATEST: self._seal(installation), USER + (installation.user_id or "none"): self._seal(installation)}
        if installation.bot_token:
            fields[BOT] = self._seal(installation.to_bot())
        await self._write(place, fields)

    async def async_save_bot(self, bot: Bot) -> None:
        if bot.bot_token:
            await self._write(Place.of(bot), {BOT: self._seal(bot)})

    async def async_find_bot(
        self, *, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None = False,
    ) -> Bot | None:
        place = Place.asked(enterprise_id, team_id, is_enterprise_install)
        found = await self._fields(place, BOT) if place else {}
        bot = self._bot(found.get(BOT))
        return bot if bot is not None and _same(bot.enterprise_id, enterprise_id) else None

    async def async_find_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        """The place's latest installation (or the person's own), with the bot as it is now: one
        Redis read."""
        place = Place.asked(enterprise_id, team_id, is_enterprise_install)
        if place is None:
            return None
        wanted = LATEST if user_id is None else USER + user_id
        found = await self._fields(place, wanted, BOT)
        installation = self._installation(found.get(wanted))
        if installation is None or not _same(installation.enterprise_id, enterprise_id):
            return None
        return _with_bot(installation, self._bot(found.get(BOT)))

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        place = Place.asked(enterprise_id, team_id, None)
        if place is not None and await self._owned(place, enterprise_id):
            await self._redis.hdel(place.redis_key, BOT)
            await self._redis.srem(INDEX, place.name)

    async def async_delete_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None,
    ) -> None:
        place = Place.asked(enterprise_id, team_id, None)
        if place is None or not await self._owned(place, enterprise_id):
            return
        if user_id is not None:
            await self._redis.hdel(place.redis_key, USER + user_id)
            return
        people = [name for name in await self._names(place) if name == LATEST or name.startswith(USER)]
        if people:
            await self._redis.hdel(place.redis_key, *people)

    async def async_delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        place = Place.asked(enterprise_id, team_id, None)
        if place is not None and await self._owned(place, enterprise_id):
            await self.remove(place)

    # -- beyond Slack's interface: what the bot itself needs of the store

    async def remove(self, place: Place) -> None:
        """Everything of the place, and for an organisation the record of its workspaces."""
        await self._redis.delete(place.redis_key, key("slack-install", place.kind, place.id))
        await self._redis.srem(INDEX, place.name)
        if place.kind == "org":
            for team in await self.teams_of(place.id):
                await self._redis.delete(key("slack-org-of", team))
            await self._redis.delete(key("slack-org-teams", place.id))

    async def read(self, place: Place) -> Installation | None:
        """The place's installation with its bot, whoever asks (background work knows only the team)."""
        found = await self._fields(place, LATEST, BOT)
        installation = self._installation(found.get(LATEST))
        return _with_bot(installation, self._bot(found.get(BOT))) if installation is not None else None

    async def for_team(self, team_id: str) -> Installation | None:
        """What serves a workspace outside any request: its own installation, else the
        organisation-wide one Slack said serves it."""
        own = await self.read(Place("team", team_id))
        if own is not None and own.bot_token:
            return own
        enterprise = await self.org_of(team_id)
        return await self.read(Place("org", enterprise)) if enterprise else None

    async def has_own(self, team_id: str) -> bool:
        """Whether the workspace has its own installation beside any organisation's."""
        return bool(await self._redis.sismember(INDEX, Place("team", team_id).name))

    async def org_of(self, team_id: str | None) -> str | None:
        """The organisation whose organisation-wide installation Slack said serves the workspace."""
        return as_text(await self._redis.get(key("slack-org-of", team_id))) if team_id else None

    async def add_members(self, enterprise_id: str, teams: list[str]) -> None:
        """Workspaces Slack said the organisation's install was granted (an event or `auth.teams.list`)."""
        for team in teams:
            await self._redis.set(key("slack-org-of", team), enterprise_id)
        if teams:
            await self._redis.sadd(key("slack-org-teams", enterprise_id), *teams)

    async def remove_members(self, enterprise_id: str, teams: list[str]) -> None:
        for team in teams:
            if await self.org_of(team) == enterprise_id:
                await self._redis.delete(key("slack-org-of", team))
        if teams:
            await self._redis.srem(key("slack-org-teams", enterprise_id), *teams)

    async def teams_of(self, enterprise_id: str) -> list[str]:
        return sorted(str(as_text(team)) for team in await self._redis.smembers(key("slack-org-teams", enterprise_id)))

    async def all(self) -> tuple[list[Installation], int]:
        """Every installation with its bot, for `check`; and how many no key opens."""
        found, unreadable = [], 0
        for name in sorted(str(as_text(item)) for item in await self._redis.smembers(INDEX)):
            try:
                installation = await self.read(Place.named(name))
            except InstallationUnreadable:
                unreadable += 1
                continue
            if installation is not None:
                found.append(installation)
        return found, unreadable

    async def count(self) -> int:
        return int(await self._redis.scard(INDEX))

    # -- Redis and sealing

    async def _write(self, place: Place, fields: dict[str, str]) -> None:
        try:
            await self._hset(place, fields)
            if BOT in fields:
                await self._redis.sadd(INDEX, place.name)
        except RedisError as error:  # the install page says so; Bolt turns BoltError into that page
            raise BoltError(f"the installation could not be kept: Redis said {error}") from None

    async def _fields(self, place: Place, *names: str) -> dict[str, str]:
        """The fields, opened: a field sealed with an older key of TOKEN_ENCRYPTION_KEY is sealed
        again with the first, so that the old key can be dropped once `check` counts none."""
        values = await self._redis.hmget(place.redis_key, list(names))
        sealed = {name: str(as_text(value)) for name, value in zip(names, values, strict=True) if value is not None}
        if not sealed and await self._upgrade(place):
            return await self._fields(place, *names)
        found, stale = {}, {}
        for name, value in sealed.items():
            try:
                found[name], old_key = self._box.opened(value)
            except Unopenable:
                raise InstallationUnreadable(f"the installation of {place.name} does not open with TOKEN_ENCRYPTION_KEY") from None
            if old_key:
                stale[name] = self._box.seal(found[name])
        if stale:
            await self._hset(place, stale)
        return found

    async def _names(self, place: Place) -> list[str]:
        return [str(as_text(name)) for name in await self._redis.hkeys(place.redis_key)]

    async def _owned(self, place: Place, enterprise_id: str | None) -> bool:
        """Whether a delete naming `enterprise_id` is about what is kept at `place`."""
        found = await self._fields(place, LATEST, BOT)
        kept = self._installation(found.get(LATEST)) or self._bot(found.get(BOT))
        return kept is None or _same(kept.enterprise_id, enterprise_id)

    async def _upgrade(self, place: Place) -> bool:
        """An installation kept by an earlier version (one sealed string per place) moves into the
        place's hash on first read: nothing installed is lost by an upgrade."""
        old = key("slack-install", place.kind, place.id)
        raw = as_text(await self._redis.get(old))
        if raw is None:
            return False
        try:
            installation = self._installation(self._box.open_or_raise(raw))
        except Unopenable:
            raise InstallationUnreadable(f"the installation of {place.name} does not open with TOKEN_ENCRYPTION_KEY") from None
        if installation is None:
            return False
        fields = {LATEST: raw, USER + (installation.user_id or "none"): raw}
        if installation.bot_token:
            fields[BOT] = self._seal(installation.to_bot())
        await self._hset(place, fields)
        await self._redis.delete(old)
        return True

    async def _hset(self, place: Place, fields: dict[str, str]) -> None:
        await self._redis.hset(place.redis_key, mapping=cast("Mapping[Any, Any]", fields))  # redis-py's keys are a union

    def _seal(self, found: Installation | Bot) -> str:
        return self._box.seal(json.dumps(found.__dict__))

    @staticmethod
    def _installation(opened: str | None) -> Installation | None:
        return Installation(**json.loads(opened)) if opened else None

    @staticmethod
    def _bot(opened: str | None) -> Bot | None:
        return Bot(**json.loads(opened)) if opened else None


def _same(kept: str | None, asked: str | None) -> bool:
    return (kept or None) == (asked or None)


def _with_bot(installation: Installation, bot: Bot | None) -> Installation:
    """The installation with the place's bot as it is now (rotated, or deleted)."""
    for name in BOT_FIELDS:
        setattr(installation, name, getattr(bot, name) if bot is not None else None)
    return installation
