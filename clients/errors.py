"""One readable sentence from an error body, whatever shape the service chose.

Services here answer errors as `{"detail": str}`, `{"detail": <any JSON>}`, `{"error": str}`,
field errors `{"field": [str | {msg, loc, …}]}`, FastAPI's 422 list of `{loc, msg, type}`,
the published `{status_code, detail, headers}` model, or a proxy's HTML page.
"""

from __future__ import annotations

import json
import re
from http import HTTPStatus
from typing import Any, Protocol

import httpx

_MAX = 300
_HTML = re.compile(r"<\s*(?:!doctype|html|head|body|title|center|h1)\b", re.IGNORECASE)


class Answered(Protocol):
    """What the clients and the retry policy read of an answer: httpx's `Response` (the inference
    service's) or the aiohttp transport's `Answer` (the room and dossier services')."""

    @property
    def status_code(self) -> int: ...
    @property
    def headers(self) -> httpx.Headers: ...
    @property
    def text(self) -> str: ...
    def json(self) -> Any: ...
    async def aclose(self) -> None: ...


class ServiceError(Exception):
    """A refusal of an outside service. `detail` keeps the service's own words for the log; what a
    person reads is chosen by the subclass, never by this text."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(detail)
        self.detail = detail


def network_words(error: BaseException) -> str:
    """What went wrong on the way to a service, in words (never an exception's class name, which
    operators and people would otherwise read in a message)."""
    match error:
        case httpx.ConnectTimeout():
            return "no connection in time"
        case httpx.ConnectError():
            return "the connection was refused or the address not found"
        case httpx.ReadTimeout() | httpx.WriteTimeout():
            return "no answer in time"
        case httpx.PoolTimeout():
            return "too many requests in flight"
        case httpx.RemoteProtocolError():
            return "the connection was closed before the answer ended"
        case httpx.ReadError() | httpx.WriteError():
            return "the connection was cut"
        case httpx.TimeoutException():
            return "no answer in time"
    return "a network error"


class UnreadableBody(ValueError):
    """A body that is not JSON, not UTF-8, or nested deeper than a parser can follow."""


def read_json(response: Answered) -> Any:
    """The body as JSON; `UnreadableBody` for anything else. A body nested 100,000 levels deep
    makes the parser raise RecursionError, which no caller expects from reading an answer."""
    try:
        return response.json()
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise UnreadableBody(f"{status_text(response.status_code)} with a body that is not readable JSON") from None


def describe_error(response: Answered) -> str:
    """The service's own words when it gave any, else the status in words; never raw HTML."""
    try:
        body = read_json(response)
    except UnreadableBody:
        return status_text(response.status_code)
    text = _describe(body)
    if not text or _HTML.search(text):  # a provider's error page passed on as `detail`: its status says as much
        return status_text(response.status_code)
    return _clip(text)


def status_text(status: int) -> str:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "HTTP error"
    return f"{status} {phrase}"


def _describe(body: Any, depth: int = 0) -> str:
    if isinstance(body, str):
        return body
    if depth > 8:  # the services nest their words two or three levels down; deeper is not words
        return ""
    if isinstance(body, list):
        return "; ".join(filter(None, (_describe(item, depth + 1) for item in body[:20])))
    if not isinstance(body, dict):
        return json.dumps(body, ensure_ascii=False) if body is not None else ""
    return _describe_object(body, depth)


def _describe_object(body: dict[str, Any], depth: int) -> str:
    """A JSON object's words: a validation item's, those under `detail`, `error` or `message`, or each field's."""
    if "msg" in body:  # one pydantic/FastAPI validation item
        loc = ".".join(str(part) for part in body.get("loc", []) if part != "body")
        return f"{loc}: {body['msg']}" if loc else str(body["msg"])
    for key in ("detail", "error", "message"):
        if key in body:
            value = body[key]
            return value if isinstance(value, str) else _describe(value, depth + 1) or _clip(json.dumps(value, ensure_ascii=False))
    parts = []
    for field, value in list(body.items())[:20]:
        text = _describe(value, depth + 1)
        parts.append(text if field == "non_field_errors" else f"{field}: {text}")
    return "; ".join(parts)


def field_errors(response: Answered) -> dict[str, str]:
    """`{"field": [...]}` bodies as one message per field; empty for any other shape."""
    try:
        body = read_json(response)
    except UnreadableBody:
        return {}
    if not isinstance(body, dict) or {"detail", "error"} & body.keys():
        return {}
    return {str(field): _clip(_describe(value)) for field, value in body.items()}


def _clip(text: str) -> str:
    return text if len(text) <= _MAX else text[: _MAX - 1] + "…"
