"""Capacity: the highest steady rate of `/room list` one bot process takes with its ack p99 under
500 ms, next to a bare Bolt app (ack only) on the same server stack (uvicorn + Starlette adapter)
and on Bolt's aiohttp adapter.

Every server runs in its own process, the fakes in this one, and the load comes from a process
of its own (`bench/load.py`, open loop), so the generator measures the servers, not itself.
Rates step up until one fails: p99 ≥ 500 ms, a request unanswered, or (for the bot) its work
after the ack — a call to the room service answering in 800 ms, then the reply — not done within
10 s of the step's end. A bare app's p99 at 10 requests a second is its floor: the figures mean
something only while the bare apps stay near it.
"""

from __future__ import annotations

import asyncio
import time

from bench.load import generate
from bench.progress import step
from bench.rooms import SERVICE_DELAY, World
from bot.demo.meet import FakeMeet
from tests.fakes.slack import FakeSlack

RATES = (50, 100, 150, 200, 300, 400, 600, 800, 1000, 1300, 1600)
STEP_SECONDS = 6
COMPARE_RATE, CONNECTIONS = 100, 50
ROUNDS = 3  # 10 s runs at COMPARE_RATE per server; the median p99 is shown
TARGET_P99_MS = 500
USER = "U0BENCH"


async def drained(slack: FakeSlack, expected: int, timeout: float) -> bool:
    """Whether the bot's replies (one per command) all arrived within `timeout`."""
    deadline = time.monotonic() + timeout
    while len(slack.responses) < expected:
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


def steady(result: dict) -> bool:
    return result["answered"] == result["sent"] and result["p99_ms"] is not None and result["p99_ms"] < TARGET_P99_MS


async def highest_steady_rate(name: str, base: str, slack: FakeSlack, *, replies: bool,
                              suite: str = "capacity") -> tuple[int, dict | None]:
    best, best_result = 0, None
    for rate in RATES:
        step(suite, f"{name}: {rate}/s for {STEP_SECONDS} s")
        before = len(slack.responses)
        result = await generate(base, rate, STEP_SECONDS, slack.response_url())
        done = not replies or await drained(slack, before + result["answered"], 10)
        if not (steady(result) and done):
            break
        best, best_result = rate, result
    return best, best_result


def ms(result: dict | None, key: str = "p99_ms") -> str:
    return f"{result[key]:.0f} ms" if result and result.get(key) is not None else "–"


async def main() -> list[tuple[str, str, str]]:
    meet, slack = FakeMeet(delay=SERVICE_DELAY), FakeSlack()
    slack.add_user(USER, "bench@example.gouv.fr", locale="en-US")
    meet.add_user("bench@example.gouv.fr")
    with World(meet, slack) as world:
        servers = {
            "roombot (uvicorn + Starlette)": world.start(["-m", "bot", "serve"]),
            "bare Bolt, uvicorn + Starlette": world.start(["bench/bare_app.py"], bare=True),
            "bare Bolt, aiohttp adapter": world.start(["bench/bare_app.py", "aiohttp"], bare=True),
        }
        bot, *bares = servers
        for base in servers.values():  # warm up: Bolt's first request, the bot's token and profile
            await generate(base, 10, 1, slack.response_url())
        await drained(slack, 10, 15)
        step("capacity", "bare apps' floor at 10/s")
        floors = {name: await generate(servers[name], 10, 5, slack.response_url()) for name in bares}
        runs: dict[str, list[dict]] = {name: [] for name in servers}
        for round_ in range(ROUNDS):  # interleaved, so a slow moment of the machine falls on each in turn
            step("capacity", f"each server at {COMPARE_RATE}/s for 10 s, round {round_ + 1} of {ROUNDS}")
            for name, base in servers.items():
                before = len(slack.responses)
                runs[name].append(await generate(base, COMPARE_RATE, 10, slack.response_url()))
                if name == bot:
                    await drained(slack, before + runs[name][-1]["answered"], 30)
        compared = {name: sorted(results, key=lambda r: r["p99_ms"] or float("inf"))[ROUNDS // 2] for name, results in runs.items()}
        capacity = {name: await highest_steady_rate(name, base, slack, replies=name == bot) for name, base in servers.items()}
        # the same bot as SERVE_PROCESSES=2 on these 2 cores (which the generator and the fakes share)
        two = world.start(["-m", "bot", "serve"], extra={"SERVE_PROCESSES": "2"})
        await generate(two, 10, 1, slack.response_url())
        two_processes = await highest_steady_rate("roombot, SERVE_PROCESSES=2", two, slack, replies=True)

    faster = min(bares, key=lambda name: compared[name]["p99_ms"] or float("inf"))
    ratio = compared[bot]["p99_ms"] / compared[faster]["p99_ms"]
    return [
        (f"bare Bolt app's ack p99 at 10/s (its floor) vs at {COMPARE_RATE}/s",
         " · ".join(f"{name.removeprefix('bare Bolt, ')} {ms(floors[name])} → {ms(compared[name])}" for name in bares),
         "near the floor: the load generator is not the bottleneck"),
        (f"ack p99 of /room list at {COMPARE_RATE}/s, open loop, ≤ {CONNECTIONS} in flight (median of {ROUNDS} × 10 s)",
         f"roombot {ms(compared[bot])} (p50 {ms(compared[bot], 'p50_ms')})",
         f"{faster} {ms(compared[faster])}: {ratio:.2f}× (target ≤ 1.2×)"),
        (f"highest steady /room list rate, ack p99 < {TARGET_P99_MS} ms, {STEP_SECONDS} s steps {RATES[0]}…{RATES[-1]}/s",
         f"roombot {capacity[bot][0]}/s (p99 {ms(capacity[bot][1])}, every reply within 10 s)",
         " · ".join(f"{name.removeprefix('bare Bolt, ')} {capacity[name][0]}/s (p99 {ms(capacity[name][1])})" for name in bares)),
        ("the same, roombot with SERVE_PROCESSES=2 (one per core)",
         f"{two_processes[0]}/s (p99 {ms(two_processes[1])}): {two_processes[0] / 2:.0f}/s per process",
         f"one process: {capacity[bot][0]}/s"),
    ]
