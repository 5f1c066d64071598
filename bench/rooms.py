"""Room benchmarks: the bot measured side by side with a baseline in the same run.

1. Ack latency of 100 `/room list` at concurrency 50 (a closed loop, from a generator process of
   its own) while the room service takes 800 ms per answer, for the bot and for a bare AsyncApp
   that only acks (uvicorn, and Bolt's aiohttp adapter), each in its own process; and the CPU
   each spends per command, also for a person whose list has ten rooms.
2. Token requests made by 20 concurrent cold `/room list` of one person spread over two bot
   processes sharing one Redis.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from bench.load import generate
from bench.progress import step
from bot.demo.loopback import LoopbackServer
from bot.demo.meet import FakeMeet
from bot.redis_server import EmbeddedRedis
from tests.conftest import bot_env
from tests.fakes.slack import FakeSlack
from tests.processes import ROOT, start_server
from tests.slack_requests import command_body, signed_headers

REQUESTS, CONCURRENCY, SERVICE_DELAY = 100, 50, 0.8
LISTED_ROOMS = 10


def start(args: list[str], env: dict[str, str], timeout: float = 20) -> tuple[subprocess.Popen, str]:
    """A server process on a free port, started once it answers HTTP; its output is discarded."""
    return start_server(args, {**os.environ, **env, "PYTHONPATH": str(ROOT), "LOG_LEVEL": "WARNING"},
                        ready=None, timeout=timeout, stdout=subprocess.DEVNULL)


async def fire(bases: list[str], user: str, response_url: str, count: int, concurrency: int) -> list[float]:
    """Sends `count` signed `/room list`, round-robin over `bases`; returns each ack's latency (s)."""
    limit = asyncio.Semaphore(concurrency)
    latencies: list[float] = []
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=concurrency * 2), timeout=30) as http:

        async def one(index: int) -> None:
            body = command_body("list", user, response_url)
            async with limit:
                started = time.perf_counter()
                response = await http.post(bases[index % len(bases)] + "/slack/events", content=body, headers=signed_headers(body))
                latencies.append(time.perf_counter() - started)
                assert response.status_code == 200, response.text

        await asyncio.gather(*(one(i) for i in range(count)))
    return latencies


class World:
    """The fakes and an embedded Redis on loopback, and the servers a benchmark starts against them
    (`serve` with `env`); everything stops when the block ends."""

    def __init__(self, meet: FakeMeet, slack: FakeSlack) -> None:
        self.meet, self.slack = meet, slack
        self.processes: list[subprocess.Popen] = []

    def __enter__(self) -> World:
        self._servers = [LoopbackServer(self.meet.asgi()).start(), LoopbackServer(self.slack.asgi()).start()]
        self.meet.base, self.slack.base = self._servers[0].url, self._servers[1].url
        folder = self._folder = Path(tempfile.mkdtemp(prefix="roombot-bench-"))
        self._redis = EmbeddedRedis(folder / "redis")
        self._redis.start()
        self.env = {**bot_env(self.meet, self.slack), "REDIS_URL": self._redis.url, "DATA_DIR": str(folder)}
        return self

    def start(self, args: list[str], *, bare: bool = False, extra: dict[str, str] | None = None) -> str:
        """A bot (`bare`: the ack-only baseline) in its own process; its base URL."""
        env = {k: v for k, v in self.env.items() if k != "SLACK_BOT_TOKEN"} if bare else self.env
        process, url = start(args, {**env, **(extra or {})})
        self.processes.append(process)
        return url

    def __exit__(self, *exc: object) -> None:
        for process in self.processes:
            process.terminate()
            process.wait(15)
        self._redis.stop()
        for server in self._servers:
            server.stop()
        shutil.rmtree(self._folder, ignore_errors=True)  # Redis's data and the bots' DATA_DIR: nothing left


def cpu_seconds(process: subprocess.Popen) -> float:
    """CPU the process has used so far: the time its threads ran, in nanoseconds
    (`/proc/<pid>/task/*/schedstat`), where `/proc/<pid>/stat` counts 10 ms ticks — a tenth of a
    millisecond a command over a burst of 100. A thread that ended is no longer counted (the bots'
    threads live as long as they do); without schedstat (a kernel built without it), the ticks."""
    if Path(f"/proc/{process.pid}/schedstat").exists():
        ran = 0
        for task in Path(f"/proc/{process.pid}/task").iterdir():
            try:
                ran += int((task / "schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue  # a thread ending as it is read
        return ran / 1e9
    with open(f"/proc/{process.pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


async def main() -> list[tuple[str, str, str]]:
    meet, slack = FakeMeet(delay=SERVICE_DELAY), FakeSlack()
    slack.add_user("U0BENCH", "bench@example.gouv.fr", locale="en-US")
    meet.add_user("bench@example.gouv.fr")
    slack.add_user("U0ROOMS", "rooms@example.gouv.fr", locale="en-US")  # a list with something in it
    meet.add_user("rooms@example.gouv.fr")
    for _ in range(LISTED_ROOMS):
        meet.add_room("rooms@example.gouv.fr")
    with World(meet, slack) as world:
        first_url, second_url = world.start(["-m", "bot", "serve"]), world.start(["-m", "bot", "serve"])

        step("rooms", "20 cold commands of one person over two processes")
        # 20 cold commands of one person over two processes: how many token requests?
        await fire([first_url, second_url], "U0BENCH", slack.response_url(), 20, 20)
        await wait_for(lambda: len(slack.responses) >= 20)
        token_requests = len(meet.people_tokens)  # not the credentials probe each process makes at start

        # a burst from a generator process of its own, three rounds interleaved (median shown); the
        # bot's CPU counts until every reply is posted
        bases = {"roombot": first_url, "uvicorn": world.start(["bench/bare_app.py"], bare=True),
                 "aiohttp": world.start(["bench/bare_app.py", "aiohttp"], bare=True)}
        processes = dict(zip(bases, (world.processes[0], world.processes[2], world.processes[3]), strict=True))
        for base in bases.values():  # warm: Bolt's first request calls auth.test
            await generate(base, 10, 0.5, slack.response_url())
        await wait_for(lambda: len(slack.responses) >= 25)
        runs: dict[str, list[tuple[dict, float]]] = {name: [] for name in bases}
        for round_ in range(3):
            step("rooms", f"bursts of {REQUESTS} /room list, round {round_ + 1} of 3 (roombot, uvicorn, aiohttp)")
            for name, base in bases.items():
                answered, used = len(slack.responses), cpu_seconds(processes[name])
                result = await generate(base, 1, 1, slack.response_url(), "--burst", str(REQUESTS), connections=CONCURRENCY)
                if name == "roombot":
                    await wait_for(lambda answered=answered: len(slack.responses) >= answered + REQUESTS)
                runs[name].append((result, (cpu_seconds(processes[name]) - used) / REQUESTS))
        with_rooms = []
        step("rooms", f"the same bursts from a person with {LISTED_ROOMS} rooms (3 rounds)")
        for _ in range(3):  # the same burst from a person with rooms: their list, its buttons, the rooms kept
            answered, used = len(slack.responses), cpu_seconds(processes["roombot"])
            await generate(bases["roombot"], 1, 1, slack.response_url(), "--burst", str(REQUESTS), connections=CONCURRENCY,
                           user="U0ROOMS")
            await wait_for(lambda answered=answered: len(slack.responses) >= answered + REQUESTS)
            with_rooms.append((cpu_seconds(processes["roombot"]) - used) / REQUESTS)

    def median(name: str, key: str) -> float:
        return statistics.median(result[key] for result, _ in runs[name])

    def cpu(name: str) -> float:
        return statistics.median(per_command for _, per_command in runs[name]) * 1000

    faster = min(("uvicorn", "aiohttp"), key=lambda name: median(name, "p99_ms"))
    return [
        (f"ack of /room list, {REQUESTS} at concurrency {CONCURRENCY}, rooms answering in {SERVICE_DELAY * 1000:.0f} ms "
         "(median of 3)",
         f"roombot p50 {median('roombot', 'p50_ms'):.0f} ms · p99 {median('roombot', 'p99_ms'):.0f} ms; "
         f"CPU {cpu('roombot'):.1f} ms a command, ack to reply",
         f"bare Bolt p99: uvicorn {median('uvicorn', 'p99_ms'):.0f} ms · aiohttp {median('aiohttp', 'p99_ms'):.0f} ms; "
         f"CPU {cpu(faster):.1f} ms an ack: {median('roombot', 'p99_ms') / median(faster, 'p99_ms'):.2f}× the faster "
         "(target ≤ 1.2×; CPU target ≤ 1.5 ms a command)"),
        (f"the same burst from a person with {LISTED_ROOMS} rooms (median of 3)",
         f"CPU {statistics.median(with_rooms) * 1000:.1f} ms a command, ack to reply",
         f"{statistics.median(with_rooms) * 1000 / cpu('roombot'):.1f}× an empty list's"),
        ("token requests, 20 concurrent cold commands of one person on 2 processes", str(token_requests), "target 1"),
    ]


async def wait_for(condition, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out")
        await asyncio.sleep(0.05)
