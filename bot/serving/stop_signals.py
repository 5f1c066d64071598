"""SIGTERM and SIGINT from the first moment of `python -m bot serve`, until its server takes them.

uvicorn hears the stop signals only while its server runs; before (the modules loading, the
embedded Redis starting), the default SIGTERM killed the process half-started, SIGINT wrote a
traceback, and a signal that came between serve's own handlers and uvicorn's was lost: the
process went on to serve. Here the signal is noted from the start and handed to the server, which
then stops as soon as it has started (nothing is built after that); exit code 0.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType
from typing import Protocol


class Stoppable(Protocol):
    should_exit: bool


class StopSignals:
    def __init__(self) -> None:
        self.asked = False
        self.server: Stoppable | None = None

    @classmethod
    @contextlib.contextmanager
    def taken(cls) -> Iterator[StopSignals]:
        """The signals noted for the block; the handlers before it back after (`main()` in a test)."""
        signals = cls()
        before = {signum: signal.signal(signum, signals._noted) for signum in (signal.SIGTERM, signal.SIGINT)}
        try:
            yield signals
        finally:
            for signum, handler in before.items():
                signal.signal(signum, handler)

    def _noted(self, signum: int, frame: FrameType | None) -> None:
        # also what uvicorn's re-raise of the signal after its own stop comes to: harmless
        self.asked = True
        if self.server is not None:
            self.server.should_exit = True

    def hand_to(self, server: Stoppable) -> None:
        """The server stops on the signals from now on, and at once if one came already."""
        self.server = server
        if self.asked:
            server.should_exit = True
