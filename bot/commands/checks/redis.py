"""Redis's line of `check`: reachable, and keeping what it holds across a restart.

Everything the bot remembers (installations, tokens, subscriptions, the digest's memory) is in
Redis: a server without persistence loses it on restart, so that is a ✗, not a detail.
"""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from bot import operator_advice as advice
from bot.commands.checks.result import Result
from bot.config import Settings


async def check_redis(redis: aioredis.Redis, settings: Settings) -> Result:
    try:
        server = await redis.info("server")
        persistence = await redis.info("persistence")
        saved = "AOF" if persistence.get("aof_enabled") else await _snapshots(redis)
    except RedisError as error:
        return Result("Redis", False, advice.redis_problem(error, settings))
    if saved == "none":
        return Result("Redis", False, f"version {server.get('redis_version')}, no persistence: enable AOF (appendonly yes)")
    return Result("Redis", True, f"version {server.get('redis_version')}, persistence: {saved}")


async def _snapshots(redis: aioredis.Redis) -> str:
    """RDB snapshots when `save` has a rule (INFO cannot tell: it shows a last save time even with
    `save ""`); managed services that refuse CONFIG are taken at their word."""
    try:
        rules = (await redis.config_get("save")).get("save")
    except ResponseError:
        return "RDB snapshots (not verified: CONFIG refused)"
    return "RDB snapshots" if rules else "none"
