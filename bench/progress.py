"""What a bench run is doing, on stderr as it goes: the whole bench takes about a quarter of an
hour and some suites minutes, and the table (stdout) comes only at the end."""

from __future__ import annotations

import sys
import time

_STARTED = time.monotonic()


def step(suite: str, what: str) -> None:
    """One line: minutes and seconds since the bench started, the suite, what it measures now."""
    minutes, seconds = divmod(int(time.monotonic() - _STARTED), 60)
    print(f"[{minutes:2d}:{seconds:02d}] {suite}: {what}", file=sys.stderr, flush=True)
