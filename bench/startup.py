"""Start-up and memory, each beside its baseline in the same run.

1. `python -m bot --help`, and `serve` failing on a missing variable, beside `python -c pass`.
2. `serve` until `/healthz` answers 200 (and then `/readyz`: its app built) while Slack, the room service and the dossier service
   accept connections and never answer, beside a bare Bolt app's time until it answers at all
   (uvicorn + Starlette, and Bolt's aiohttp adapter).
3. The resident memory of each once ready, and after 1,000 mixed commands against working fakes.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.progress import step
from bench.rooms import World, fire, wait_for
from bot.demo.meet import FakeMeet
from bot.redis_server import EmbeddedRedis
from tests.fakes.slack import FakeSlack
from tests.processes import ROOT, Silent, free_port, python_env
from tests.slack_requests import SIGNING_SECRET, command_body, signed_headers

RUNS = 5
#: starts of each server, interleaved: a start swings by a third from one to the next on this machine
READY_RUNS = 7
MIXED = 1000


def seconds_to_run(args: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, check=False, timeout=60)
    return time.perf_counter() - started


def median_run(args: list[str], env: dict[str, str], cwd: Path) -> float:
    return statistics.median(seconds_to_run(args, env, cwd) for _ in range(RUNS))


def rss(process: subprocess.Popen) -> int:
    with open(f"/proc/{process.pid}/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


def until_answering(args: list[str], env: dict[str, str], path: str, *, ok_only: bool,
                    cwd: Path) -> tuple[list[float], subprocess.Popen, str]:
    """Starts a server and polls it every 5 ms: the seconds until it answers each of `path`'s
    comma-separated paths in turn (with 200 when `ok_only`), the process and its base URL."""
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, *args], cwd=cwd, env={**env, "HOST": "127.0.0.1", "PORT": str(port)},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    took = []
    for one in path.split(","):
        while True:
            try:
                if httpx.get(base + one, timeout=0.5).status_code == 200 or not ok_only:
                    took.append(time.perf_counter() - started)
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.perf_counter() - started > 60:
                process.kill()
                process.wait()
                raise RuntimeError(f"{args} did not start")
            time.sleep(0.005)
    return took, process, base


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(15)


def ready_figures(env: dict[str, str], cwd: Path) -> dict[str, tuple[float, int]]:
    """Median time to answer and RSS once ready, over `READY_RUNS` starts of each server; the bot's
    time to /readyz (its app built: Slack's requests answered) too, as "roombot ready"."""
    servers = {
        "roombot": (["-m", "bot", "serve"], "/healthz,/readyz", True),
        "uvicorn": ([str(ROOT / "bench/bare_app.py")], "/slack/events", False),
        "aiohttp": ([str(ROOT / "bench/bare_app.py"), "aiohttp"], "/slack/events", False),
    }
    figures: dict[str, list[tuple[float, int]]] = {name: [] for name in [*servers, "roombot ready"]}
    for _ in range(READY_RUNS):
        for name, (args, path, ok_only) in servers.items():
            took, process, _ = until_answering(args, env, path, ok_only=ok_only, cwd=cwd)
            try:
                time.sleep(1)  # what it does right after listening (start-up checks) counts in its memory
                figures[name].append((took[0], rss(process)))
            finally:
                stop(process)
            if name == "roombot":
                figures["roombot ready"].append((took[1], figures[name][-1][1]))
    return {name: (statistics.median(t for t, _ in runs), int(statistics.median(m for _, m in runs)))
            for name, runs in figures.items()}


def ready_while_silent() -> dict[str, tuple[float, int]]:
    """`ready_figures` with Slack, the room service and the dossier service accepting connections
    and never answering, and a Redis of its own; the servers start in a folder of their own (no .env of
    the developer's is read), which goes with Redis's, whatever happens."""
    with tempfile.TemporaryDirectory(prefix="roombot-bench-ready-") as folder, contextlib.ExitStack() as running:
        redis = EmbeddedRedis(Path(folder) / "redis")
        running.callback(redis.stop)  # before the folder goes (the stack unwinds first)
        redis.start()
        slack, meet, ds = (running.enter_context(Silent()) for _ in range(3))
        world_env = python_env(SLACK_BOT_TOKEN="xoxb-bench", SLACK_SIGNING_SECRET=SIGNING_SECRET,
                               SLACK_API_URL=f"{slack}/api/", MEET_API_URL=f"{meet}/external-api/v1.0",
                               MEET_CLIENT_ID="roombot", MEET_CLIENT_SECRET="secret", DS_API_URL=f"{ds}/api/v2/graphql",
                               DS_API_TOKEN="ds-token", LOG_LEVEL="WARNING", REDIS_URL=redis.url)
        return ready_figures(world_env, Path(folder))


async def after_mixed_commands() -> tuple[int, int]:
    """RSS of the bot after 1,000 commands of four kinds (new, list, help, a typo) from 20 people,
    every answer received; and of the bare app after as many acks."""
    meet, slack = FakeMeet(), FakeSlack()
    people = [f"U0MIX{i:03d}" for i in range(20)]
    for user in people:
        slack.add_user(user, f"{user.lower()}@example.gouv.fr", locale="fr-FR")
        meet.add_user(f"{user.lower()}@example.gouv.fr")
    with World(meet, slack) as world:
        bot, bare = world.start(["-m", "bot", "serve"]), world.start(["bench/bare_app.py"], bare=True)
        bot_process, bare_process = world.processes
        limit = asyncio.Semaphore(20)
        async with httpx.AsyncClient(timeout=30) as http:

            async def one(index: int) -> None:
                body = command_body(("new", "list", "help", "lsit")[index % 4], people[index % 20], slack.response_url())
                async with limit:
                    answer = await http.post(bot + "/slack/events", content=body, headers=signed_headers(body))
                    assert answer.status_code == 200, answer.text

            await asyncio.gather(*(one(i) for i in range(MIXED)))
        await wait_for(lambda: len(slack.responses) >= MIXED, timeout=120)
        await fire([bare], people[0], slack.response_url(), MIXED, 20)
        return rss(bot_process), rss(bare_process)


async def main() -> list[tuple[str, str, str]]:
    env = python_env()
    step("startup", "python -m bot --help and serve unconfigured, beside python -c pass (5 runs each)")
    with tempfile.TemporaryDirectory(prefix="roombot-bench-start-") as elsewhere:  # no .env of the developer's read
        bare = median_run(["-c", "pass"], env, Path(elsewhere))
        help_ = median_run(["-m", "bot", "--help"], env, Path(elsewhere))
        unset = median_run(["-m", "bot", "serve"], env, Path(elsewhere))
    step("startup", f"serve until /healthz answers, beside bare Bolt apps ({READY_RUNS} starts each)")
    ready = ready_while_silent()
    step("startup", f"memory after {MIXED:,} mixed commands")
    bot_after, bare_after = await after_mixed_commands()
    faster = min(ready["uvicorn"][0], ready["aiohttp"][0])
    lighter = min(ready["uvicorn"][1], ready["aiohttp"][1])
    mib = 2**20
    return [
        ("python -m bot --help (median of 5)", f"{help_:.3f} s", f"python -c pass {bare:.3f} s: {help_ / bare:.1f}× (target ≤ 3×)"),
        ("python -m bot serve, no configuration (median of 5)", f"{unset:.3f} s to say what to set",
         f"python -c pass {bare:.3f} s: {unset / bare:.1f}×"),
        (f"serve until /healthz answers 200, Slack, rooms, dossiers silent (median of {READY_RUNS})", f"{ready['roombot'][0]:.2f} s",
         f"bare Bolt listening: uvicorn {ready['uvicorn'][0]:.2f} s · aiohttp {ready['aiohttp'][0]:.2f} s: "
         f"{ready['roombot'][0] / faster:.2f}× the faster (target ≤ 1.5×); "
         f"{ready['roombot'][0] / ready['uvicorn'][0]:.2f}× uvicorn's, the bot's own stack"),
        ("the same starts until /readyz answers 200 (the app built)", f"{ready['roombot ready'][0]:.2f} s",
         f"{ready['roombot ready'][0] / faster:.2f}× the faster bare app"),
        ("RSS once ready (1 s after answering)", f"roombot {ready['roombot'][1] / mib:.0f} MiB",
         f"bare uvicorn {ready['uvicorn'][1] / mib:.0f} MiB · aiohttp {ready['aiohttp'][1] / mib:.0f} MiB: "
         f"{ready['roombot'][1] / lighter:.2f}× the lighter (target ≤ 2×)"),
        (f"RSS after {MIXED:,} mixed commands (new, list, help, a typo; 20 people)", f"roombot {bot_after / mib:.0f} MiB",
         f"bare uvicorn after {MIXED:,} acks {bare_after / mib:.0f} MiB: {bot_after / bare_after:.2f}× (target ≤ 2×)"),
    ]
