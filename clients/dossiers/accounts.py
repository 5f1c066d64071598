"""Which dossier-service token reads for a Slack workspace, when one deployment serves many.

The operator's `DS_API_TOKEN` serves the workspaces the operator named (`DS_API_TOKEN_TEAMS`: team
or enterprise ids). Any other workspace may bring its own token, given by one of its
administrators: kept sealed with `TOKEN_ENCRYPTION_KEY` under the workspace's team id (an
uninstall removes it), never shown back. A workspace's own token comes first. Each token gets its
own clients, rate allowance and caches of who may read a démarche, so nothing read with one
workspace's token is answered to another.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import redis.asyncio as aioredis
from pydantic import SecretStr

from clients.dossiers.access import DemarcheAccess
from clients.dossiers.counts import DossierCounter
from clients.dossiers.desk import DossierDesk
from clients.dossiers.previews import DossierPreviews
from clients.redis_keys import digest, key
from clients.secret_box import SecretBox
from clients.storage import as_text


@dataclass(frozen=True)
class DossierAccount:
    """One token's view of the dossier service."""

    counter: DossierCounter
    access: DemarcheAccess
    previews: DossierPreviews | None = None
    desk: DossierDesk | None = None  # acting on dossiers (with a token that may write)
    name: str = ""  # names what is kept per token (a hash of it): its allowance, its watches


@dataclass(frozen=True)
class OwnToken:
    """What Home may say of a workspace's own token: who gave it and when, never the token."""

    by: str
    at: dt.datetime


class WorkspaceTokens:
    def __init__(self, redis: aioredis.Redis, box: SecretBox) -> None:
        self._redis = redis
        self._box = box

    async def token(self, team: str) -> SecretStr | None:
        found = await self._read(team)
        opened = self._box.open(found["token"]) if found else None
        return SecretStr(opened) if opened else None

    async def about(self, team: str) -> OwnToken | None:
        found = await self._read(team)
        return OwnToken(found["by"], dt.datetime.fromisoformat(found["at"])) if found else None

    async def keep(self, team: str, token: SecretStr, by: str, now: dt.datetime) -> None:
        sealed = self._box.seal(token.get_secret_value())
        await self._redis.set(_key(team), json.dumps({"token": sealed, "by": by, "at": now.isoformat()}))

    async def remove(self, team: str) -> bool:
        return bool(await self._redis.delete(_key(team)))

    async def _read(self, team: str) -> dict[str, str] | None:
        raw = as_text(await self._redis.get(_key(team))) if team else None
        return json.loads(raw) if raw else None


MakeAccount = Callable[[SecretStr], Awaitable[DossierAccount]]
#: tries a token on the service: None when it works, else the refusal's reason (`digest.reason.*`)
Probe = Callable[[SecretStr], Awaitable[str | None]]


class DossierAccounts:
    def __init__(self, tokens: WorkspaceTokens, make: MakeAccount, operator: DossierAccount | None,
                 teams: frozenset[str], probe: Probe) -> None:
        self.tokens = tokens
        self.probe = probe
        self._make = make
        self._operator = operator
        self._teams = teams
        self._made: dict[str, DossierAccount] = {}

    def operator_serves(self, team: str, enterprise: str | None) -> bool:
        return self._operator is not None and bool({team, enterprise} & self._teams)

    async def for_team(self, team: str, enterprise: str | None) -> DossierAccount | None:
        """The workspace's own token's account, else the operator's when it serves the workspace."""
        own = await self.tokens.token(team)
        if own is not None:
            return await self.of(own)
        return self._operator if self.operator_serves(team, enterprise) else None

    async def of(self, token: SecretStr) -> DossierAccount:
        """The account of `token`, made once per process."""
        name = digest(token.get_secret_value(), 16)
        if name not in self._made:
            self._made[name] = await self._make(token)
        return self._made[name]


def _key(team: str) -> str:
    return key("ds-token", team)
