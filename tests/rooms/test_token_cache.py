"""Delegated tokens: cached per person until `expires_in` minus a margin, fetched once at a time."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest
import redis.asyncio as aioredis
from freezegun import freeze_time
from pydantic import SecretStr

from bot.demo.meet import FakeMeet
from clients.redis_keys import email_digest, key
from clients.rooms.models import TokenGrant
from clients.rooms.token_cache import TokenCache
from tests.conftest import start_bot, text_of


class Issuer:
    def __init__(self, expires_in: int = 3600, delay: float = 0.0) -> None:
        self.calls = 0
        self.expires_in = expires_in
        self.delay = delay

    async def __call__(self) -> TokenGrant:
        self.calls += 1
        await asyncio.sleep(self.delay)
        return TokenGrant(access_token=SecretStr(f"token-{self.calls}"), expires_in=self.expires_in)


async def test_token_reused_until_expiry_minus_margin_then_renewed(redis: aioredis.Redis):
    cache = TokenCache(redis, max_margin=60)
    issue = Issuer()
    # real_asyncio: event loops (ours and the fakes' threads) keep real time while the clock is frozen
    with freeze_time("2026-11-22 09:00:00", real_asyncio=True) as clock:
        first = await cache.get_or_fetch("alice@example.gouv.fr", issue)
        clock.tick(dt.timedelta(seconds=3600 - 61))
        assert (await cache.get_or_fetch("Alice@Example.gouv.fr ", issue)).get_secret_value() == first.get_secret_value()
        clock.tick(dt.timedelta(seconds=2))
        renewed = await cache.get_or_fetch("alice@example.gouv.fr", issue)
    assert (first.get_secret_value(), renewed.get_secret_value()) == ("token-1", "token-2")


async def test_redis_ttl_is_expires_in_minus_margin_and_keys_hold_no_email(redis: aioredis.Redis):
    cache = TokenCache(redis, max_margin=60)
    await cache.get_or_fetch("alice@example.gouv.fr", Issuer(expires_in=900))
    [name] = await redis.keys("*")
    assert name == key("token", "app", email_digest("ALICE@example.gouv.fr"))
    assert "alice" not in name and "example" not in name
    assert 838 <= await redis.ttl(name) <= 840


async def test_short_lifetimes_are_cached_with_a_margin_that_scales(redis: aioredis.Redis):
    """A 30 s lifetime is a valid setting of the service: cached 27 s, not fetched per command."""
    cache = TokenCache(redis, max_margin=60)
    issue = Issuer(expires_in=30)
    with freeze_time("2026-11-22 09:00:00", real_asyncio=True) as clock:
        first = await cache.get_or_fetch("a@x.fr", issue)
        clock.tick(dt.timedelta(seconds=26))
        assert (await cache.get_or_fetch("a@x.fr", issue)).get_secret_value() == first.get_secret_value()
        clock.tick(dt.timedelta(seconds=2))
        await cache.get_or_fetch("a@x.fr", issue)
    assert issue.calls == 2
    assert 0 < await redis.ttl(key("token", "app", email_digest("a@x.fr"))) <= 27

    tiny = Issuer(expires_in=5)  # below 10 s a token would expire while a command uses it
    await cache.get_or_fetch("b@x.fr", tiny)
    await cache.get_or_fetch("b@x.fr", tiny)
    assert tiny.calls == 2


async def test_a_token_serves_only_the_application_that_obtained_it(redis: aioredis.Redis):
    issue = Issuer()
    await TokenCache(redis, application="list-only").get_or_fetch("a@x.fr", issue)
    token = await TokenCache(redis, application="full").get_or_fetch("a@x.fr", issue)
    assert (issue.calls, token.get_secret_value()) == (2, "token-2")


async def test_drop_only_removes_the_refused_token(redis: aioredis.Redis):
    cache = TokenCache(redis)
    await cache.get_or_fetch("a@x.fr", Issuer())
    await cache.drop("a@x.fr", SecretStr("some-older-token"))
    assert await cache.get("a@x.fr") is not None
    await cache.drop("a@x.fr", SecretStr("token-1"))
    assert await cache.get("a@x.fr") is None


async def test_concurrent_callers_share_one_fetch(redis: aioredis.Redis):
    issue = Issuer(delay=0.2)
    caches = [TokenCache(redis), TokenCache(redis)]  # as two processes would
    tokens = await asyncio.gather(*(caches[i % 2].get_or_fetch("a@x.fr", issue) for i in range(20)))
    assert issue.calls == 1
    assert {t.get_secret_value() for t in tokens} == {"token-1"}


async def test_a_crashed_lock_holder_blocks_only_until_the_lock_times_out(redis: aioredis.Redis):
    # A process took the lock and died without releasing it.
    await redis.set(key("lock", "token", "app", email_digest("a@x.fr")), "dead-holder", px=400)
    cache = TokenCache(redis, lock_timeout=0.4)
    loop = asyncio.get_running_loop()
    started = loop.time()
    token = await cache.get_or_fetch("a@x.fr", Issuer())
    waited = loop.time() - started
    assert token.get_secret_value() == "token-1"
    assert 0.3 <= waited < 3.0


async def test_failed_fetch_releases_the_lock_for_the_next_caller(redis: aioredis.Redis):
    cache = TokenCache(redis)

    async def failing() -> TokenGrant:
        raise RuntimeError("service down")

    with pytest.raises(RuntimeError):  # the caller learns of the failure...
        await cache.get_or_fetch("a@x.fr", failing)
    assert (await cache.get_or_fetch("a@x.fr", Issuer())).get_secret_value() == "token-1"  # ...and the lock is free


async def test_two_app_instances_sharing_redis_make_one_token_request(settings, redis, slack, meet: FakeMeet, alice):
    meet.delay = 0.05
    async for first in start_bot(settings, redis, slack):
        async for second in start_bot(settings, redis, slack):
            await asyncio.gather(*((first if i % 2 else second).command("list") for i in range(20)))
            replies = await slack.wait_responses(20)
    assert len(meet.token_requests) == 1
    assert all("no video room yet" in text_of(r) for r in replies)
