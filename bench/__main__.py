"""`python -m bench [startup|rooms|digest|attacks|pacing|capacity|desk]`: every benchmark, each compared in the same run, in one table."""

from __future__ import annotations

import asyncio
import atexit
import os
import platform
import shutil
import sys
import tempfile

# every suite's folders (Redis, working directories) go here, and go when the run ends
tempfile.tempdir = tempfile.mkdtemp(prefix="roombot-bench-")
atexit.register(shutil.rmtree, tempfile.tempdir, ignore_errors=True)

from bench import attacks, capacity, desk, digest, pacing, rooms, startup  # noqa: E402

SUITES = {
    "startup": startup.main, "rooms": rooms.main, "digest": digest.main, "attacks": attacks.main, "pacing": pacing.main,
    "capacity": capacity.main, "desk": desk.main,
}


def machine() -> str:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{platform.machine()}, {os.cpu_count()} cores, {memory:.0f} GiB, {platform.system()}, Python {platform.python_version()}"


def main() -> None:
    chosen = sys.argv[1:] or list(SUITES)
    if unknown := [name for name in chosen if name not in SUITES]:
        print(f"usage: python -m bench [{' '.join(SUITES)}] (all when none is named)", file=sys.stderr)
        sys.exit(0 if set(unknown) <= {"-h", "--help"} else 2)
    rows = []
    for name in chosen:
        rows += asyncio.run(SUITES[name]())
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    print(f"machine: {machine()}\n")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(("measure", "result", "compared with"), widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |")


if __name__ == "__main__":
    main()
