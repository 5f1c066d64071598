"""Which channels get a digest, of which démarches, at what local hour — kept in Redis.

Channels subscribe from Slack (`/digest subscribe`); each démarche a channel follows records the
Slack user who set it up, so that only they, or someone entitled to the démarche, can stop it. A
channel that refused a digest for good (archived, deleted, the bot removed) is paused until
someone subscribes there again. The operator's own subscription comes from the environment
(DIGEST_CHANNEL, DIGEST_DEMARCHES, DIGEST_TIME), is not stored here, and has marks of its own.
Each subscription is its workspace's (the team id in its key): one installed in many workspaces
never reads or changes another's, and an uninstall removes the workspace's all at once.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, replace

import redis.asyncio as aioredis

from clients.redis_keys import key
from clients.storage import as_text

INDEX = key("digest-subs")


@dataclass(frozen=True)
class Followed:
    """One démarche a channel follows (all of it, or one groupe instructeur's dossiers), and who
    set that up (a Slack user id; "" when unknown)."""

    demarche: int
    by: str = ""
    group: int | None = None
    # whoever set it up no longer works on the démarche (or the group) on the service: nothing of it
    # is posted until someone entitled follows it again (domain/dossiers/rights.py)
    lapsed: bool = False


@dataclass(frozen=True)
class Subscription:
    channel: str
    follows: tuple[Followed, ...]
    at: dt.time
    operator: bool = False  # the operator's, from the environment: never stored, marked apart
    paused: str | None = None  # why the channel refused a digest for good (a Slack error code)
    team: str = ""  # the workspace's team id ("" for the operator's, and for those kept before teams were)
    # the first local day it is due: set when it is made, its hour moved or its pause lifted, so that a
    # digest set in the evening for the morning starts the next morning (None: due from any day)
    since: dt.date | None = None

    @property
    def demarches(self) -> tuple[int, ...]:
        return tuple(f.demarche for f in self.follows)

    @property
    def live(self) -> Subscription:
        """The subscription as a digest run counts it: without what has lapsed."""
        return replace(self, follows=tuple(f for f in self.follows if not f.lapsed))

    @property
    def place(self) -> str:
        """Names this subscription's marks (posted, lease, forced run): the operator's and a channel's
        own subscription in the same channel never share one, so neither cancels the other."""
        if self.operator:
            return f"{self.channel}:operator"
        return f"{self.team}:{self.channel}" if self.team else self.channel

    def follow(self, demarche: int, by: str, group: int | None = None) -> Subscription:
        """Follows the démarche, set up by `by`; one that had lapsed is taken over by them."""
        if any(f.demarche == demarche and f.lapsed for f in self.follows):
            return replace(self, follows=tuple(Followed(demarche, by, group) if f.demarche == demarche else f for f in self.follows))
        if demarche in self.demarches:
            return self
        return replace(self, follows=(*self.follows, Followed(demarche, by, group)))

    def group_of(self, demarche: int) -> int | None:
        """The one group followed of `demarche`, or None when all of it is."""
        return next((f.group for f in self.follows if f.demarche == demarche), None)

    def without(self, demarches: set[int]) -> Subscription:
        return replace(self, follows=tuple(f for f in self.follows if f.demarche not in demarches))

    def set_up_by(self, demarche: int) -> str:
        return next((f.by for f in self.follows if f.demarche == demarche), "")


class Subscriptions:
    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis

    async def get(self, team: str, channel: str) -> Subscription | None:
        """The channel's subscription in `team`; one kept before subscriptions had a team is found
        too, and stays where it is (`team` "")."""
        raw = as_text(await self._redis.get(_key(team, channel)))
        if raw is None and team:
            return await self.get("", channel)
        if raw is None:
            return None
        data = json.loads(raw)
        if "follows" in data:
            follows = tuple(Followed(int(f["n"]), str(f.get("by", "")), f.get("g"), bool(f.get("x"))) for f in data["follows"])
        else:  # written before who set it up was recorded
            follows = tuple(Followed(int(n)) for n in data["demarches"])
        since = dt.date.fromisoformat(data["since"]) if data.get("since") else None
        return Subscription(channel, follows, dt.time.fromisoformat(data["at"]), paused=data.get("paused"), team=team, since=since)

    async def save(self, subscription: Subscription) -> None:
        """Saves it, or forgets the channel when it follows no démarche any more."""
        name = _member(subscription.team, subscription.channel)
        if not subscription.follows:
            await self._redis.delete(_key(subscription.team, subscription.channel))
            await self._redis.srem(INDEX, name)
            return
        data = {"follows": [{"n": f.demarche, "by": f.by} | ({"g": f.group} if f.group is not None else {})
                            | ({"x": 1} if f.lapsed else {}) for f in subscription.follows],
                "at": subscription.at.strftime("%H:%M"), "paused": subscription.paused}
        if subscription.since is not None:
            data["since"] = subscription.since.isoformat()
        await self._redis.set(_key(subscription.team, subscription.channel), json.dumps(data))
        await self._redis.sadd(INDEX, name)

    async def all(self, team: str | None = None) -> list[Subscription]:
        """Every workspace's, or `team`'s only."""
        found = []
        for member in sorted(str(as_text(item)) for item in await self._redis.smembers(INDEX)):
            its_team, _, channel = member.rpartition("/")
            if team is None or its_team == team:
                found.append(await self.get(its_team, channel))
        return [subscription for subscription in found if subscription is not None]

    async def forget_team(self, team: str) -> int:
        """An uninstalled workspace's subscriptions go; how many there were."""
        gone = await self.all(team)
        for subscription in gone:
            await self.save(replace(subscription, follows=()))
        return len(gone)

    async def set_up_by(self, user: str) -> int:
        """How many démarches `user` set up, in every channel."""
        return sum(1 for subscription in await self.all() for f in subscription.follows if f.by == user)

    async def followed_anywhere(self, demarche: int) -> bool:
        return any(demarche in subscription.demarches for subscription in await self.all())


def _key(team: str, channel: str) -> str:
    return key("digest-sub", team, channel) if team else key("digest-sub", channel)


def _member(team: str, channel: str) -> str:
    return f"{team}/{channel}" if team else channel
