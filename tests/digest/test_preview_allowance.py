"""Dossier link previews cost the token's allowance only for people entitled to the démarche, a few
a minute per person, and never what the digests need: rights are read before the dossier, and
previews take at most a share of each minute."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from bot.demo.ds import FakeDS
from clients.dossiers.errors import OverShare
from clients.dossiers.rate_limit import SHARE, RateLimiter
from domain.dossiers.previews import PREVIEWS_PER_MINUTE
from tests.conftest import Bot
from tests.digest.commands import ALICE
from tests.fakes.slack import FakeSlack
from tests.slack_requests import event_body, signed_headers


def asked(ds: FakeDS, operation: str) -> int:
    return sum(1 for q in ds.queries if q.get("operationName") == operation)


async def paste(bot: Bot, urls: list[str], user: str, event_id: str) -> None:
    body = event_body({"type": "link_shared", "channel": "C0TEAM", "user": user, "message_ts": "1700000000.000300",
                       "unfurl_id": f"C0TEAM.{event_id}", "source": "conversations_history",
                       "links": [{"domain": "127.0.0.1", "url": url} for url in urls]}, event_id=event_id)
    assert (await bot.post(body, signed_headers(body))).status_code == 200


async def test_links_pasted_by_someone_entitled_to_nothing_cost_one_member_list(digest_bot: Bot, ds: FakeDS,
                                                                             slack: FakeSlack, people) -> None:
    ds.add_demarche(101, "Subvention", admins=(ALICE,))
    numbers = [ds.deposit(101).number for _ in range(5)]
    base = ds.url.removesuffix("/api/v2/graphql")
    for index in range(50):  # 50 messages of 5 links, as fast as Slack delivers them
        await paste(digest_bot, [f"{base}/procedures/101/dossiers/{n}" for n in numbers], people["mallory"], f"EvM{index}")
    await digest_bot.runtime.tasks.drain(30)
    assert len(slack.called("chat.unfurl")) == 50  # every message still gets its (plain) previews
    assert asked(ds, "getDossier") == 0 and asked(ds, "getDemarcheMembers") == 1


async def test_one_persons_previews_read_a_few_dossiers_a_minute(digest_bot: Bot, ds: FakeDS, slack: FakeSlack) -> None:
    ds.add_demarche(101, "Subvention", admins=(ALICE,))
    numbers = [ds.deposit(101).number for _ in range(40)]
    base = ds.url.removesuffix("/api/v2/graphql")
    for index in range(8):  # the usager's address names no démarche: the dossier is read to know it
        await paste(digest_bot, [f"{base}/dossiers/{n}" for n in numbers[index * 5:index * 5 + 5]], "U0ALICE", f"EvA{index}")
    await digest_bot.runtime.tasks.drain(30)
    assert asked(ds, "getDossier") == PREVIEWS_PER_MINUTE


async def test_a_preview_takes_only_its_share_of_the_minute_and_does_not_wait(redis: aioredis.Redis) -> None:
    clock = [600.0]
    limiter = RateLimiter(100, redis=redis, name="token", clock=lambda: clock[0])  # 98 a minute, after the margin
    for _ in range(48):
        await limiter.wait()  # a digest's walk
    share = SHARE.set(0.5)
    try:
        await limiter.wait()  # the 49th of 98: still within half
        with pytest.raises(OverShare):
            await limiter.wait()
    finally:
        SHARE.reset(share)
    for _ in range(44):
        await limiter.wait()  # the digest keeps the rest of its minute, to what it leaves for acts (5)
    assert clock == [600.0]  # nobody waited
