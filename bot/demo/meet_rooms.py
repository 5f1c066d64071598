"""The Meet stand-in's rooms API: listing, creating and reading rooms as the real server does.

Apart from the door (meet_tokens) and the routing (meet) because these are the service's rooms
(meet-api.md §4): 20 rooms a page whatever `page_size` says, alphabetical order, absolute
`next`/`previous` links (page 2's `previous` without `page=1`), 403 for someone else's room, public
rooms refused, a bad configuration refused with pydantic's own error, 10-digit PINs with `null`
for old rooms; and, for the tests, a list that never ends.
"""

from __future__ import annotations

import json
import math
import random
import string
import threading
import uuid
from collections.abc import Callable
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

PAGE_SIZE = 20
SOURCES = ("camera", "microphone", "screen_share", "screen_share_audio")

#: the bearer check: the user a request acts for with this scope, or the service's refusal
Authenticate = Callable[[Request, str], tuple[str | None, Response | None]]


class Hosting(Protocol):
    """What the rooms API reads and keeps of the stand-in (bot.demo.meet.FakeMeet)."""

    public_allowed: bool
    telephony: bool
    room_base_url: str | None
    endless_list: bool
    rooms: dict[str, dict[str, Any]]
    next_slugs: list[str]
    _lock: threading.Lock


class RoomsApi:
    """GET and POST /rooms/, GET /rooms/{id}/, each behind the bearer check."""

    def __init__(self, meet: Hosting, authenticate: Authenticate) -> None:
        self.meet, self._auth = meet, authenticate

    def list(self, request: Request) -> Response:
        user, refusal = self._auth(request, "rooms:list")
        if refusal:
            return refusal
        raw = request.query_params.get("page", "1")
        if self.meet.endless_list:
            page = int(raw) if raw.isdigit() else 1
            results = [{"id": str(uuid.uuid4()), "name": _slug(), "slug": _slug(), "access_level": "trusted", "configuration": {}}
                       for _ in range(PAGE_SIZE)]
            return JSONResponse({"count": 10_000_000, "next": f"http://evil.example/rooms/?page={page + 1}",
                                 "previous": None, "results": results})
        mine = sorted((r for r in self.meet.rooms.values() if r["_owner"] == user), key=lambda r: r["name"])
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

    async def create(self, request: Request) -> Response:
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
        if level == "public" and not self.meet.public_allowed:
            return JSONResponse({"access_level": ["Public rooms are disabled for the external API."]}, status_code=400)
        configuration = data.get("configuration", {})
        if configuration is None:
            return JSONResponse({"configuration": ["This field may not be null."]}, status_code=400)
        refused = _check_configuration(configuration)
        if refused is not None:
            return JSONResponse({"configuration": [refused]}, status_code=400)
        assert user is not None  # the check gives a user or a refusal
        room = new_room(self.meet, user, level, configuration)
        body = _public(room)
        return JSONResponse(body, status_code=201, headers={"Location": body.get("url", "")})

    def retrieve(self, request: Request, room_id: str) -> Response:
        user, refusal = self._auth(request, "rooms:retrieve")
        if refusal:
            return refusal
        try:
            uuid.UUID(room_id)
        except ValueError:
            return JSONResponse({"detail": "Not found."}, status_code=404)
        room = self.meet.rooms.get(room_id)
        if room is None:
            return JSONResponse({"detail": "No Room matches the given query."}, status_code=404)
        if room["_owner"] != user:
            return JSONResponse({"detail": "You do not have permission to perform this action."}, status_code=403)
        return JSONResponse(_public(room))


def new_room(meet: Hosting, owner: str, level: str, configuration: dict[str, Any], *, slug: str | None = None,
             pin: str | None = "auto") -> dict[str, Any]:
    """A room as the service keeps it (its owner under `_owner`, never answered)."""
    slug = slug or (meet.next_slugs.pop(0) if meet.next_slugs else _slug())
    room: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "name": slug,
        "slug": slug,
        "access_level": level,
        "configuration": configuration,
        "_owner": owner,
    }
    if meet.room_base_url:
        room["url"] = f"{meet.room_base_url}/{slug}"
    if meet.telephony:
        room["telephony"] = {
            "enabled": True,
            "phone_number": "+33 1 85 14 90 00",
            "pin_code": "".join(random.choices(string.digits, k=10)) if pin == "auto" else pin,
            "default_country": "FR",
        }
    with meet._lock:
        meet.rooms[room["id"]] = room
    return room


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
