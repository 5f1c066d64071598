"""Logging for every command: one JSON object per line for log collectors, readable lines on a
terminal; each line carries the Slack request id it belongs to.

No e-mail address and no Slack token reaches a log line, at any level: libraries log whole API
answers at DEBUG (Bolt's per-request client logs every `users.info` profile), so every line is
scrubbed as it is written, whoever wrote it.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from typing import Any

from clients.telemetry import REQUEST_ID

_PRIVATE = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # e-mail addresses
    r"|\bxox[abeprs]-[\w-]+|\bxapp-[\w-]+"  # Slack tokens
    r"|(?<=with code: )\S+|(?<='code': ')[^']+"  # OAuth codes, as Bolt and slack_sdk log them
)


# secrets passed in a query string (the access log writes each request's path with it): an OAuth
# callback's code and state, and any token or secret someone pastes into a URL
_QUERY = re.compile(r"(?i)([?&;](?:code|state|token|access_token|refresh_token|client_secret|secret|key)=)[^&;\s\"']+")


def scrub(line: str) -> str:
    return _QUERY.sub(r"\1[redacted]", _PRIVATE.sub("[redacted]", line))


_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "request_id"}


class _RequestId(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        return True


class Readable(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return scrub(super().format(record))


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return scrub(self._json(record))

    def _json(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "-"),
        }
        entry |= {key: value for key, value in vars(record).items() if key not in _STANDARD}
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def configure(level: str, *, json_lines: bool | None = None) -> None:
    """`json_lines` defaults to "stderr is not a terminal"."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(_RequestId())
    if json_lines if json_lines is not None else not sys.stderr.isatty():
        formatter: logging.Formatter = JsonLines()
        formatter.converter = time.gmtime
    else:
        formatter = Readable("%(asctime)s %(levelname)-7s [%(request_id)s] %(name)s: %(message)s", "%H:%M:%S")
    handler.setFormatter(formatter)
    logging.basicConfig(level=level, handlers=[handler], force=True)
    # Libraries that log request and response bodies (e-mails, tokens) at DEBUG stay quieter.
    for name, floor in (("slack_bolt", logging.INFO), ("slack_sdk", logging.INFO), ("httpx", logging.WARNING),
                        ("httpcore", logging.WARNING), ("asyncio", logging.WARNING)):
        logging.getLogger(name).setLevel(max(floor, logging.getLevelName(level)))
