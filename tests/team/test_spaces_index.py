"""Team spaces are listed from an index (each roster poll, the privacy view, an erasure), not a
SCAN of the keyspace: spaces saved before the index existed are still found, an uninstall leaves
no entry behind, and a Redis Cluster (spaces in different slots) lists them all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from freezegun import freeze_time

from bot.config import Settings
from bot.redis_server import open_redis
from clients.redis_keys import key
from clients.team_spaces import INDEX, INDEXED, INDEXED_FOR, TeamSpace, TeamSpaces
from clients.workspace_erasure import forget_team
from tests.redis_topologies import LocalCluster


async def _saved_before_the_index(redis: aioredis.Redis, space: TeamSpace) -> None:
    """As the bot saved a space before it kept an index: its key alone."""
    group = "all" if space.group is None else str(space.group)
    await redis.set(key("team-space", space.team, str(space.demarche), group), json.dumps(asdict(space)))


async def _scans(redis: aioredis.Redis) -> int:
    return int((await redis.info("commandstats")).get("cmdstat_scan", {}).get("calls", 0))


async def test_spaces_saved_before_the_index_are_found_and_the_keyspace_is_scanned_once(redis: aioredis.Redis) -> None:
    old = [TeamSpace("T0ONE", 101, by="U0ADA", channel="C0A"), TeamSpace("T0ONE", 101, 2, channel="C0B"),
           TeamSpace("T0TWO", 7, channel="C0C")]
    for space in old:
        await _saved_before_the_index(redis, space)
    new = TeamSpace("T0TWO", 8, channel="C0D")
    await TeamSpaces(redis).save(new)

    assert await TeamSpaces(redis).all() == [*old, new]
    assert await TeamSpaces(redis).all("T0ONE") == old[:2]
    scans = await _scans(redis)
    assert await TeamSpaces(redis).all() == [*old, new]  # another process's listing: the index only
    assert await TeamSpaces(redis).all("T0TWO") == [old[2], new]
    assert await _scans(redis) == scans


async def test_a_space_an_older_process_saves_during_an_upgrade_is_listed_within_a_day(redis: aioredis.Redis) -> None:
    """During a rolling upgrade a process of the version before the index still saves spaces
    without indexing them: the mark that spares the SCAN lapses after a day, and they are found."""
    spaces = TeamSpaces(redis)  # a running process's, kept
    with freeze_time("2026-11-28 09:00") as clock:
        assert await spaces.all() == []
        late = TeamSpace("T0LATE", 101, channel="C0LATE")
        await _saved_before_the_index(redis, late)  # by a process of the version before
        assert 0 < await redis.ttl(INDEXED) <= INDEXED_FOR
        await redis.delete(INDEXED)  # as Redis lets it lapse, a day later
        clock.tick(INDEXED_FOR)
        assert await spaces.all() == [late]


async def test_an_uninstall_leaves_nothing_of_the_workspaces_spaces_in_the_index(redis: aioredis.Redis) -> None:
    spaces = TeamSpaces(redis)
    await spaces.save(TeamSpace("T0GONE", 101, channel="C0A"))
    await spaces.save(TeamSpace("T0GONE", 101, 1, channel="C0B"))
    await spaces.save(TeamSpace("T0STAY", 101, channel="C0C"))

    await forget_team(redis, "T0GONE")

    assert await spaces.all() == [TeamSpace("T0STAY", 101, channel="C0C")]
    assert await redis.smembers(INDEX) == {"T0STAY"}
    assert [name async for name in redis.scan_iter(match=key("team-space", "T0GONE") + "*")] == []


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    with LocalCluster(tmp_path / "cluster") as servers:
        yield servers


async def test_a_cluster_lists_every_workspaces_spaces_from_their_different_slots(cluster: LocalCluster) -> None:
    async with open_redis(Settings(_env_file=None, redis_url=cluster.url)) as redis:
        old = TeamSpace("T0OLD", 5, channel="C0OLD")
        await _saved_before_the_index(redis, old)
        spaces = TeamSpaces(redis)
        saved = [TeamSpace(team, demarche, group, channel=f"C0{team}{demarche}")
                 for team in ("T0A", "T0B", "T0C") for demarche in (101, 202, 303) for group in (None, 1)]
        for space in saved:
            await spaces.save(space)
        assert len({cluster.primary_of(key("team-space", s.team, str(s.demarche))) for s in saved}) > 1

        assert await spaces.all() == [*saved[:6], *saved[6:12], *saved[12:], old]
        assert await spaces.all("T0B") == saved[6:12]
        await forget_team(redis, "T0A")
        assert await TeamSpaces(redis).all() == [*saved[6:], old]
