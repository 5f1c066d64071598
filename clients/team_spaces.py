"""What the bot keeps of each team space: its channel, its standing room and where that room was
posted, whether the digest was set, and who set it up — one record per workspace, démarche and
group, so that running the set-up again finds what was done and does only the rest.

Each step's result is saved the moment it is done (a crash after a channel was made and before the
room was loses nothing: the next run reuses the channel). The key carries the team id: an
uninstall removes the workspace's spaces with the rest (clients/workspace_erasure.py).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import redis.asyncio as aioredis

from clients.redis_keys import key
from clients.storage import as_text


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

    async def get(self, team: str, demarche: int, group: int | None) -> TeamSpace | None:
        raw = as_text(await self._redis.get(_key(team, demarche, group)))
        return TeamSpace(**json.loads(raw)) if raw else None

    async def save(self, space: TeamSpace) -> None:
        await self._redis.set(_key(space.team, space.demarche, space.group), json.dumps(asdict(space)))

    async def all(self, team: str | None = None) -> list[TeamSpace]:
        """Every workspace's spaces (the weekly roster check), or one workspace's."""
        found = []
        async for name in self._redis.scan_iter(match=key("team-space", team or "*", "*"), count=500):
            raw = as_text(await self._redis.get(name))
            if raw:
                found.append(TeamSpace(**json.loads(raw)))
        return sorted(found, key=lambda space: (space.team, space.demarche, space.group or 0))


def _key(team: str, demarche: int, group: int | None) -> str:
    return key("team-space", team, str(demarche), "all" if group is None else str(group))
