"""The bot under attack, each figure beside its baseline in the same run.

1. A burst of 300 concurrent `/room list` from 5 people on one bot process: ack p50/p99 next to
   a bare AsyncApp's for the same burst, and the token requests it cost (target: 5).
2. Peak memory of the bot process while ten 20 MB bodies arrive (declared, then chunked), next
   to its memory before.
3. Ack latency of normal requests while 200 connections send a body byte by byte, next to the
   same requests without them.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

from bench.progress import step
from bench.rooms import World, fire, percentile, wait_for
from bot.demo.meet import FakeMeet
from tests.fakes.slack import FakeSlack

PEOPLE, BURST = 5, 300
BIG_BODIES, BIG_SIZE = 10, 20 * 1024 * 1024
SLOW_CLIENTS = 200


def memory_kib(process: subprocess.Popen, field: str) -> int:
    """`VmRSS` (now) or `VmHWM` (peak since start) of a process, in KiB."""
    for line in Path(f"/proc/{process.pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} for {process.pid}")


async def burst(bases: list[str], slack: FakeSlack) -> list[float]:
    """300 commands at once, 60 from each of five people; the acks' latencies."""
    per_person = BURST // PEOPLE
    latencies = await asyncio.gather(*(fire(bases, f"U0P{i}", slack.response_url(), per_person, per_person) for i in range(PEOPLE)))
    return [value for person in latencies for value in person]


async def big_bodies(base: str) -> list[str]:
    """How each big body ended: its status, or `closed` when the server hung up on it mid-upload."""

    async def chunks() -> AsyncIterator[bytes]:
        block = b"x" * 65536
        for _ in range(BIG_SIZE // len(block)):
            yield block

    endings = []
    async with httpx.AsyncClient(timeout=30) as http:
        for _ in range(BIG_BODIES):
            for content in (b"x" * BIG_SIZE, chunks()):
                try:
                    endings.append(str((await http.post(base + "/slack/events", content=content)).status_code))
                except httpx.TransportError:
                    endings.append("closed")
    return endings


async def slow_clients(host: str, port: int, stop: asyncio.Event) -> None:
    """Connections that announce a body and send it one byte a second."""

    async def one() -> None:
        with contextlib.suppress(OSError):
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(b"POST /slack/events HTTP/1.1\r\nHost: bot\r\nContent-Length: 1000\r\n"
                         b"Content-Type: application/x-www-form-urlencoded\r\n\r\n")
            while not stop.is_set() and not reader.at_eof():
                writer.write(b"x")
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 1.0)
            writer.close()

    await asyncio.gather(*(one() for _ in range(SLOW_CLIENTS)))


async def main() -> list[tuple[str, str, str]]:
    meet, slack = FakeMeet(delay=0.05), FakeSlack()
    for index in range(PEOPLE):
        slack.add_user(f"U0P{index}", f"person{index}@example.gouv.fr", locale="en-US")
        meet.add_user(f"person{index}@example.gouv.fr")
    slack.add_user("U0WARM", "warm@example.gouv.fr", locale="en-US")  # warms up without caching a token
    with World(meet, slack) as world:
        bare_url = world.start(["bench/bare_app.py"], bare=True)
        bot_url = world.start(["-m", "bot", "serve"])
        bot = world.processes[-1]
        for url in (bare_url, bot_url):  # Bolt's first request calls auth.test
            await fire([url], "U0WARM", slack.response_url(), 5, 5)

        step("attacks", f"a burst of {BURST} concurrent /room list, bare app then roombot")
        bare_burst = await burst([bare_url], slack)
        meet.token_requests.clear()
        replies = len(slack.responses)
        bot_burst = await burst([bot_url], slack)
        await wait_for(lambda: len(slack.responses) >= replies + BURST, timeout=120)
        tokens = len(meet.people_tokens)

        step("attacks", f"{BIG_BODIES} bodies of 20 MB")
        resting = memory_kib(bot, "VmRSS")
        endings = await big_bodies(bot_url)
        peak = memory_kib(bot, "VmHWM")

        step("attacks", f"acks with and without {SLOW_CLIENTS} connections sending byte by byte")
        quiet = await fire([bot_url], "U0P0", slack.response_url(), 50, 10)
        stop = asyncio.Event()
        host, port = bot_url.removeprefix("http://").split(":")
        loris = asyncio.create_task(slow_clients(host, int(port), stop))
        await asyncio.sleep(2)  # the slow connections are open and trickling
        besieged = await fire([bot_url], "U0P0", slack.response_url(), 50, 10)
        stop.set()
        await loris

    def p(values: list[float], q: int) -> str:
        return f"{percentile(values, q) * 1000:.0f} ms"

    return [
        (f"burst: {BURST} concurrent /room list from {PEOPLE} people",
         f"roombot ack p50 {p(bot_burst, 50)} · p99 {p(bot_burst, 99)}; {tokens} token requests, all {BURST} answered",
         f"bare AsyncApp p50 {p(bare_burst, 50)} · p99 {p(bare_burst, 99)}; target {PEOPLE} token requests"),
        (f"peak memory while {BIG_BODIES} × 20 MB bodies arrive (declared, then chunked)",
         f"{peak / 1024:.0f} MiB peak; " + ", ".join(f"{endings.count(e)} × {e}" for e in sorted(set(endings))),
         f"{resting / 1024:.0f} MiB before"),
        (f"ack of /room list with {SLOW_CLIENTS} connections sending a body byte by byte",
         f"p50 {p(besieged, 50)} · p99 {p(besieged, 99)}", f"without them p50 {p(quiet, 50)} · p99 {p(quiet, 99)}"),
    ]
