"""A streamed chat answer, read whole or not at all.

A streamed answer counts only when a choice ended with a `finish_reason` and `data: [DONE]`
arrived; a stream cut in the middle (a bare `{"detail": …}` line, an `event: error`, a dropped
connection) raises StreamInterrupted, a transport failure, so that the retry policy asks again
for the whole answer and its partial text is never returned.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import httpx

from clients.errors import network_words


class StreamInterrupted(httpx.ReadError):
    """The answer stopped before `finish_reason` and `[DONE]`: a transport failure, retried whole."""


async def read_stream(response: httpx.Response) -> list[str]:
    """The content pieces of a complete SSE answer; StreamInterrupted on anything short of that."""
    stream = _Stream()
    try:
        async for line in response.aiter_lines():
            if stream.read(line):
                break
    except (httpx.RemoteProtocolError, httpx.ReadError, ValueError, RecursionError) as error:
        if isinstance(error, StreamInterrupted):
            raise
        raise StreamInterrupted(f"the answer's stream stopped: {network_words(error)}") from None
    if not (stream.finished and stream.done):
        raise StreamInterrupted("stream ended without finish_reason and [DONE]")
    return stream.pieces


def _reason(line: str) -> str:
    """The words of a line the gateway wrote instead of a chunk (`{"detail": …}`, `{"error": {"message": …}}`)."""
    try:
        body = json.loads(line)
    except (ValueError, RecursionError):
        return line[:120]
    if not isinstance(body, dict):
        return line[:120]
    error = body.get("error")
    found = body.get("detail") or (error.get("message") if isinstance(error, dict) else None)
    return found[:200] if isinstance(found, str) else line[:120]


@dataclass
class _Stream:
    """An SSE answer read so far: its pieces, whether a choice finished and `[DONE]` came."""

    pieces: list[str] = field(default_factory=list)
    finished: bool = False
    done: bool = False
    event: str | None = None

    def read(self, line: str) -> bool:
        """Takes one line; True at the stream's end (`[DONE]`)."""
        if not line.strip():
            self.event = None
            return False
        if line.startswith("event:"):
            self.event = line[6:].strip()
            return False
        if not line.startswith("data:"):  # a bare {"detail": …} after some chunks: the upstream broke
            raise StreamInterrupted(f"the gateway cut the answer: {_reason(line)}")
        data = line[5:].strip()
        if self.event == "error":
            raise StreamInterrupted(f"the gateway cut the answer: {_reason(data)}")
        if data == "[DONE]":
            self.done = True
            return True
        for choice in json.loads(data).get("choices") or []:
            self.pieces.append((choice.get("delta") or {}).get("content") or "")
            self.finished = self.finished or bool(choice.get("finish_reason"))
        return False
