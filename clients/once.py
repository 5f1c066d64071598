"""Claims that succeed once (or a few times) per window, shared by every bot process through Redis.

Used wherever Slack may say the same thing twice — a double click, a retried event delivery —
and the effect must happen once: `SET key 1 NX EX ttl` is true only for the first caller. `within`
is the same with room for a few: what one person may cost the services in a minute.

Each claim writes a value of its own: when Redis takes the write but its answer is lost (a
failover, a dropped connection), the client sends it again and finds the key taken — by itself.
Read back, the value tells that claim from another's: the command is not dropped as a replay.
"""

from __future__ import annotations

import secrets

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from clients.batched import Batched
from clients.redis_keys import key
from clients.storage import DROP_IF_SAME, as_text, degraded

#: a read beside a claim: its value, or Redis's refusal of that command alone
_Read = bytes | str | RedisError | None


class Once:
    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis
        self._claims_reading: Batched[tuple[str, str, int, str], tuple[object, _Read]] = Batched(self._claim_all_reading)

    async def claim(self, *name: str, ttl: int) -> bool:
        mine = secrets.token_hex(8)
        return bool(await self._redis.set(key("once", *name), mine, nx=True, ex=ttl)) or await self._took(name, mine)

    async def _took(self, name: tuple[str, ...], mine: str) -> bool:
        """Whether the claim found taken is this one's own, its first answer lost and the write sent again."""
        return as_text(await self._redis.get(key("once", *name))) == mine

    async def claim_or_assume(self, *name: str, ttl: int) -> bool:
        """`claim`, but without Redis the caller goes ahead: for effects where answering beats
        refusing (events, commands, a new room), a rare double beats a dead bot."""
        try:
            return await self.claim(*name, ttl=ttl)
        except RedisError as error:
            degraded(f"{name[0]} once", error)
            return True

    async def claim_or_assume_reading(self, *name: str, ttl: int, also: str) -> tuple[bool, tuple[str | None] | None]:
        """`claim_or_assume`, reading key `also` in the same round trip: the claim, and (when Redis
        answered) `also`'s value — for what the claimant reads next anyway (its person's profile)."""
        mine = secrets.token_hex(8)
        try:
            claimed, value = await self._claims_reading((key("once", *name), mine, ttl, also))
            if isinstance(claimed, RedisError):  # this claim's own failure, not its neighbours' in the pipeline
                raise claimed
            return bool(claimed) or await self._took(name, mine), (None if isinstance(value, RedisError) else as_text(value),)
        except RedisError as error:
            degraded(f"{name[0]} once", error)
            return True, None

    async def _claim_all_reading(self, claims: list[tuple[str, str, int, str]]) -> list[tuple[object, _Read]]:
        """The claims (and reads) of every command that came while the last round trip was on its
        way, in one (`Batched`): under a burst of commands, a round trip for many rather than each.
        A command's own refusal comes back in its place, for it alone; a lost connection fails all."""
        async with self._redis.pipeline(transaction=False) as pipe:
            for name, mine, ttl, also in claims:
                pipe.set(name, mine, nx=True, ex=ttl)
                pipe.get(also)
            said = await pipe.execute(raise_on_error=False)
        return [(said[at], said[at + 1]) for at in range(0, len(said), 2)]

    async def claim_as(self, *name: str, holder: str, ttl: int) -> str | None:
        """`claim`, naming who takes it: None when `holder` has it now, else who holds it (so that
        whoever loses a race can be told who won)."""
        for _ in range(3):  # the holder's claim may end between the two calls
            if await self._redis.set(key("once", *name), holder, nx=True, ex=ttl):
                return None
            held = as_text(await self._redis.get(key("once", *name)))
            if held is not None:
                return held
        return ""  # still changing hands: held, by someone unknown

    async def release_held(self, *name: str, holder: str) -> None:
        """`release`, only while `holder` still holds it (not a claim taken since this one ended).
        Called once the effect is done: without Redis, the claim ends with its expiry."""
        try:
            await self._redis.eval(DROP_IF_SAME, 1, key("once", *name), holder)
        except RedisError as error:
            degraded(f"{name[0]} release", error)

    async def note(self, *name: str, value: str, ttl: int) -> None:
        """What happened last (who did what), for whoever comes next to be told (best effort: the
        effect is done, and saying so matters more)."""
        try:
            await self._redis.set(key("once", *name), value, ex=ttl)
        except RedisError as error:
            degraded(f"{name[0]} note", error)

    async def noted(self, *name: str) -> str | None:
        try:
            return as_text(await self._redis.get(key("once", *name)))
        except RedisError as error:
            degraded(f"{name[0]} note", error)
            return None

    async def within(self, *name: str, most: int, ttl: int) -> bool:
        """Whether this is one of the first `most` claims of the window (without Redis: yes)."""
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.set(key("once", *name), 0, ex=ttl, nx=True)  # the window starts with its first claim
                pipe.incr(key("once", *name))
                _, taken = await pipe.execute()
        except RedisError as error:
            degraded(f"{name[0]} quota", error)
            return True
        return int(taken) <= most

    async def release(self, *name: str) -> None:
        """Gives the claim back when the effect did not happen, so trying again works."""
        await self._redis.delete(key("once", *name))
