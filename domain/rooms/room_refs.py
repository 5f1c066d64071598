"""How people name a room — its id, its link (as typed or as Slack wraps it), or its slug — and
where it is joined."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from clients.rooms.models import Room, is_room_id

_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)+$")
MAX_SLUG = 64  # the service's are 12 characters (`abc-defg-hij`)


@dataclass(frozen=True)
class RoomRef:
    text: str  # what the person wrote, unwrapped
    room_id: str | None = None
    slug: str | None = None


def read_room_ref(raw: str) -> RoomRef | None:
    """`<url>`, `<url|label>`, a bare URL, a UUID or a slug; None when it is none of these."""
    ref = raw.strip().strip("<>").split("|")[0]
    candidate = ref
    if ref.lower().startswith(("http://", "https://")):
        candidate = urlsplit(ref).path.rstrip("/").rpartition("/")[2]
    if is_room_id(candidate):
        return RoomRef(ref, room_id=candidate.lower())
    if len(candidate) <= MAX_SLUG and _SLUG.match(candidate):
        return RoomRef(ref, slug=candidate)
    return None


def room_link(room: Room, site: str) -> str | None:
    """Where `room` is joined: the service's link, else one made on the room site from its slug."""
    return room.url or (f"{site.rstrip('/')}/{quote(room.slug)}" if site else None)
