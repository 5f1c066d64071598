"""What the bot keeps of each team space: its channel, its standing room and where that room was
posted, whether the digest was set, and who set it up — one record per workspace, démarche and
group, so that running the set-up again finds what was done and does only the rest.

Each step's result is saved the moment it is done (a crash after a channel was made and before the
room was loses nothing: the next run reuses the channel). The key carries the team id: an
uninstall removes the workspace's spaces with the rest (clients/workspace_erasure.py).

Listing them (each roster poll, the privacy view, an erasure) reads an index, as
`Subscriptions.all` does, not a SCAN of the keyspace: a set of the workspaces that have spaces
(`INDEX`) and each workspace's set of spaces, named `team-space:<team>` so that an uninstall's
sweep of `team-space:<team>*` takes it too. The spaces are then read in one round trip, a
pipeline of GETs: a Redis Cluster keeps them in different slots, where one MGET is refused.
Spaces saved before the index existed are indexed by the first listing (`_indexed`), once.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass

import redis.asyncio as aioredis

from clients.redis_keys import key
from clients.storage import as_text

INDEX = key("team-spaces")  # the workspaces that have team spaces
INDEXED = key("team-spaces-indexed")  # set once the spaces saved before the index are in it
#: how long the spaces found by the last SCAN are taken as all: a process of the version before the
#: index, still running during a rolling upgrade, saves a space without indexing it; such a space is
#: listed within a day (one SCAN a day, where every listing scanned before)
INDEXED_FOR = 24 * 3600


@dataclass(frozen=True)
class TeamSpace:
    team: str
    demarche: int
    group: int | None = None  # a group's space; None: the whole démarche's
    by: str = ""  # the Slack user who set it up (last), who hears of its roster's drift
    channel: str = ""  # "" until made or adopted
    room: str = ""  # the standing room's id on the room service
    link: str = ""  # where it is joined, and its name: what "Call the team now" posts, whoever clicks
    slug: str = ""
    posted: str = ""  # the ts of the room's message in the channel
    pinned: bool = False
    digest: bool = False
    at: str = "09:00"  # the digest's local hour
    since: str = ""  # the day (ISO, UTC) its channel was made or adopted: "What the bot keeps about me" says it
    naming: str = ""  # the channel name asked of Slack before the answer came: a crash in between is adopted again

    @property
    def place(self) -> str:
        """Names the space in a button's value (which space; never whose rights: those are read again)."""
        return f"{self.demarche}:{'' if self.group is None else self.group}"


def read_place(value: str) -> tuple[int, int | None] | None:
    """A button's space (`TeamSpace.place`), or None when it is not one."""
    demarche, _, group = value.partition(":")
    if not demarche.isdigit() or len(demarche) > 9 or (group and (not group.isdigit() or len(group) > 9)):
        return None
    return int(demarche), int(group) if group else None


class TeamSpaces:
    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis
        self._indexed_until = 0.0  # INDEXED seen: not asked again before then (monotonic clock)

    async def get(self, team: str, demarche: int, group: int | None) -> TeamSpace | None:
        raw = as_text(await self._redis.get(_key(team, demarche, group)))
        return TeamSpace(**json.loads(raw)) if raw else None

    async def save(self, space: TeamSpace) -> None:
        """Indexed first: a crash in between leaves an entry without a space (skipped), never a
        space that no listing finds."""
        await self._redis.sadd(INDEX, space.team)
        await self._redis.sadd(_index(space.team), _place(space.demarche, space.group))
        await self._redis.set(_key(space.team, space.demarche, space.group), json.dumps(asdict(space)))

    async def all(self, team: str | None = None) -> list[TeamSpace]:
        """Every workspace's spaces (the weekly roster check), or one workspace's."""
        await self._indexed()
        teams = [team] if team is not None else sorted(str(as_text(item)) for item in await self._redis.smembers(INDEX))
        async with self._redis.pipeline(transaction=False) as pipe:
            for each in teams:
                pipe.smembers(_index(each))
            places = await pipe.execute()
        names = [key("team-space", each, str(as_text(place))) for each, its in zip(teams, places, strict=True) for place in its]
        async with self._redis.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.get(name)
            found = [TeamSpace(**json.loads(raw)) for raw in map(as_text, await pipe.execute()) if raw]
        return sorted(found, key=lambda space: (space.team, space.demarche, space.group or 0))

    async def forget_team(self, team: str) -> int:
        """An uninstalled workspace leaves the index (its spaces and its own index go with the
        sweep of its keys, clients/workspace_erasure.py); how many entries went."""
        return int(await self._redis.srem(INDEX, team))

    async def _indexed(self) -> None:
        """Indexes the spaces saved without the index (before it existed, or by a process of that
        version during an upgrade): one SCAN a day, by the first process to list them."""
        if time.monotonic() < self._indexed_until:
            return
        if await self._redis.exists(INDEXED):
            self._indexed_until = time.monotonic() + 60  # its lapse is seen within a minute
            return
        async for name in self._redis.scan_iter(match=key("team-space", "*", "*", "*"), count=500):
            _, _, team, demarche, group = str(as_text(name)).split(":")
            await self._redis.sadd(INDEX, team)
            await self._redis.sadd(_index(team), f"{demarche}:{group}")
        await self._redis.set(INDEXED, "1", ex=INDEXED_FOR)
        self._indexed_until = time.monotonic() + 60


def _place(demarche: int, group: int | None) -> str:
    return f"{demarche}:{'all' if group is None else group}"


def _index(team: str) -> str:
    return key("team-space", team)


def _key(team: str, demarche: int, group: int | None) -> str:
    return key("team-space", team, _place(demarche, group))
