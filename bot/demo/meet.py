"""A loopback La Suite Meet external API that behaves like the real server (meet-api.md).

This module is the stand-in a test holds: `FakeMeet`'s switches and records, its test helpers, and
the routing every request goes through, with what the routing itself reproduces — 301 when the
trailing slash is missing, Django's HTML 404 off the API's routes, 405 for a method a route lacks,
the faults a test asks for, and the service's switches (meet-api.md §5c): `EXTERNAL_API_ENABLED`
off answers the HTML 404 on every route, `APPLICATION_ENABLED` off a JSON 404 on the token
endpoint. The door (applications, tokens, the bearer check) is in meet_tokens; the rooms API
(pages, creation, PINs) in meet_rooms.
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from bot.demo.meet_rooms import RoomsApi, new_room
from bot.demo.meet_tokens import Application, Door


@dataclass
class Fault:
    """Answer the next matching request(s) with this instead of the normal reply."""

    method: str
    path_prefix: str
    status: int
    body: str | dict[str, Any] | list[Any] = ""
    content_type: str = "application/json"
    times: int = 1
    delay: float = 0.0


@dataclass
class FakeMeet:
    app_config: Application = field(default_factory=Application)
    public_allowed: bool = False
    telephony: bool = True
    room_base_url: str | None = "https://visio.example.gouv.fr"
    expires_in: int = 3600
    endless_list: bool = False  # every page full, `count` ten million, `next` always set (to another host)
    external_api_enabled: bool = True  # EXTERNAL_API_ENABLED
    applications_enabled: bool = True  # APPLICATION_ENABLED
    delay: float = 0.0
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    rooms: dict[str, dict[str, Any]] = field(default_factory=dict)
    tokens: dict[str, dict[str, Any]] = field(default_factory=dict)
    faults: list[Fault] = field(default_factory=list)
    log: list[tuple[str, str]] = field(default_factory=list)
    token_requests: list[str] = field(default_factory=list)
    base: str = ""
    next_slugs: list[str] = field(default_factory=list)  # the names the next rooms made get (a test's choice), else random

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._door = Door(self)
        self._rooms_api = RoomsApi(self, self._door.authenticate)

    # --- test helpers -------------------------------------------------------------------
    def add_user(self, email: str, *, active: bool = True) -> str:
        user_id = str(uuid.uuid4())
        self.users[email.lower()] = {"id": user_id, "active": active}
        return user_id

    def add_room(self, email: str, slug: str | None = None, access_level: str = "trusted", pin: str | None = "auto") -> dict[str, Any]:
        owner = self.users[email.lower()]["id"]
        return new_room(self, owner, access_level, {}, slug=slug, pin=pin)

    def expire_tokens(self) -> None:
        for token in self.tokens.values():
            token["exp"] = 0

    @property
    def people_tokens(self) -> list[str]:
        """Token requests made for a person (not `check`'s probe of the credentials, which `serve`
        also runs at start)."""
        return [scope for scope in self.token_requests if "@" in scope]

    def count(self, method: str, path: str) -> int:
        return sum(1 for m, p in self.log if m == method and p == path)

    # --- the server ---------------------------------------------------------------------
    def asgi(self) -> Starlette:
        return Starlette(routes=[Route("/{path:path}", self._dispatch, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])])

    async def _dispatch(self, request: Request) -> Response:
        path = "/" + request.path_params["path"]
        self.log.append((request.method, path))
        if self.delay:
            await asyncio.sleep(self.delay)
        fault = self._take_fault(request.method, path)
        if fault is not None:
            await asyncio.sleep(fault.delay)
            body = fault.body if isinstance(fault.body, str) else json.dumps(fault.body)
            return Response(body, status_code=fault.status, media_type=fault.content_type)
        prefix = "/external-api/v1.0"
        if not path.startswith(prefix + "/") or not self.external_api_enabled:
            return _html(404)
        route = path[len(prefix):]
        if not route.endswith("/"):
            target = str(request.url).replace(path, path + "/", 1)
            return RedirectResponse(target, status_code=301)
        if route == "/application/token/":
            if not self.applications_enabled:
                return JSONResponse({"detail": "Not found."}, status_code=404)
            return await self._door.token(request)
        if route == "/rooms/":
            if request.method == "GET":
                return self._rooms_api.list(request)
            if request.method == "POST":
                return await self._rooms_api.create(request)
        elif route.startswith("/rooms/") and route.count("/") == 3:
            if request.method == "GET":
                return self._rooms_api.retrieve(request, route.split("/")[2])
        else:
            return _html(404)
        return JSONResponse({"detail": f'Method "{request.method}" not allowed.'}, status_code=405)

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.method == method and path.startswith(fault.path_prefix) and fault.times > 0:
                    fault.times -= 1
                    return fault
        return None


def _html(status: int) -> Response:
    return Response(f"<!doctype html><html><body><h1>{status}</h1></body></html>", status_code=status, media_type="text/html")
