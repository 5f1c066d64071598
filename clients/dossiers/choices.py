"""What each person chose to hear of the watch (`news_kinds.Choices`), and when: a level per
démarche and kind, quiet hours, a snooze, the hour of their daily DM — and the news held while
they are quiet or snoozed, sent in one DM once that ends.

One hash of levels per person × démarche (only the levels that differ from the service's
defaults are kept); one hash per person for the rest; the daily DMs' index is one hash for the
deployment (its scheduler reads it every poll). Everything goes with `/room forget me`
(clients/person_erasure.py) and when they stop watching nothing of it is read.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

import redis.asyncio as aioredis

from clients.dossiers.news_kinds import DEFAULTS, Kind, Level
from clients.redis_keys import key
from clients.storage import as_text

#: news held (quiet hours, a snooze) at most this many items a person: the oldest go first
MOST_HELD = 200
#: what is held outlives the quiet hours this long, should nobody's round come to send it
HELD_SECONDS = 3 * 86400
#: a daily DM being sent is another process's for this long; past it (a crash), it is sent again
DAILY_LEASE_SECONDS = 300


@dataclass(frozen=True)
class Quiet:
    """Quiet hours as wall-clock times of the person's zone: `start` to `end`, across midnight when
    `end` comes first."""

    start: dt.time
    end: dt.time


@dataclass(frozen=True)
class Daily:
    """The hour of a person's daily DM, in the zone Slack gave them when last read."""

    at: dt.time
    zone: str


class ChoiceStore:
    """The levels each person chose, per démarche and kind (the service's defaults otherwise)."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis

    async def level(self, team: str, user: str, demarche: int, kind: Kind) -> Level:
        raw = as_text(await self._redis.hget(key("desk-choices", team, user, str(demarche)), kind.value))
        return _level(raw) or DEFAULTS[kind]

    async def levels(self, team: str, user: str, demarche: int) -> dict[Kind, Level]:
        raw = await self._redis.hgetall(key("desk-choices", team, user, str(demarche)))
        chosen = {str(as_text(name)): _level(as_text(value)) for name, value in raw.items()}
        return {kind: chosen.get(kind.value) or DEFAULTS[kind] for kind in Kind}

    async def choose(self, team: str, user: str, demarche: int, kind: Kind, level: Level) -> None:
        name = key("desk-choices", team, user, str(demarche))
        if level is DEFAULTS[kind]:
            await self._redis.hdel(name, kind.value)
        else:
            await self._redis.hset(name, kind.value, level.value)


class PersonHours:
    """When each person hears: quiet hours, a snooze, their daily DM; and what waits for them."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis

    async def quiet(self, team: str, user: str) -> Quiet | None:
        raw = as_text(await self._redis.hget(key("desk-hours", team, user), "quiet"))
        if not raw:
            return None
        start, _, end = raw.partition("-")
        return Quiet(dt.time.fromisoformat(start), dt.time.fromisoformat(end))

    async def set_quiet(self, team: str, user: str, quiet: Quiet | None) -> None:
        if quiet is None:
            await self._redis.hdel(key("desk-hours", team, user), "quiet")
        else:
            await self._redis.hset(key("desk-hours", team, user), "quiet", f"{quiet.start:%H:%M}-{quiet.end:%H:%M}")

    async def snoozed_until(self, team: str, user: str) -> dt.datetime | None:
        raw = as_text(await self._redis.hget(key("desk-hours", team, user), "snooze"))
        return dt.datetime.fromisoformat(raw) if raw else None

    async def snooze(self, team: str, user: str, until: dt.datetime | None) -> None:
        if until is None:
            await self._redis.hdel(key("desk-hours", team, user), "snooze")
        else:
            await self._redis.hset(key("desk-hours", team, user), "snooze", until.isoformat())

    async def hold(self, team: str, user: str, items: list[str]) -> None:
        """Keeps news (each item as the surface serialised it) until the person may hear it."""
        name = key("desk-held", team, user)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.rpush(name, *items)
            pipe.ltrim(name, -MOST_HELD, -1)
            pipe.expire(name, HELD_SECONDS)
            await pipe.execute()
        await self._redis.sadd(key("desk-holding"), f"{team}/{user}")

    async def held(self, team: str, user: str) -> list[str]:
        return [str(as_text(item)) for item in await self._redis.lrange(key("desk-held", team, user), 0, -1)]

    async def take_held(self, team: str, user: str) -> list[str]:
        """What was held, now no longer (one process takes it: a transaction reads and deletes)."""
        name = key("desk-held", team, user)
        await self._redis.srem(key("desk-holding"), f"{team}/{user}")  # before: news held meanwhile adds it again
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.lrange(name, 0, -1)
            pipe.delete(name)
            items, _ = await pipe.execute()
        return [str(as_text(item)) for item in items]

    async def holding(self) -> list[tuple[str, str]]:
        """Whoever may have news held: (team, user). One set, read every round (a held list that
        lapsed leaves its member until a round finds it empty)."""
        members = sorted(str(as_text(member)) for member in await self._redis.smembers(key("desk-holding")))
        return [(team, user) for team, _, user in (member.partition("/") for member in members)]

    async def daily(self, team: str, user: str) -> Daily | None:
        raw = as_text(await self._redis.hget(key("desk-daily"), f"{team}/{user}"))
        if not raw:
            return None
        found = json.loads(raw)
        return Daily(dt.time.fromisoformat(found["at"]), str(found["zone"]))

    async def set_daily(self, team: str, user: str, daily: Daily | None) -> None:
        if daily is None:
            await self._redis.hdel(key("desk-daily"), f"{team}/{user}")
        else:
            await self._redis.hset(key("desk-daily"), f"{team}/{user}", json.dumps({"at": f"{daily.at:%H:%M}", "zone": daily.zone}))

    async def dailies(self) -> dict[tuple[str, str], Daily]:
        found = {}
        for member, raw in (await self._redis.hgetall(key("desk-daily"))).items():
            team, _, user = str(as_text(member)).partition("/")
            value = json.loads(str(as_text(raw)))
            found[(team, user)] = Daily(dt.time.fromisoformat(value["at"]), str(value["zone"]))
        return found

    async def daily_sent(self, team: str, user: str, day: dt.date) -> bool:
        return bool(await self._redis.exists(key("desk-daily-sent", team, user, day.isoformat())))

    async def unsent(self, due: list[tuple[str, str, dt.date]]) -> list[tuple[str, str, dt.date]]:
        """Of the (team, user, day) whose hour has come, those whose DM of the day did not go yet
        (one round trip for all: the scheduler asks every poll)."""
        async with self._redis.pipeline(transaction=False) as pipe:
            for team, user, day in due:
                pipe.exists(key("desk-daily-sent", team, user, day.isoformat()))
            sent = await pipe.execute()
        return [each for each, done in zip(due, sent, strict=True) if not done]

    async def daily_lease(self, team: str, user: str, day: dt.date) -> bool:
        """Whether this process sends the person's DM of `day` now: one at a time, again after a crash."""
        if await self.daily_sent(team, user, day):
            return False
        return bool(await self._redis.set(key("desk-daily-lease", team, user, day.isoformat()), "1", nx=True,
                                          ex=DAILY_LEASE_SECONDS))

    async def daily_done(self, team: str, user: str, day: dt.date) -> None:
        await self._redis.set(key("desk-daily-sent", team, user, day.isoformat()), "1", ex=2 * 86400)

    async def kept(self, team: str, user: str) -> bool:
        """Whether anything of theirs is kept here (for `/room forget me` to show)."""
        if await self._redis.hexists(key("desk-daily"), f"{team}/{user}"):
            return True
        for name in (key("desk-hours", team, user), key("desk-held", team, user)):  # one key a command: a Cluster's rule
            if await self._redis.exists(name):
                return True
        async for _ in self._redis.scan_iter(match=key("desk-choices", team, user, "*"), count=500):
            return True
        return False

    async def forget_team(self, team: str) -> int:
        """An uninstalled workspace's daily DMs and held news go from the indexes (its people's keys
        go with its other data, clients/workspace_erasure.py)."""
        gone = 0
        for member in await self._redis.hkeys(key("desk-daily")):
            if str(as_text(member)).partition("/")[0] == team:
                gone += int(await self._redis.hdel(key("desk-daily"), str(as_text(member))))
        for team_of, user in await self.holding():
            if team_of == team:
                await self._redis.srem(key("desk-holding"), f"{team}/{user}")
        return gone

    async def forget(self, team: str, user: str) -> int:
        """Everything of theirs here goes (`/room forget me`); how many keys or entries went."""
        gone = int(await self._redis.hdel(key("desk-daily"), f"{team}/{user}"))
        await self._redis.srem(key("desk-holding"), f"{team}/{user}")
        names = [key("desk-hours", team, user), key("desk-held", team, user)]
        for pattern in (key("desk-choices", team, user, "*"), key("desk-daily-sent", team, user, "*"),
                        key("desk-daily-lease", team, user, "*")):
            names += [str(as_text(name)) async for name in self._redis.scan_iter(match=pattern, count=500)]
        for name in names:
            gone += int(await self._redis.delete(name))
        return gone


def _level(raw: str | None) -> Level | None:
    try:
        return Level(raw) if raw else None
    except ValueError:
        return None
