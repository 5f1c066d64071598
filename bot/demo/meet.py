"""A loopback La Suite Meet external API that behaves like the real server (meet-api.md).

Reproduced on purpose: 301 when the trailing slash is missing, 20 rooms a page whatever
`page_size` says, alphabetical order, absolute `next`/`previous` links (page 2's `previous`
without `page=1`), `detail` vs `error` keys, 404 for unknown users, 403 for someone else's room,
public rooms refused, 10-digit PINs with `null` for old rooms, and tokens that expire; the
service's switches (meet-api.md §5c): `EXTERNAL_API_ENABLED` off answers Django's HTML 404 on every
route, `APPLICATION_ENABLED` off a JSON 404 on the token endpoint, and tokens it issued before then
fall through to the OIDC check (401 `Resource Server is improperly configured`).
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import secrets
import string
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

PAGE_SIZE = 20
ALL_SCOPES = "rooms:list rooms:retrieve rooms:create"


@dataclass
class Application:
    client_id: str = "roombot-app"
    client_secret: str = "app-secret-value"
    active: bool = True
    domains: tuple[str, ...] = ()  # empty: any e-mail domain
    scopes: str | None = ALL_SCOPES


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

    # --- test helpers -------------------------------------------------------------------
    def add_user(self, email: str, *, active: bool = True) -> str:
        user_id = str(uuid.uuid4())
        self.users[email.lower()] = {"id": user_id, "active": active}
        return user_id

    def add_room(self, email: str, slug: str | None = None, access_level: str = "trusted", pin: str | None = "auto") -> dict[str, Any]:
        owner = self.users[email.lower()]["id"]
        room = self._new_room(owner, access_level, {}, slug=slug, pin=pin)
        return room

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
            return await self._token(request)
        if route == "/rooms/":
            if request.method == "GET":
                return self._list(request)
            if request.method == "POST":
                return await self._create(request)
        elif route.startswith("/rooms/") and route.count("/") == 3:
            if request.method == "GET":
                return self._retrieve(request, route.split("/")[2])
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

    async def _token(self, request: Request) -> Response:
        if request.method != "POST":
            return JSONResponse({"detail": f'Method "{request.method}" not allowed.'}, status_code=405)
        kind = request.headers.get("content-type", "").split(";")[0]
        raw = await request.body()
        if kind == "application/json":
            data = json.loads(raw or b"{}")
        elif kind == "application/x-www-form-urlencoded":
            data = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
        else:
            return JSONResponse({"detail": f'Unsupported media type "{kind}" in request.'}, status_code=415)
        if not isinstance(data, dict):
            expected = f"Invalid data. Expected a dictionary, but got {type(data).__name__}."
            return JSONResponse({"non_field_errors": [expected]}, status_code=400)
        missing = {k: ["This field is required."] for k in ("client_id", "client_secret", "grant_type", "scope") if k not in data}
        if missing:
            return JSONResponse(missing, status_code=400)
        if data["scope"] == "":
            return JSONResponse({"scope": ["This field may not be blank."]}, status_code=400)
        if data["grant_type"] != "client_credentials":
            return JSONResponse({"grant_type": [f'"{data["grant_type"]}" is not a valid choice.']}, status_code=400)
        return self._grant(data)

    def _grant(self, data: dict[str, Any]) -> Response:
        """A token for the person the request names, when the application may have one."""
        app = self.app_config
        self.token_requests.append(data["scope"])
        if data["client_id"] != app.client_id or data["client_secret"] != app.client_secret:
            return JSONResponse({"detail": "Invalid credentials"}, status_code=401, headers={"WWW-Authenticate": "Session"})
        if not app.active:
            return JSONResponse({"detail": "Application is inactive"}, status_code=401, headers={"WWW-Authenticate": "Session"})
        email = str(data["scope"]).strip()
        if "@" not in email or " " in email or email.startswith("@") or email.endswith("@"):
            return JSONResponse({"error": "Scope should be a valid email address."}, status_code=400)
        if app.domains and email.lower().rpartition("@")[2] not in app.domains:
            return JSONResponse({"error": "This application is not authorized for this email domain."}, status_code=403)
        user = self.users.get(email.lower())
        if user is None:
            return JSONResponse({"detail": "User not found."}, status_code=404)
        token = secrets.token_urlsafe(24)
        self.tokens[token] = {"user": user["id"], "exp": time.time() + self.expires_in, "scopes": app.scopes or ""}
        body: dict[str, Any] = {"access_token": token, "token_type": "Bearer", "expires_in": self.expires_in}
        if app.scopes is not None:
            body["scope"] = app.scopes
        return JSONResponse(body)

    def _auth(self, request: Request, scope: str) -> tuple[str | None, Response | None]:
        header = request.headers.get("authorization", "")
        parts = header.split(" ")
        challenge = {"WWW-Authenticate": "Bearer"}
        if not header or parts[0] != "Bearer":
            return None, JSONResponse({"detail": "Authentication credentials were not provided."}, status_code=401, headers=challenge)
        if len(parts) != 2:
            return None, JSONResponse({"detail": "Invalid token header."}, status_code=401, headers=challenge)
        token = self.tokens.get(parts[1])
        if not self.applications_enabled:  # the application backend is off: only OIDC is left
            return None, JSONResponse({"detail": "Resource Server is improperly configured"}, status_code=401, headers=challenge)
        if token is None:
            return None, JSONResponse({"detail": "Invalid token."}, status_code=401, headers=challenge)
        if token["exp"] <= time.time():
            return None, JSONResponse({"detail": "Token expired."}, status_code=401, headers=challenge)
        if not self.app_config.active:
            return None, JSONResponse({"detail": "Application is disabled."}, status_code=401, headers=challenge)
        user = next((u for u in self.users.values() if u["id"] == token["user"]), None)
        if user is None or not user["active"]:
            return None, JSONResponse({"detail": "User account is disabled."}, status_code=401, headers=challenge)
        if scope not in token["scopes"].split():
            detail = f"Insufficient permissions. Required scope: {scope}" if token["scopes"] else "Insufficient permissions."
            return None, JSONResponse({"detail": detail}, status_code=403)
        return token["user"], None

    def _list(self, request: Request) -> Response:
        user, refusal = self._auth(request, "rooms:list")
        if refusal:
            return refusal
        raw = request.query_params.get("page", "1")
        if self.endless_list:
            page = int(raw) if raw.isdigit() else 1
            results = [{"id": str(uuid.uuid4()), "name": _slug(), "slug": _slug(), "access_level": "trusted", "configuration": {}}
                       for _ in range(PAGE_SIZE)]
            return JSONResponse({"count": 10_000_000, "next": f"http://evil.example/rooms/?page={page + 1}",
                                 "previous": None, "results": results})
        mine = sorted((r for r in self.rooms.values() if r["_owner"] == user), key=lambda r: r["name"])
        pages = max(1, math.ceil(len(mine) / PAGE_SIZE))
        page = pages if raw == "last" else int(raw) if raw.isdigit() else 0
        if not 1 <= page <= pages:
            return JSONResponse({"detail": "Invalid page."}, status_code=404)
        base = f"{request.url.scheme}://{request.headers['host']}{request.url.path}"
        extra = f"&page_size={request.query_params['page_size']}" if "page_size" in request.query_params else ""
        next_url = f"{base}?page={page + 1}{extra}" if page < pages else None
        previous = None if page == 1 else (base if page == 2 else f"{base}?page={page - 1}")
        results = [_public(r) for r in mine[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]]
        return JSONResponse({"count": len(mine), "next": next_url, "previous": previous, "results": results})

    async def _create(self, request: Request) -> Response:
        user, refusal = self._auth(request, "rooms:create")
        if refusal:
            return refusal
        kind = request.headers.get("content-type", "").split(";")[0]
        if kind not in ("application/json", "multipart/form-data", ""):
            return JSONResponse({"detail": f'Unsupported media type "{kind}" in request.'}, status_code=415)
        raw = await request.body()
        data = json.loads(raw) if raw else {}
        level = data.get("access_level", "trusted")
        if level not in ("public", "trusted", "restricted"):
            return JSONResponse({"access_level": [f'"{level}" is not a valid choice.']}, status_code=400)
        if level == "public" and not self.public_allowed:
            return JSONResponse({"access_level": ["Public rooms are disabled for the external API."]}, status_code=400)
        configuration = data.get("configuration", {})
        if configuration is None:
            return JSONResponse({"configuration": ["This field may not be null."]}, status_code=400)
        refused = _check_configuration(configuration)
        if refused is not None:
            return JSONResponse({"configuration": [refused]}, status_code=400)
        assert user is not None  # _auth gives a user or a refusal
        room = self._new_room(user, level, configuration)
        body = _public(room)
        return JSONResponse(body, status_code=201, headers={"Location": body.get("url", "")})

    def _retrieve(self, request: Request, room_id: str) -> Response:
        user, refusal = self._auth(request, "rooms:retrieve")
        if refusal:
            return refusal
        try:
            uuid.UUID(room_id)
        except ValueError:
            return JSONResponse({"detail": "Not found."}, status_code=404)
        room = self.rooms.get(room_id)
        if room is None:
            return JSONResponse({"detail": "No Room matches the given query."}, status_code=404)
        if room["_owner"] != user:
            return JSONResponse({"detail": "You do not have permission to perform this action."}, status_code=403)
        return JSONResponse(_public(room))

    def _new_room(self, owner: str, level: str, configuration: dict[str, Any], *, slug: str | None = None,
                  pin: str | None = "auto") -> dict[str, Any]:
        slug = slug or (self.next_slugs.pop(0) if self.next_slugs else _slug())
        room: dict[str, Any] = {
            "id": str(uuid.uuid4()),
            "name": slug,
            "slug": slug,
            "access_level": level,
            "configuration": configuration,
            "_owner": owner,
        }
        if self.room_base_url:
            room["url"] = f"{self.room_base_url}/{slug}"
        if self.telephony:
            room["telephony"] = {
                "enabled": True,
                "phone_number": "+33 1 85 14 90 00",
                "pin_code": "".join(random.choices(string.digits, k=10)) if pin == "auto" else pin,
                "default_country": "FR",
            }
        with self._lock:
            self.rooms[room["id"]] = room
        return room


SOURCES = ("camera", "microphone", "screen_share", "screen_share_audio")


def _check_configuration(configuration: dict[str, Any]) -> dict[str, Any] | None:
    """The pydantic error the real server answers for a bad `RoomConfiguration` (meet-api.md §4)."""
    for name, value in configuration.items():
        if name not in ("can_publish_sources", "everyone_can_mute"):
            return {"type": "extra_forbidden", "loc": [name], "msg": "Extra inputs are not permitted", "input": str(value),
                    "url": "https://errors.pydantic.dev/2.13/v/extra_forbidden"}
    for index, source in enumerate(configuration.get("can_publish_sources") or []):
        if source not in SOURCES:
            expected = ", ".join(f"'{s}'" for s in SOURCES)
            return {"type": "literal_error", "loc": ["can_publish_sources", index], "input": source,
                    "msg": f"Input should be {expected}", "ctx": {"expected": expected}}
    return None


def _public(room: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in room.items() if not k.startswith("_")}


def _slug() -> str:
    letters = string.ascii_lowercase
    return "-".join("".join(random.choices(letters, k=n)) for n in (3, 4, 3))


def _html(status: int) -> Response:
    return Response(f"<!doctype html><html><body><h1>{status}</h1></body></html>", status_code=status, media_type="text/html")
