"""Digest benchmarks, against the dossier-service fake in its own process.

1. Wall time of a walk of 20,000 dossiers against a raw loop of HTTP requests over the same
   pages, in the same run (median of 5 each, alternated): the paginator with its tally alone, and
   the full counting walk that also stores every state in Redis for the next day's increment.
2. Peak Python memory (tracemalloc) of a full walk of 10,000 and of 100,000 dossiers.
3. Requests on the second day for 100,000 dossiers of which 1 % changed, against a full walk.
4. Redis memory of 100,000 dossiers' records (state, since when, SVA/SVR date, group), against
   the same dossiers kept as their state alone (what the bot kept before it said what needs doing).
The limiter is set out of the way (the fake does not rate limit): this measures our own overhead.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from pathlib import Path

import httpx
import redis.asyncio as aioredis
from pydantic import SecretStr
from redis import Redis
from redis.typing import EncodableT, FieldT

from bench.progress import step
from bench.raw_walk import walk as bare_walk
from bench.rooms import start
from bot.demo.ds import TOKEN
from bot.redis_server import EmbeddedRedis
from clients.dossiers.counts import DossierCounter
from clients.dossiers.queries import GET_DEMARCHE
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.records import decode
from clients.dossiers.service import DossierService
from clients.redis_keys import key
from tests.processes import ROOT, python_env

WALK, SMALL, LARGE = 20_000, 10_000, 100_000


async def raw_walk(url: str, number: int) -> int:
    return await bare_walk(url, number, GET_DEMARCHE, TOKEN)


def whole_processes(url: str, redis_url: str, number: int, redis_server_flush) -> tuple[float, float]:
    """Median of 5 whole processes each, alternated (the machine drifts by 10–15 % within minutes):
    `digest --dry-run` (start-up, a full walk, the message) and the bare loop as a script of its own."""
    elsewhere = Path(tempfile.mkdtemp(prefix="roombot-bench-whole-"))
    query = elsewhere / "query.graphql"
    query.write_text(GET_DEMARCHE)
    env = python_env(DS_API_URL=url, DS_API_TOKEN=TOKEN, DIGEST_DEMARCHES=str(number), REDIS_URL=redis_url,
                     DS_REQUESTS_PER_MINUTE="100000", LOG_LEVEL="WARNING")
    bot, raw = [], []
    for _ in range(5):
        redis_server_flush()  # every run walks in full
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "bot", "digest", "--dry-run", "--no-ai", "--fresh"], cwd=elsewhere,
                       env=env, check=True, capture_output=True, timeout=300)
        bot.append(time.perf_counter() - started)
        started = time.perf_counter()
        subprocess.run([sys.executable, str(ROOT / "bench/raw_walk.py"), url, str(number), str(query), TOKEN],
                       cwd=elsewhere, env=env, check=True, capture_output=True, timeout=300)
        raw.append(time.perf_counter() - started)
    return statistics.median(bot), statistics.median(raw)


async def paginate(service: DossierService, number: int) -> int:
    """The paginator alone: every page through DossierService.pages, states tallied, nothing stored."""
    tally: Counter[str] = Counter()
    async for page in service.pages("getDemarche", number):
        tally.update(node.state for node in page.nodes)
    return sum(tally.values())


async def full_walk(counter: DossierCounter, number: int) -> int:
    await counter.forget(number)
    return (await counter.count(number, since=None)).total


async def record_memory(redis: aioredis.Redis, number: int) -> tuple[int, int]:
    """MEMORY USAGE (every field counted) of the démarche's records, and of the same dossiers with
    their state alone, written here in the same Redis."""
    records = key("ds", f"{{{number}}}", "states")
    states_only = key("bench", "states-only")
    await redis.delete(states_only)
    batch: dict[FieldT, EncodableT] = {}
    async for dossier, record in redis.hscan_iter(records, count=1000):
        batch[dossier] = decode(str(record)).state
        if len(batch) >= 5000:
            await redis.hset(states_only, mapping=batch)
            batch = {}
    if batch:
        await redis.hset(states_only, mapping=batch)
    sizes = (await redis.memory_usage(records, samples=0), await redis.memory_usage(states_only, samples=0))
    await redis.delete(states_only)
    return int(sizes[0] or 0), int(sizes[1] or 0)


async def timed(walk) -> float:
    started = time.perf_counter()
    await walk
    return time.perf_counter() - started


async def main() -> list[tuple[str, str, str]]:
    folder = Path(tempfile.mkdtemp(prefix="roombot-bench-ds-"))
    redis_server = EmbeddedRedis(folder / "redis")
    redis_server.start()
    fake, base = start(["bench/ds_server.py", f"1:{WALK},2:{SMALL},3:{LARGE}"], {}, timeout=120)
    url = f"{base}/api/v2/graphql"
    redis = aioredis.Redis.from_url(redis_server.url, decode_responses=True)
    service = DossierService(url, SecretStr(TOKEN), limiter=RateLimiter(10**9))
    counter = DossierCounter(service, redis)
    try:
        await raw_walk(url, 1)  # warm both paths
        await full_walk(counter, 1)
        raw, pages, ours = [], [], []
        for round_ in range(5):
            step("digest", f"walks of {WALK:,} dossiers (raw loop, paginator, counting walk), round {round_ + 1} of 5")
            raw.append(await timed(raw_walk(url, 1)))
            pages.append(await timed(paginate(service, 1)))
            ours.append(await timed(full_walk(counter, 1)))
        raw_s, pages_s, ours_s = (statistics.median(times) for times in (raw, pages, ours))
        step("digest", f"digest --dry-run over {WALK:,} dossiers as a whole process, beside a raw-loop script (5 each)")
        whole_s, whole_raw_s = whole_processes(url, redis_server.url, 1, lambda: Redis.from_url(redis_server.url).flushdb())

        peaks = {}
        for number, size in ((2, SMALL), (3, LARGE)):
            step("digest", f"peak memory of a full walk of {size:,} dossiers")
            await counter.forget(number)
            tracemalloc.start()
            tracemalloc.reset_peak()
            total = (await counter.count(number, since=None)).total
            peaks[size] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            assert total == size

        step("digest", f"Redis memory of {LARGE:,} dossiers' records, then the second day's walk")
        records_bytes, states_bytes = await record_memory(redis, 3)

        await counter.forget(3)
        full_requests = (await counter.count(3, since=None)).requests
        async with httpx.AsyncClient(timeout=120) as http:  # the fake changes 1,000 of 100,000 one by one: seconds
            changed = (await http.post(f"{base}/admin/change", json={"demarche": 3, "fraction": 0.01})).json()
        second = await counter.count(3, since=None)
        assert not second.full_walk
    finally:
        await service.aclose()
        await redis.aclose()
        fake.terminate()
        fake.wait(10)
        redis_server.stop()

    return [
        (f"paginator over {WALK:,} dossiers, tallied (median of 5)", f"{pages_s:.2f} s vs raw loop {raw_s:.2f} s",
         f"{pages_s / raw_s:.2f}× (target ≤ 1.05×)"),
        ("full counting walk, states stored in Redis", f"{ours_s:.2f} s vs raw loop {raw_s:.2f} s", f"{ours_s / raw_s:.2f}×"),
        (f"whole process: digest --dry-run over {WALK:,} dossiers (median of 5)",
         f"{whole_s:.2f} s vs a raw-loop script {whole_raw_s:.2f} s", f"{whole_s / whole_raw_s:.2f}× (target ≤ 1.2×)"),
        ("peak memory of a full walk", f"{peaks[SMALL] / 1024:,.0f} KiB for {SMALL:,} · {peaks[LARGE] / 1024:,.0f} KiB for {LARGE:,}",
         f"{peaks[LARGE] / peaks[SMALL]:.2f}× for 10× the dossiers (flat)"),
        (f"Redis memory of {LARGE:,} dossiers' records (state, since when, SVA/SVR date, group)",
         f"{records_bytes / 2**20:.1f} MiB", f"the states alone: {states_bytes / 2**20:.1f} MiB ({records_bytes / states_bytes:.2f}×)"),
        (f"second day, {LARGE:,} dossiers, {changed['changed']:,} changed",
         f"{second.requests} requests vs {full_requests} for a full walk",
         f"{second.requests / full_requests:.1%} (target ≤ 10 %)"),
    ]
