"""`python -m bench [suite …]`: every benchmark, each compared in the same run, in one table on
stdout; what it is doing goes to stderr as it goes."""

from __future__ import annotations

import argparse
import asyncio
import atexit
import importlib
import os
import platform
import shutil
import tempfile
import textwrap
import time

from bench.progress import step

#: each suite: what it measures (its module is bench/<name>.py, loaded only when it runs)
SUITES = {
    "startup": "start-up time and memory of python -m bot (--help, serve until /healthz, after 1,000 commands) "
               "beside python -c pass and bare Bolt apps",
    "rooms": "ack latency and CPU of /room list bursts beside bare Bolt apps; token requests of cold commands",
    "digest": "walks of 20,000 and 100,000 dossiers beside a raw HTTP loop: time, memory, the second day's requests",
    "attacks": "a burst of 300 commands, 20 MB bodies, 200 byte-by-byte connections: acks and memory",
    "pacing": "walks at the dossier service's real rate limit (400/min) and the digest chart",
    "capacity": "the highest steady /room list rate with ack p99 under 500 ms, beside bare Bolt apps, then with "
                "SERVE_PROCESSES=2",
    "desk": "/dossier look-ups, every act of the card (click to card replaced, requests, window open time) and a "
            "watch round: their time and the requests they cost",
    "team": "/dossier team for 50 instructeurs with every service at 100 ms a request: first run and second, beside "
            "the look-ups one after another",
    "twin": "the bot beside its twin (a bare Bolt app doing the same outside work): CPU of /room list, /room new and "
            "/dossier, ack p99 at 100/s, the highest steady rate, burst acks, ready time; the twin's own floor",
    "watch": "/dossier watch: 1,000 watchers over 100 démarches, 5 % of dossiers changing an hour (simulated clock): "
             "requests and DMs a round, change → DM latency, CPU a round",
}


def parser() -> argparse.ArgumentParser:
    described = "\n".join(textwrap.fill(what, 100, initial_indent=f"  {name:<10}", subsequent_indent=" " * 12)
                          for name, what in SUITES.items())
    arguments = argparse.ArgumentParser(
        prog="python -m bench", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.fill("Measures the bot beside its baselines in the same run and prints one table "
                                  "(Markdown) on stdout; each step goes to stderr as it starts. All the suites take "
                                  "about 21 minutes on 2 cores. Figures and how to read them: docs/benchmarks.md.", 100),
        epilog=f"suites (all, in this order, when none is named):\n{described}")
    arguments.add_argument("suites", nargs="*", metavar="suite", help="the suites to run: " + ", ".join(SUITES))
    return arguments


def machine() -> str:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{platform.machine()}, {os.cpu_count()} cores, {memory:.0f} GiB, {platform.system()}, Python {platform.python_version()}"


def main() -> None:
    arguments = parser()
    chosen = arguments.parse_args().suites or list(SUITES)
    if unknown := [name for name in chosen if name not in SUITES]:
        arguments.error(f"no suite named {', '.join(unknown)}: choose among {', '.join(SUITES)}")
    # every suite's folders (Redis, working directories) go here, and go when the run ends
    tempfile.tempdir = tempfile.mkdtemp(prefix="roombot-bench-")
    atexit.register(shutil.rmtree, tempfile.tempdir, ignore_errors=True)
    rows = []
    for name in chosen:
        step(name, f"started ({SUITES[name]})")
        started = time.monotonic()
        suite = importlib.import_module(f"bench.{name}")
        rows += asyncio.run(suite.main())
        step(name, f"done in {time.monotonic() - started:.0f} s")
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    print(f"machine: {machine()}\n")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(("measure", "result", "compared with"), widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |")


if __name__ == "__main__":
    main()
