"""An open-loop load generator in a process of its own: `python -m bench.load URL RATE SECONDS`
(or `--burst N`: N requests at once, each sent when one of CONNECTIONS is free — a closed loop,
latency counted from sending).

Requests leave on a fixed schedule (RATE a second), whether or not earlier ones were answered, and
each latency counts from the moment its request was due — so a server that stalls is charged for
the requests queued behind the stall (no coordinated omission). At most CONNECTIONS are in flight;
a request waiting for a connection is late, and that lateness is part of its latency.

Prints one JSON object: what was sent and answered, the achieved rate, and latency percentiles.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time

import aiohttp

from tests.processes import ROOT
from tests.slack_requests import command_body, signed_headers


async def run(url: str, rate: float, seconds: float, connections: int, user: str, response_url: str,
              burst: int = 0, command: str = "/room", text: str = "list") -> dict[str, object]:
    count = burst or round(rate * seconds)
    latencies: list[float] = []
    failures: dict[str, int] = {}
    connector = aiohttp.TCPConnector(limit=connections, force_close=False)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=30)) as http:

        people = user.split(",")
        sent = iter(range(count))

        async def one(due: float) -> None:
            body = command_body(text, people[next(sent) % len(people)], response_url, command=command)
            try:
                async with http.post(url, data=body.encode(), headers=signed_headers(body)) as response:
                    await response.read()
                    status = response.status
            except (aiohttp.ClientError, TimeoutError) as error:
                failures[type(error).__name__] = failures.get(type(error).__name__, 0) + 1
                return
            if status != 200:
                failures[str(status)] = failures.get(str(status), 0) + 1
                return
            latencies.append(time.perf_counter() - due)

        start = time.perf_counter() + 0.1
        tasks = []
        free = asyncio.Semaphore(connections)

        async def when_free() -> None:
            async with free:
                await one(time.perf_counter())

        for index in range(count if not burst else 0):
            due = start + index / rate
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(due)))
        tasks += [asyncio.create_task(when_free()) for _ in range(burst)]
        sending = time.perf_counter() - start
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - start
    ordered = sorted(latencies)

    def pct(q: float) -> float | None:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else None

    return {
        "offered": rate, "sent": count, "answered": len(latencies), "failures": failures,
        "send_seconds": sending, "seconds": elapsed, "achieved": len(latencies) / elapsed if elapsed else 0.0,
        "p50_ms": pct(0.50), "p99_ms": pct(0.99), "max_ms": ordered[-1] * 1000 if ordered else None,
        "mean_ms": statistics.fmean(ordered) * 1000 if ordered else None,
    }


async def generate(base: str, rate: float, seconds: float, response_url: str, *extra: str,
                   connections: int = 50, user: str = "U0BENCH") -> dict:
    """One run of this generator in its own process, against `base`'s Slack route; what it printed."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.load", base + "/slack/events", str(rate), str(seconds),
        "--connections", str(connections), "--user", user, "--response-url", response_url, *extra,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"the load generator failed ({process.returncode})")
    return json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("rate", type=float)
    parser.add_argument("seconds", type=float)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--user", default="U0BENCH", help="who sends; several, comma-separated, send in turn")
    parser.add_argument("--response-url", default="http://127.0.0.1:9/response/bench")
    parser.add_argument("--burst", type=int, default=0, metavar="N", help="N requests in a closed loop instead")
    parser.add_argument("--command", default="/room", help="the slash command sent (default /room)")
    parser.add_argument("--text", default="list", help="its text (default list)")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.url, args.rate, args.seconds, args.connections, args.user, args.response_url,
                                     args.burst, args.command, args.text))))


if __name__ == "__main__":
    main()
