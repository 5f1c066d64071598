"""The stores whose commands touch several keys, on a real Redis Cluster (3 primaries, 3
replicas, one for the module): a command, a transaction or a script whose keys hash to different
slots is refused there (`CROSSSLOT`), so each such group of keys shares a `{hash tag}`. The desk's
flows that use them run here as `tests/desk` runs them, with `redis` the Cluster (the upgrade from
the names before their hash tag: `tests/desk/test_watch.py`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from bot.redis_server import connect_cluster
from clients.dossiers.watch import Watches
from tests.desk.conftest import demarche  # noqa: F401  (the desk's people and démarche, for its flows below)
from tests.desk.test_choices import test_quiet_hours_hold_the_news_and_send_it_in_one_dm_after  # noqa: F401
from tests.desk.test_daily import alices_daily, test_one_dm_a_day_when_two_processes_run_the_scheduler  # noqa: F401
from tests.desk.test_watch import test_watch_tells_each_person_what_is_theirs_once  # noqa: F401
from tests.desk.test_watch_kinds import followed, test_expiring_is_told_once_and_deleted_to_whom_it_concerned  # noqa: F401
from tests.desk.test_watch_rush import test_700_deposits_between_two_rounds_are_all_told_over_the_rounds_none_twice  # noqa: F401
from tests.redis_topologies import LocalCluster

SINCE = dt.datetime(2026, 11, 2, 8, 30, tzinfo=dt.UTC)
TOKEN = "0123456789abcdef"  # an account's name: a digest of its token


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with LocalCluster(Path(tmp_path_factory.mktemp("cluster"))) as servers:
        yield servers


@pytest.fixture
async def redis(cluster: LocalCluster) -> AsyncIterator[aioredis.Redis]:
    """The Cluster, emptied, for this module's tests and the bots they start."""
    client = connect_cluster(cluster.url)
    await client.flushdb()  # every primary's
    yield client
    await client.aclose()


async def test_where_a_watch_reads_is_kept_and_read_on_a_cluster(redis: aioredis.Redis) -> None:
    """A round reads each watched démarche from where the last one stopped (its `since`, and the
    cursor of a backlog): both are read in one MGET and changed together in a transaction, which a
    Cluster runs only when they share a slot. Otherwise every `/dossier watch` round fails there."""
    watches = Watches(redis)
    assert await watches.reading(TOKEN, 101) is None
    await watches.read_until(TOKEN, 101, SINCE)
    assert await watches.reading(TOKEN, 101) == (SINCE, None)
    await watches.read_on(TOKEN, 101, "cursor-500")  # a backlog: the same since, from its cursor
    assert await watches.reading(TOKEN, 101) == (SINCE, "cursor-500")
    await watches.read_on(TOKEN, 101, None)  # a cursor the service no longer takes: from the start
    assert await watches.reading(TOKEN, 101) == (SINCE, None)
    later = SINCE + dt.timedelta(minutes=5)
    await watches.read_on(TOKEN, 101, "cursor-500")
    await watches.read_until(TOKEN, 101, later)  # the backlog read: its cursor goes
    assert await watches.reading(TOKEN, 101) == (later, None)
    assert await watches.reading(TOKEN, 102) is None  # another démarche's own

