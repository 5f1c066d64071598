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
import math
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

import httpx
import redis.asyncio as aioredis
from pydantic import SecretStr

from bench.digest import paginate, raw_walk, timed
from bench.rooms import start
from bot.redis_server import EmbeddedRedis
from clients.dossiers.counts import DossierCounter
from clients.dossiers.digest_store import Snapshot
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.service import DossierService
from handlers.digest.chart import by_state, render
from handlers.digest.messages import sparkline
from tests.fakes.ds import TOKEN

LIMIT = 400


def chart_figures() -> tuple[float, float, float]:
    """Median time to draw the digest's chart (14 days × 5 states), its peak Python memory, and
    the text sparkline's time for the same days, for comparison."""
    day = dt.date(2026, 1, 14)
    snapshots: list[Snapshot | None] = [Snapshot(dt.datetime(2026, 1, 1 + i, tzinfo=dt.UTC),
                                                 {"en_construction": 100 + i, "en_instruction": 80, "accepte": 300 + 3 * i,
                                                  "refuse": 40, "sans_suite": 10}) for i in range(14)]
    series = by_state([snapshots, snapshots])
    render("fr", day, series)  # warm: fonts are loaded once per process
    times = []
    for _ in range(5):
        started = time.perf_counter()
        render("fr", day, series)
        times.append(time.perf_counter() - started)
    tracemalloc.start()
    render("fr", day, series)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    started = time.perf_counter()
    for _ in range(1000):
        sparkline([s.total if s else None for s in snapshots])
    return statistics.median(times), peak, (time.perf_counter() - started) / 1000


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
        for _ in range(5):
            raw.append(await timed(raw_walk(url, 1)))
            ours.append(await timed(paginate(service, 1)))
        await service.aclose()

        url = f"{limited_base}/api/v2/graphql"
        walkers = [DossierService(url, SecretStr(TOKEN), limiter=RateLimiter(LIMIT, redis=redis, name="bench-limited"))
                   for _ in range(2)]
        started = time.time()
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

    draw, peak, text_trend = chart_figures()
    ratio = statistics.median(ours) / statistics.median(raw)
    late = ended - max(physical, started)
    return [
        ("200-page walk, rate limiter at 400/min (allowance not reached)",
         f"{statistics.median(ours):.2f} s vs raw loop {statistics.median(raw):.2f} s",
         f"{ratio:.2f}× (target ≤ 1.1×; 150 ms spacing would take {200 * 60 / LIMIT * 1.02:.1f} s)"),
        (f"{requests} pages by 2 walkers sharing one token, fake enforcing {LIMIT}/min",
         f"done {ended - started:.0f} s after the start, {stats['too_many']} × 429",
         f"{late:+.0f} s from the physical minimum (target: within one 60 s window, no 429)"),
        ("digest chart, 14 days × 5 states (median of 5, after the first)",
         f"{draw * 1000:.0f} ms to draw, {peak / 1024:.0f} KiB peak Python memory",
         f"text trend {text_trend * 1e6:.0f} µs"),
    ]
