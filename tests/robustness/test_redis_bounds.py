"""A Redis that stops reading and answering (its process stopped, as a frozen VM or a full disk's
stall leaves it) costs a command at most its time bounds, in every topology the bot supports:
`socket_timeout` on each write and read (`bot/redis_server.py`'s `_BoundedWrites`), `POOL_WAIT`
for a free connection. The command then fails with the error the bot handles (a `RedisError`)
or, where a replica takes over, goes through on it; and once Redis answers again, so does the
client. The writes' bound is met by a value larger than what the kernels' buffers absorb (the
bot's own commands are small: a stalled Redis then holds them in the read, bounded the same way)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from bot.redis_server import _CONNECTION, POOL_SIZE, POOL_WAIT, connect, connect_cluster, connect_sentinel
from tests.conftest import eventually
from tests.processes import free_port
from tests.redis_topologies import LocalCluster, LocalSentinels, Servers

BOUND = _CONNECTION["socket_timeout"]
BIG = b"x" * (16 << 20)  # past the loopback's socket buffers (4 MiB to send, 128 KiB to receive)
#: A failed command's retries (each bounded), and what a loaded 2-core machine adds. Only a hang
#: (a write or a read without a bound) comes near it.
GIVE_UP = 60


class Stopped:
    """SIGSTOP to a server process for the block: it neither reads nor answers, its sockets stay open."""

    def __init__(self, servers: Servers, port: int) -> None:
        self._pid = servers.processes[port].pid

    def __enter__(self) -> None:
        os.kill(self._pid, signal.SIGSTOP)

    def __exit__(self, *exc: object) -> None:
        os.kill(self._pid, signal.SIGCONT)


async def _fails_in_bounds(command) -> float:
    """The seconds `command` took to fail with redis-py's `TimeoutError` (a `RedisError`, which
    the bot's callers handle); a hang fails the test."""
    started = time.monotonic()
    with pytest.raises(RedisTimeoutError):
        async with asyncio.timeout(GIVE_UP):
            await command
    return time.monotonic() - started


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Servers, int]]:
    with Servers(tmp_path / "single") as servers:
        port = free_port()
        servers.start(port)
        yield servers, port


async def test_a_stopped_server_fails_a_read_and_a_write_within_the_socket_timeout_then_serves_again(server) -> None:
    servers, port = server
    client = connect(f"redis://127.0.0.1:{port}")
    try:
        await client.set("kept", "yes")
        pool = client.connection_pool
        for connection in [await pool.get_connection() for _ in range(2)]:  # two open: the read's and the write's
            await pool.release(connection)
        with Stopped(servers, port):
            read, write = await asyncio.gather(_fails_in_bounds(client.get("kept")), _fails_in_bounds(client.set("big", BIG)))
        assert read >= BOUND and write >= BOUND  # each waited its bound, not less
        assert await client.get("kept") == "yes"
    finally:
        await client.aclose()


async def test_a_command_waits_for_a_free_connection_at_most_pool_wait(server) -> None:
    """Every connection taken (a stalled burst): the next command waits up to POOL_WAIT, is
    served as soon as one is given back, and fails with a connection error past it."""
    _, port = server
    client = connect(f"redis://127.0.0.1:{port}")
    pool = client.connection_pool
    try:
        await client.set("kept", "yes")
        taken = [await pool.get_connection() for _ in range(POOL_SIZE)]
        waiting = asyncio.ensure_future(client.get("kept"))
        # it waits (redis-py's plain pool fails at once: "Too many connections")
        waiters = pool._condition._waiters  # type: ignore[attr-defined]  # the blocking pool's
        await eventually(lambda: waiting.done() or len(waiters) == 1, "the command waiting for a connection")
        assert not waiting.done()
        await pool.release(taken.pop())
        assert await waiting == "yes"

        taken.append(await pool.get_connection())
        started = time.monotonic()
        with pytest.raises(RedisConnectionError):
            await client.get("kept")
        assert time.monotonic() - started >= POOL_WAIT
        for connection in taken:
            await pool.release(connection)
        assert await client.get("kept") == "yes"
    finally:
        await client.aclose()


async def _ends_within_bounds(command) -> None:
    """`command` goes through (a replica took over in time) or fails with a `RedisError`, after
    at least one bound spent on the stopped server; a hang fails the test."""
    started = time.monotonic()
    with contextlib.suppress(RedisError):
        async with asyncio.timeout(GIVE_UP):
            await command
    assert time.monotonic() - started >= BOUND


async def _goes_through(command) -> bool:
    try:
        await command
    except RedisError:
        return False
    return True


@pytest.mark.timeout(300)  # a cluster's start and a failover on a loaded machine
async def test_a_stopped_cluster_primary_costs_a_write_its_bound_then_its_replica_serves(tmp_path: Path) -> None:
    with LocalCluster(tmp_path / "cluster") as cluster:
        client = connect_cluster(cluster.url)
        try:
            await client.set("big", "small")  # the slots' map known, connections open
            with Stopped(cluster, cluster.primary_of("big")):
                await _ends_within_bounds(client.set("big", BIG))
                await eventually(lambda: _goes_through(client.set("after", "yes")), "the replica to serve", timeout=GIVE_UP)
            assert await client.get("after") == "yes"
        finally:
            await client.aclose()


@pytest.mark.timeout(300)
async def test_a_stopped_sentinel_primary_costs_a_write_its_bound_then_the_new_primary_serves(tmp_path: Path) -> None:
    with LocalSentinels(tmp_path / "sentinel") as sentinels:
        client = connect_sentinel([("127.0.0.1", port) for port in sentinels.sentinels], sentinels.NAME)
        try:
            await client.set("big", "small")
            with Stopped(sentinels, sentinels.primary):
                await _ends_within_bounds(client.set("big", BIG))
                await eventually(lambda: _goes_through(client.set("after", "yes")), "the new primary to serve",
                                 timeout=GIVE_UP)
            assert sentinels.current_primary() == sentinels.replica
            assert await client.get("after") == "yes"
        finally:
            await client.aclose()
