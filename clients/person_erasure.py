"""Everything the bot keeps of one person, found by what its keys carry (their Slack team and user
id, a hash of their e-mail), so that they can see it and have it erased (`/room forget me`).

What it does not erase, and says so: the planned meetings they own or are invited to (others are
invited too; cancelling one is a choice of its own, in Home's Upcoming; each goes by itself a day
after it ends), the digests channels follow (the channel's), and the team spaces they set up (the
team's: channel, room and digest stay). The digests they set up lose their setter: nothing of them is
posted until someone entitled follows those démarches again, since the setter's rights were what let
the channel read them; the team spaces lose theirs: nobody gets their weekly roster check until
someone entitled runs `/dossier team` for them again (docs/privacy.md).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

import redis.asyncio as aioredis

from clients.dossiers.choices import PersonHours
from clients.dossiers.subscriptions import Subscriptions
from clients.dossiers.watch import Watches
from clients.redis_keys import email_digest, key
from clients.storage import as_text
from clients.team_spaces import TeamSpace, TeamSpaces


@dataclass(frozen=True)
class Person:
    """Who: their Slack workspace and user id, their e-mail (from their Slack profile, never typed),
    and the room-service application whose tokens the bot holds for them."""

    team: str
    user: str
    email: str
    application: str


@dataclass(frozen=True)
class Kept:
    """What the bot keeps of a person now."""

    profile: bool  # their Slack profile's copy (e-mail, language, time zone): 10 minutes
    token: bool  # a room-service token for them: until shortly before it expires
    recent_rooms: int  # the rooms they made lately, shown first in their lists: 30 days
    lookups: int  # what the service said of their rooms lately (listed, not found, no account): minutes
    watched: tuple[int, ...]  # the démarches they watch with /dossier watch: until they stop
    told: int  # the changes they were told of, so that none is told twice: 2 days
    hearing: bool  # what they chose to hear (levels, quiet hours, snooze, daily hour), news held: until erased
    digest_setups: int  # démarches they set a channel's digest up for
    team_spaces: tuple[TeamSpace, ...]  # the team spaces they set up (their id beside each): until erased
    meetings_owned: int  # planned meetings they own, still to come
    meetings_invited: int  # planned meetings they are invited to (owned by others), still to come

    @property
    def nothing(self) -> bool:
        return not (self.profile or self.token or self.recent_rooms or self.lookups or self.watched or self.told
                    or self.hearing or self.digest_setups or self.team_spaces or self.meetings_owned or self.meetings_invited)


#: JSON caches keyed by (application, e-mail hash, …): what the room service said of a person's rooms
_LOOKUPS = ("listed", "slug-miss")


class PersonalData:
    """What the bot keeps of people, for them to see and erase."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis

    async def kept(self, person: Person, now: dt.datetime) -> Kept:
        return await kept(self._redis, person, now)

    async def erase(self, person: Person) -> int:
        return await forget_person(self._redis, person)


async def kept(redis: aioredis.Redis, person: Person, now: dt.datetime) -> Kept:
    mine = email_digest(person.email)
    at = int(now.timestamp())
    owned = int(await redis.zcount(key("owned", person.team, person.user), at, "+inf"))
    upcoming = int(await redis.zcount(key("upcoming", person.team, person.user), at, "+inf"))
    return Kept(
        profile=bool(await redis.exists(key("profile", person.team, person.user))),
        token=bool(await redis.exists(key("token", person.application, mine))),
        recent_rooms=int(await redis.llen(key("recent", person.application, mine))),
        lookups=len(await _lookups(redis, person)),
        watched=tuple(await Watches(redis).of(person.team, person.user) or ()),
        told=int(await redis.scard(key("desk-told", person.team, person.user))),
        hearing=await PersonHours(redis).kept(person.team, person.user),
        digest_setups=sum(1 for sub in await Subscriptions(redis).all(person.team) for f in sub.follows if f.by == person.user),
        team_spaces=tuple(space for space in await TeamSpaces(redis).all(person.team) if space.by == person.user),
        meetings_owned=owned,
        meetings_invited=max(0, upcoming - owned),
    )


async def forget_person(redis: aioredis.Redis, person: Person) -> int:
    """Erases what `kept` counts, but the meetings (see the module's note); how many keys went.
    One key at a time: in a Redis Cluster they live on different nodes."""
    mine = email_digest(person.email)
    names = [key("profile", person.team, person.user), key("token", person.application, mine),
             key("recent", person.application, mine), key("no-account", person.application, mine),
             key("desk-told", person.team, person.user), *await _lookups(redis, person)]
    async for name in redis.scan_iter(match=key("digest-asked", "*", person.user), count=500):
        names.append(name)
    gone = 0
    for name in names:
        gone += int(await redis.delete(name))
    gone += int(await Watches(redis).stop(person.team, person.user))
    gone += await PersonHours(redis).forget(person.team, person.user)
    subscriptions = Subscriptions(redis)
    for sub in await subscriptions.all(person.team):
        if any(f.by == person.user for f in sub.follows):
            await subscriptions.save(replace(sub, follows=tuple(
                replace(f, by="", lapsed=True) if f.by == person.user else f for f in sub.follows)))
            gone += 1
    spaces = TeamSpaces(redis)  # the team spaces they set up stay the team's, without a setter to tell weekly
    for space in await spaces.all(person.team):
        if space.by == person.user:
            await spaces.save(replace(space, by=""))
            gone += 1
    return gone


async def _lookups(redis: aioredis.Redis, person: Person) -> list[str]:
    mine = email_digest(person.email)
    found = [key("no-account", person.application, mine)] if await redis.exists(key("no-account", person.application, mine)) else []
    for namespace in _LOOKUPS:
        async for name in redis.scan_iter(match=key(namespace, person.application, mine, "*"), count=500):
            found.append(str(as_text(name)))
    return found
