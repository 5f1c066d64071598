"""The watch in a rush: a backlog larger than a round reads is told whole over the next rounds,
each change once; what each person was told is kept only as long as a read can find it again."""

from __future__ import annotations

import datetime as dt
import re

import redis.asyncio as aioredis

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from tests.conftest import Bot, text_of
from tests.desk.conftest import dossier
from tests.desk.test_watch import a_round, news
from tests.fakes.slack import FakeSlack


def told(slack: FakeSlack, user: str) -> list[int]:
    """How many changes each DM told (its title counts them all, past the 20 it lists)."""
    return [int(re.findall(r"\((\d+)\)", text_of(message))[0]) for message in news(slack, user)]


async def marks_kept(redis: aioredis.Redis) -> int:
    kept = 0
    async for name in redis.scan_iter(match="*desk-told*"):
        kept += await (redis.zcard(name) if await redis.type(name) in (b"zset", "zset") else redis.scard(name))
    return kept


async def test_700_deposits_between_two_rounds_are_all_told_over_the_rounds_none_twice(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    start = dt.datetime.now(dt.UTC).replace(microsecond=0)
    for user in ("U0ALICE", "U0BOB"):
        await dossier(digest_bot, "watch 101", user=user)
    await a_round(digest_bot, start)  # reading starts here
    ds.now = start + dt.timedelta(seconds=5)
    deposited = [ds.deposit(101).number for _ in range(700)]  # one a second, in Alice's group
    assert len(set(deposited)) == 700
    for minutes in (15, 20, 25, 30):  # a round reads 500 at most: the rest comes with the next
        await a_round(digest_bot, start + dt.timedelta(minutes=minutes))
    assert told(slack, "U0ALICE") == [500, 200]
    assert sum(told(slack, "U0BOB")) == 700


async def test_what_was_told_stays_bounded_however_many_rounds_go_by(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    start = dt.datetime.now(dt.UTC).replace(microsecond=0)
    for user in ("U0ALICE", "U0BOB"):
        await dossier(digest_bot, "watch 101", user=user)
    await a_round(digest_bot, start)
    for index in range(1, 31):  # 30 rounds, 10 minutes apart, 10 deposits before each
        ds.now = start + dt.timedelta(minutes=10 * index)
        for _ in range(10):
            ds.deposit(101)
        await a_round(digest_bot, ds.now + dt.timedelta(seconds=30))
    assert told(slack, "U0ALICE") == [10] * 30 and told(slack, "U0BOB") == [10] * 30
    assert await marks_kept(digest_bot.runtime.redis) == 2 * 10  # each person's last round, which the overlap may read again: not 600
