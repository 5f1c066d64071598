"""Bot and fake servers as real processes, for the process tests and the benchmarks."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def python_env(**values: str) -> dict[str, str]:
    """A bare environment (nothing of the developer's) that finds this project's packages."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "SYSTEMROOT")}
    return {**keep, "PYTHONPATH": str(ROOT), **values}


def start_server(
    args: list[str],
    env: dict[str, str],
    *,
    cwd: Path = ROOT,
    ready: str | None = "/readyz",
    timeout: float = 20,
    stdout: int | IO[str] = subprocess.PIPE,
) -> tuple[subprocess.Popen, str]:
    """Runs `python args…` on a free port (its HOST and PORT) and waits until it answers: 200 on
    `ready` (`serve`: /readyz once its app is built; /healthz answers before, as soon as it listens),
    or any HTTP answer when `ready` is None. Raises with the process's output otherwise."""
    port = free_port()
    process = subprocess.Popen([sys.executable, *args], cwd=cwd, env={**env, "HOST": "127.0.0.1", "PORT": str(port)},
                               stdout=stdout, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while True:
        try:
            status = httpx.get(base + (ready or "/"), timeout=0.5).status_code
            if ready is None or status == 200:
                return process, base
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            output = process.communicate()[0] if stdout == subprocess.PIPE else ""
            raise RuntimeError(f"{args} did not start:\n{output}")
        time.sleep(0.1)


class Silent:
    """A service that takes connections and never answers: the worst a start-up check can meet
    (its URL is the context's value)."""

    def __enter__(self) -> str:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(512)
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


def python_children(pid: int) -> list[int]:
    """The children of `pid` that run this interpreter: serve's helpers, not its embedded
    redis-server. Told apart by executable, never by a word of the command line (a clone in a
    folder named `roombot` puts that word in redis-server's path too)."""
    interpreter = os.path.realpath(sys.executable)
    children = [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    found = []
    for child in children:
        try:
            if os.readlink(f"/proc/{child}/exe") == interpreter:
                found.append(child)
        except OSError:  # it ended meanwhile
            continue
    return found


def processes_under(folder: Path) -> list[str]:
    """Processes (other than this one) that run in `folder` or name it on their command line: pid
    and command."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdecimal() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            where = os.readlink(entry / "cwd")
        except OSError:
            continue
        if str(folder) in command or where.startswith(str(folder)):
            found.append(f"{entry.name} {command[:120]}")
    return found
