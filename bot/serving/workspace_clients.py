"""A Web API client for a workspace outside any request (digests, weekly reminders), and what
goes when the app leaves a workspace or an organisation.

With a single bot token every workspace is the one. With OAuth installs, the workspace's own
installation, else the organisation-wide one Slack said serves it; refreshed when due, with
`team_id` on every call made with an organisation's token.
"""

from __future__ import annotations

import logging

import redis.asyncio as aioredis
from slack_sdk.web.async_client import AsyncWebClient

from bot.serving.authorize import Members, Rotation
from bot.serving.installations import InstallationStore, InstallationUnreadable, Place
from clients.workspace_erasure import forget_team

log = logging.getLogger(__name__)


class Workspaces:
    def __init__(self, base: AsyncWebClient, store: InstallationStore | None = None, rotation: Rotation | None = None,
                 redis: aioredis.Redis | None = None, members: Members | None = None) -> None:
        self._base = base
        self._store = store
        self._rotation = rotation
        self._redis = redis
        self._members = members

    @property
    def store(self) -> InstallationStore | None:
        return self._store

    async def enterprise_of(self, team_id: str) -> str | None:
        return await self._store.org_of(team_id) if self._store is not None else None

    async def count(self) -> int:
        """Installations served: workspaces and organisations (1 with a single bot token)."""
        return 1 if self._store is None else await self._store.count()

    async def client(self, team_id: str | None) -> AsyncWebClient | None:
        """None when the app is not installed there (any more), or its installation cannot be
        opened for now."""
        if self._store is None:
            return self._base
        if not team_id:
            return None
        try:
            installation = await self._store.for_team(team_id)
        except InstallationUnreadable as error:  # nothing is deleted: the work waits for the key to come back
            log.error("%s: was the key changed? Put the previous key back, after the new one", error)
            return None
        if installation is None or not installation.bot_token:
            return None
        if self._rotation is not None:
            installation = await self._rotation.fresh(installation) or installation
        base = self._base
        return AsyncWebClient(token=installation.bot_token, base_url=base.base_url, session=base.session,
                              retry_handlers=base.retry_handlers, timeout=base.timeout,
                              team_id=team_id if installation.is_enterprise_install else None)

    async def forget(self, enterprise_id: str | None, team_id: str | None) -> tuple[list[str], int]:
        """The app was removed from a workspace (`team_id`) or an organisation (`team_id` None):
        its installation goes, and the data of each workspace it served — but not of a workspace
        that still has its own installation. The workspaces forgotten, and how many keys went."""
        if self._store is None:
            return await self._forget_teams([team_id] if team_id else [])
        if team_id:
            await self._store.remove(Place("team", team_id))
            if await self._store.org_of(team_id):
                return [team_id], 0  # still served by its organisation's install: its data stays
            return await self._forget_teams([team_id])
        if not enterprise_id:
            return [], 0
        teams = [team for team in await self._store.teams_of(enterprise_id) if not await self._store.has_own(team)]
        await self._store.remove(Place("org", enterprise_id))
        if self._members is not None:
            self._members.forget(enterprise_id)
        return await self._forget_teams(teams)

    async def left(self, enterprise_id: str, teams: list[str]) -> tuple[list[str], int]:
        """`team_access_revoked`: the organisation's install no longer serves these workspaces."""
        if self._store is None:
            return [], 0
        await self._store.remove_members(enterprise_id, teams)
        if self._members is not None:
            self._members.forget(enterprise_id, teams)
        return await self._forget_teams([team for team in teams if not await self._store.has_own(team)])

    async def joined(self, enterprise_id: str, teams: list[str]) -> None:
        """`team_access_granted`: the organisation's install now serves these workspaces too."""
        if self._store is not None:
            await self._store.add_members(enterprise_id, teams)
        if self._members is not None:
            self._members.granted(enterprise_id, teams)

    async def people_revoked(self, enterprise_id: str | None, team_id: str | None, users: list[str]) -> None:
        """`tokens_revoked` for people's tokens: their own grants go, the bot stays."""
        if self._store is not None:
            for user in users:
                await self._store.async_delete_installation(enterprise_id=enterprise_id, team_id=team_id, user_id=user)

    async def _forget_teams(self, teams: list[str]) -> tuple[list[str], int]:
        removed = 0
        if self._redis is not None:
            for team in teams:
                removed += await forget_team(self._redis, team)
        return teams, removed
