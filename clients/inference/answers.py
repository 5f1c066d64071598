"""What the inference service's answers say: its refusals typed by cause, its bodies read.

Kept apart from the calls because the chat, the models and the key routes all read answers the
same way: a refusal becomes the one InferenceError subclass that `operator_advice` words for the
operator, and a body the bot cannot read is the service being unavailable, never a traceback.
Redirects are refused rather than followed (a followed POST turns into a GET elsewhere); the
error says which address to set instead.
"""

from __future__ import annotations

import contextlib
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from clients.errors import UnreadableBody, describe_error, read_json
from clients.inference.errors import (
    InferenceError,
    InferenceRefused,
    InferenceUnavailable,
    KeyRejected,
    ModelForbidden,
    ModelNotFound,
    ModelUnreachable,
    NoSuchRoute,
    NotAUserKey,
    QuotaExhausted,
    RateLimited,
    Redirected,
)
from clients.retry import daily_quota_exhausted


def raise_for(response: httpx.Response, route: str = "") -> None:
    if response.is_redirect:  # redirects are not followed: a followed POST turns into a GET elsewhere
        location = response.headers.get("location", "")
        with contextlib.suppress(RuntimeError, httpx.InvalidURL):  # a relative location: from the address asked
            location = str(response.request.url.join(location))
        raise Redirected(f"{response.status_code} to {location!r}", location, _base_of(location, route))
    if response.status_code >= 400:
        raise _refusal(response, describe_error(response))


def key_refused(response: httpx.Response) -> bool:
    return response.status_code in (401, 403) and "key" in describe_error(response).lower()


def user_not_found(response: httpx.Response) -> bool:
    """The master key on the key routes; a missing route says `Not Found` instead."""
    return response.status_code == 404 and "user not found" in describe_error(response).lower()


def body_of(response: httpx.Response) -> Any:
    try:
        return read_json(response)
    except UnreadableBody as error:
        raise InferenceUnavailable(str(error)) from None


def listed(body: Any) -> list[Any]:
    """`data` of a list answer, whatever came instead."""
    data = body.get("data") if isinstance(body, dict) else None
    return data if isinstance(data, list) else []


def _base_of(location: str, route: str) -> str:
    """The address to set for a gateway that points `route` to `location`: the location without the
    route (nor its query), else its origin."""
    parts = urlsplit(location)
    if route and parts.path.rstrip("/").endswith(route.rstrip("/")):
        return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/")[: -len(route.rstrip("/"))], "", "")).rstrip("/")
    return urlunsplit((parts.scheme, parts.netloc, "", "", "")) if parts.netloc else location


def _refusal(response: httpx.Response, detail: str) -> InferenceError:
    """The service's refusal, typed by what it says of itself."""
    status = response.status_code
    if key_refused(response) or (status == 401 and "authenticated" in detail.lower()):
        return KeyRejected(detail)
    if user_not_found(response):
        return NotAUserKey(detail)
    if status == 404 and "model" in detail.lower():
        return ModelNotFound(detail)
    if status == 403 and "model" in detail.lower():
        return ModelForbidden(detail)
    if status == 404:  # the gateway's words alone ("Not Found") would not say what answered them
        return NoSuchRoute(detail if detail.startswith("404") else f"404 {detail}")
    if daily_quota_exhausted(response):
        return QuotaExhausted(detail)
    if status == 429:
        return RateLimited(detail)
    if status >= 500 or status == 424:  # the gateway answered for a model it could not reach
        return ModelUnreachable(detail)
    return InferenceRefused(detail)
