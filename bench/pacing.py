"""The dossier walks at the service's real speed (400 requests per token per epoch-aligned minute).

1. A 200-page walk with the bot's rate limiter at 400/min, against a raw loop over the same pages
   (median of 5 each, alternated; the fake does not limit): what the limiter costs when the
   allowance is not reached.
2. 1,000 pages (two démarches of 500, walked at once by two walkers with their own clients and
   limiters sharing only Redis, as two bot processes would) against a fake that enforces 400 per
   minute: when the walk ends, next to the physical minimum (the end of the window in which the
   service's allowance permits the 1,000th request), and how many 429s.
3. The digest chart: time to draw it and its peak Python memory, next to the text trend.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import math
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import redis.asyncio as aioredis
from pydantic import SecretStr

from bench.digest import paginate, raw_walk, timed
from bench.progress import step
from bench.rooms import start
from bot.demo.ds import TOKEN
from bot.redis_server import EmbeddedRedis
from clients.dossiers.counts import DossierCounter
from clients.dossiers.digest_store import Snapshot
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.service import DossierService
from domain.dossiers.counting import by_state
from handlers.digest.chart import render
from handlers.digest.messages import sparkline

LIMIT = 400


def rss() -> int:
    """This process's resident memory, in bytes."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def chart_rows() -> list[tuple[str, str, str]]:
    """The digest's chart (14 days × 5 states) drawn as the bot draws it, by a worker process,
    beside the same drawing in this process; and the text sparkline for the same days."""
    step("pacing", "the digest chart, drawn by a worker process and in this one")
    day = dt.date(2026, 1, 14)
    snapshots: list[Snapshot | None] = [Snapshot(dt.datetime(2026, 1, 1 + i, tzinfo=dt.UTC),
                                                 {"en_construction": 100 + i, "en_instruction": 80, "accepte": 300 + 3 * i,
                                                  "refuse": 40, "sans_suite": 10}) for i in range(14)]
    series = by_state([snapshots, snapshots])
    before = rss()
    worker = []
    for _ in range(5):
        started = time.perf_counter()
        await render("fr", day, series)
        worker.append(time.perf_counter() - started)
    grown_by_worker = rss() - before
    started = time.perf_counter()
    from handlers.digest.plot import figure  # the plotting library, loaded here as it used to be in the bot

    imported = time.perf_counter() - started
    inline = []
    for _ in range(6):
        started = time.perf_counter()
        figure("fr", day, series).savefig(io.BytesIO(), format="png")
        inline.append(time.perf_counter() - started)
    grown_inline = rss() - before
    started = time.perf_counter()
    for _ in range(1000):
        sparkline([s.total if s else None for s in snapshots])
    text_trend = (time.perf_counter() - started) / 1000
    return [
        ("digest chart, 14 days × 5 states, by a worker process (median of 5)",
         f"{statistics.median(worker) * 1000:.0f} ms, start included; the caller's RSS {grown_by_worker / 2**20:+.0f} MiB",
         f"drawn in-process {statistics.median(inline[1:]) * 1000:.0f} ms after a {imported:.2f} s import, "
         f"RSS {grown_inline / 2**20:+.0f} MiB; text trend {text_trend * 1e6:.0f} µs"),
    ]


async def main() -> list[tuple[str, str, str]]:
    folder = Path(tempfile.mkdtemp(prefix="roombot-bench-pace-"))
    redis_server = EmbeddedRedis(folder / "redis")
    redis_server.start()
    redis = aioredis.Redis.from_url(redis_server.url, decode_responses=True)
    free, free_base = start(["bench/ds_server.py", "1:20000"], {}, timeout=120)
    limited, limited_base = start(["bench/ds_server.py", "2:50000,3:50000"], {"DS_PER_WINDOW": str(LIMIT)}, timeout=180)
    try:
        url = f"{free_base}/api/v2/graphql"
        service = DossierService(url, SecretStr(TOKEN), limiter=RateLimiter(LIMIT, redis=redis, name="bench-free"))
        await raw_walk(url, 1)
        raw, ours = [], []
        step("pacing", "200-page walks with the limiter, beside a raw loop (5 each)")
        for _ in range(5):
            raw.append(await timed(raw_walk(url, 1)))
            ours.append(await timed(paginate(service, 1)))
        await service.aclose()

        url = f"{limited_base}/api/v2/graphql"
        walkers = [DossierService(url, SecretStr(TOKEN), limiter=RateLimiter(LIMIT, redis=redis, name="bench-limited"))
                   for _ in range(2)]
        started = time.time()
        step("pacing", f"1,000 pages by 2 walkers against a fake enforcing {LIMIT}/min (some minutes)")
        window = math.floor(started / 60)
        counts = await asyncio.gather(*(DossierCounter(w, redis).count(n, since=None) for w, n in zip(walkers, (2, 3), strict=True)))
        ended = time.time()
        for walker in walkers:
            await walker.aclose()
        async with httpx.AsyncClient() as http:
            stats = (await http.get(f"{limited_base}/admin/stats")).json()
        requests = sum(c.requests for c in counts)
        # the service allows LIMIT in each window, the first one included wherever the walk started in
        # it: the last request cannot go before the start of the window that holds it
        physical = (window + math.ceil(requests / LIMIT) - 1) * 60 if requests > LIMIT else started
    finally:
        for process in (free, limited):
            process.terminate()
            process.wait(15)
        await redis.aclose()
        redis_server.stop()

    ratio = statistics.median(ours) / statistics.median(raw)
    late = ended - max(physical, started)
    return [
        ("200-page walk, rate limiter at 400/min (allowance not reached)",
         f"{statistics.median(ours):.2f} s vs raw loop {statistics.median(raw):.2f} s",
         f"{ratio:.2f}× (target ≤ 1.1×; 150 ms spacing would take {200 * 60 / LIMIT * 1.02:.1f} s)"),
        (f"{requests} pages by 2 walkers sharing one token, fake enforcing {LIMIT}/min",
         f"done {ended - started:.0f} s after the start, {stats['too_many']} × 429",
         f"{late:+.0f} s from the physical minimum (target: within one 60 s window, no 429)"),
    ] + await chart_rows()
