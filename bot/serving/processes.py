"""`SERVE_PROCESSES`: the first `serve` process starts the others on the same port and watches them.

Each helper beats once a second on a pipe of its own. One that ends (killed, crashed) or stops
beating for `FROZEN_SECONDS` (its event loop stuck: its requests would hang) is logged, killed if
need be, and replaced; helpers replaced too often mean something is wrong with all of them, and
the whole `serve` stops (exit 1) so that its supervisor (Kubernetes, systemd) starts it afresh. A
helper dies with the first process, however that one ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

from bot.redis_server import dies_with

log = logging.getLogger(__name__)

HELPER = "ROOMBOT_SERVE_HELPER"
HEARTBEAT_FD = "ROOMBOT_HEARTBEAT_FD"
BEAT_SECONDS = 1.0
FROZEN_SECONDS = 10.0
MOST_REPLACED = 5  # in REPLACED_WINDOW: more, and serve stops as a whole
REPLACED_WINDOW = 60.0


@dataclass
class Helper:
    process: subprocess.Popen[bytes]
    beats: int  # the read end of its heartbeat pipe
    last_beat: float = field(default_factory=time.monotonic)


def start_helper() -> Helper:
    """Another serve process: the same command and environment, beating on a pipe of its own."""
    read, write = os.pipe()
    os.set_blocking(read, False)
    env = {**os.environ, "SERVE_PROCESSES": "1", HELPER: "1", HEARTBEAT_FD: str(write)}
    process = subprocess.Popen([sys.executable, "-m", "bot", "serve"], env=env, pass_fds=(write,),
                               preexec_fn=dies_with(os.getpid()))  # one system call in the child
    os.close(write)
    return Helper(process, read)


async def supervise(helpers: list[Helper], stop: asyncio.Event) -> bool:
    """Replaces a helper that ended or froze; stops the process when they keep failing, and then
    says so (True): serve exits 1, so that `Restart=on-failure` and the like start it afresh."""
    replaced: list[float] = []
    while not stop.is_set():
        now = time.monotonic()
        for index, helper in enumerate(helpers):
            _read_beats(helper, now)
            code = helper.process.poll()
            if code is None and now - helper.last_beat < FROZEN_SECONDS:
                continue
            if code is None:
                log.error("serve helper %d (pid %d) gave no sign of life for %.0f s: killed, and replaced",
                          index + 1, helper.process.pid, now - helper.last_beat)
                helper.process.kill()
                await asyncio.to_thread(helper.process.wait)
            else:
                log.error("serve helper %d (pid %d) ended (%s): replaced", index + 1, helper.process.pid, _how(code))
            os.close(helper.beats)
            replaced = [moment for moment in replaced if now - moment < REPLACED_WINDOW] + [now]
            if len(replaced) > MOST_REPLACED:
                log.error("serve helpers failed %d times within %.0f s: stopping serve as a whole so that it is "
                          "started afresh; see the lines above (SERVE_PROCESSES)", len(replaced), REPLACED_WINDOW)
                helpers[index] = helper  # stopped with the others below
                os.kill(os.getpid(), signal.SIGTERM)
                return True
            helpers[index] = start_helper()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=BEAT_SECONDS)
    return False


async def stop_helpers(helpers: list[Helper], drain_seconds: float) -> None:
    """Each drains as this one does; Redis (perhaps this process's own) outlives them."""
    for helper in helpers:
        if helper.process.poll() is None:
            helper.process.terminate()
    for helper in helpers:
        try:
            await asyncio.to_thread(helper.process.wait, drain_seconds + 5)
        except subprocess.TimeoutExpired:
            helper.process.kill()
            await asyncio.to_thread(helper.process.wait)
        with contextlib.suppress(OSError):  # closed already, when it was replaced
            os.close(helper.beats)


async def beat() -> None:
    """In a helper: a sign of life on the first process's pipe every second, from the event loop
    (a stuck loop stops beating). The pipe closing (the first process gone) ends nothing here: the
    helper was told to stop when its parent ended."""
    fd = int(os.environ.get(HEARTBEAT_FD, "-1"))
    if fd < 0:
        return
    while True:
        try:
            os.write(fd, b".")
        except (BlockingIOError, BrokenPipeError, OSError):
            return
        await asyncio.sleep(BEAT_SECONDS)


def _read_beats(helper: Helper, now: float) -> None:
    try:
        if os.read(helper.beats, 4096):
            helper.last_beat = now
    except (BlockingIOError, OSError):
        pass


def _how(code: int) -> str:
    return f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
