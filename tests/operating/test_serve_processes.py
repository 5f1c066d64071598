"""SERVE_PROCESSES as a supervisor sees it: `serve`'s exit code when its helpers keep failing."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from bot.demo.meet import FakeMeet
from tests.conftest import bot_env
from tests.fakes.slack import FakeSlack
from tests.processes import python_env, start_server

PYTHON = os.path.realpath(sys.executable)


def helpers_of(pid: int) -> set[int]:
    """The serve helpers of `pid`: its children running this Python (its embedded redis-server is
    another executable), by pid and executable, whatever the folder's name."""
    found = set()
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        try:
            if os.path.realpath(f"/proc/{child}/exe") == PYTHON:
                found.add(int(child))
        except OSError:  # ended meanwhile
            continue
    return found


def test_helpers_failing_too_often_stop_serve_with_a_failure_exit_code(tmp_path: Path, meet: FakeMeet, slack: FakeSlack) -> None:
    """Killed again and again (as an out-of-memory killer would), the helpers are replaced five
    times, then serve stops as a whole and exits 1: `Restart=on-failure` (systemd) restarts it,
    where an exit 0 reads as a stop that was asked for."""
    env = python_env(**bot_env(meet, slack), DATA_DIR=str(tmp_path / "data"), SERVE_PROCESSES="3")
    process, _ = start_server(["-m", "bot", "serve"], env, cwd=tmp_path)
    killed: set[int] = set()
    try:
        deadline = time.monotonic() + 90
        while process.poll() is None:
            assert time.monotonic() < deadline, f"serve still running after {len(killed)} helpers were killed"
            for helper in helpers_of(process.pid) - killed:
                os.kill(helper, signal.SIGKILL)
                killed.add(helper)
            time.sleep(0.1)
        output = process.communicate(timeout=60)[0]
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert "stopping serve as a whole" in output, output
    assert process.returncode == 1, output
    assert len(killed) >= 6  # the sixth failure within a minute stops it (a replacement may have been killed too)
