"""Logging for every command: one JSON object per line for log collectors, readable lines on a
terminal; each line carries the Slack request id it belongs to.

No e-mail address and no Slack token reaches a log line, at any level: libraries log whole API
answers at DEBUG (Bolt's per-request client logs every `users.info` profile), so every line is
scrubbed as it is written, whoever wrote it — a JSON line value by value, so that it stays JSON
(scrubbing the encoded line turned Bolt's `\\n@app.action` hint into an invalid `\\[redacted]`).

Below DEBUG, the libraries' own INFO lines (uvicorn's banners and access log, Bolt's, the HTTP
clients' one line per request) are left out: an operator reads the bot's lines and everyone's warnings.
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


# uvicorn adds `color_message`, its message with terminal colour codes: nothing for a log collector
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "request_id", "color_message"}

#: the libraries under the bot, by their loggers' first name
LIBRARIES = ("uvicorn", "slack_bolt", "slack_sdk", "httpx", "httpcore", "aiohttp", "asyncio")

#: at DEBUG still, libraries that log whole request and response bodies (e-mails, tokens) stay quieter
_DEBUG_FLOORS = {"slack_bolt": logging.INFO, "slack_sdk": logging.INFO, "httpx": logging.WARNING,
                 "httpcore": logging.WARNING, "asyncio": logging.WARNING}


class _RequestId(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        return True


class _LibraryWarnings(logging.Filter):
    """Only the libraries' warnings and errors: Bolt sets its loggers to the root's level as it
    builds the app, so their own levels alone would not keep its INFO lines out."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or record.name.split(".", 1)[0] not in LIBRARIES


def _scrubbed(value: Any) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, dict):
        return {str(key): _scrubbed(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrubbed(item) for item in value]
    return scrub(str(value))


class Readable(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return scrub(super().format(record))


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
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
        return json.dumps(_scrubbed(entry), ensure_ascii=False)


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
    debug = logging.getLevelName(level) <= logging.DEBUG
    if not debug:
        handler.addFilter(_LibraryWarnings())
    logging.basicConfig(level=level, handlers=[handler], force=True)
    for name in LIBRARIES:  # their levels too, so that their left-out lines are not even made
        floor = _DEBUG_FLOORS.get(name, logging.DEBUG) if debug else logging.WARNING
        logging.getLogger(name).setLevel(max(floor, logging.getLevelName(level)))
