"""The shell's terminal input: standard input line by line, and Ctrl-C as an interruption.

Apart from the shell's loop and its windows because reading a terminal well is a job of its own:
a thread that reads (so that Ctrl-C answers at once), a prompt only at a terminal, and Ctrl-D
ending one answer at a terminal but the whole input from a pipe.
"""

from __future__ import annotations

import asyncio
import threading
from typing import TextIO


class Interrupted(Exception):
    """Ctrl-C (SIGINT) while the shell waited for a line, or while the bot worked."""


class Lines:
    """Standard input, line by line, with a prompt when a person types at a terminal.

    A thread of its own reads the lines (a daemon: a read still waiting when the shell ends holds
    nothing back), so that Ctrl-C answers at once: `ask` raises `Interrupted`. At a terminal,
    Ctrl-D ends one answer (a window is cancelled) and the shell reads on; elsewhere the end of
    input is the end."""

    def __init__(self, stdin: TextIO, out: TextIO) -> None:
        self._in, self._out = stdin, out
        self._prompt = stdin.isatty()
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._interrupted = asyncio.Event()
        self._reader: threading.Thread | None = None
        self._ended = False

    def start(self) -> None:
        loop = asyncio.get_running_loop()

        def read() -> None:
            while True:
                line = self._in.readline()
                loop.call_soon_threadsafe(self._lines.put_nowait, line.rstrip("\n") if line else None)
                if not line and not self._prompt:
                    return

        self._reader = threading.Thread(target=read, name="shell-input", daemon=True)
        self._reader.start()

    def interrupt(self) -> None:
        self._interrupted.set()

    async def ask(self, prompt: str = "> ") -> str | None:
        """The next line without its end, or None at the end of input (or Ctrl-D at a terminal)."""
        if self._reader is None:
            self.start()
        if self._prompt:
            self._out.write(prompt)
            self._out.flush()
        if self._ended:
            return None
        got = asyncio.ensure_future(self._lines.get())
        stop = asyncio.ensure_future(self._interrupted.wait())
        await asyncio.wait((got, stop), return_when=asyncio.FIRST_COMPLETED)
        if stop.done():
            got.cancel()
            self._interrupted.clear()
            if self._prompt:
                self._out.write("\n")  # past the ^C the terminal echoed
            raise Interrupted
        stop.cancel()
        line = got.result()
        self._ended = line is None and not self._prompt  # a pipe's end is for good, a terminal's Ctrl-D for one answer
        return line
