"""`python -m bench` as whoever changes the bot runs it: its help names and describes each suite,
before any suite is loaded, and a wrong name is a usage error."""

from __future__ import annotations

import subprocess
import sys

from tests.processes import ROOT, python_env

SUITES = ("startup", "rooms", "digest", "attacks", "pacing", "capacity", "desk", "team", "twin", "watch")


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bench", *args], cwd=ROOT, env=python_env(), capture_output=True,
                          text=True, timeout=60)


def test_help_describes_each_suite_and_runs_none():
    done = _bench("--help")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("usage: python -m bench [-h] [suite ...]")
    described = {line.split()[0]: line for line in done.stdout.splitlines() if line.startswith("  ") and line.split()[0] in SUITES}
    assert set(described) == set(SUITES)
    assert all(len(line.split()) > 4 for line in described.values())  # a description, not a bare name
    assert "docs/benchmarks.md" in done.stdout and "stderr" in done.stdout


def test_an_unknown_suite_is_a_usage_error_naming_the_suites():
    done = _bench("rooms", "room")
    assert done.returncode == 2 and done.stdout == ""
    assert "no suite named room: choose among " + ", ".join(SUITES) in done.stderr
