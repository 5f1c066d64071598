"""Bodies of the room service (La Suite Meet external API), parsed tolerantly.

The real server differs from its published description: `scope` may be absent from the token
reply, `url` and `telephony` are optional, `pin_code` may be null and has 10 digits, not 6.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from pydantic import Field, SecretStr, field_validator

from clients.tolerant import Tolerant

#: The server ignores `page_size` and always pages by this many rooms.
SERVICE_PAGE_SIZE = 20

_PATH_SAFE = "/:@!$&'()*+,;=-._~%"
#: a link already in the form `_one_slash` gives (the service's usual `https://host/slug`): kept as it
#: is, without taking it apart and putting it together again (4 µs a room of a list)
_NORMAL_LINK = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[A-Za-z0-9._~-]+)*/?")
_ROOM_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)


def is_room_id(value: str) -> bool:
    """Room ids are UUIDs (a slug is not an id: the service has no lookup by slug)."""
    return bool(_ROOM_ID.match(value))


class AccessLevel(StrEnum):
    PUBLIC = "public"
    TRUSTED = "trusted"
    RESTRICTED = "restricted"


#: What a room's `configuration.can_publish_sources` may hold (the service's `RoomConfiguration`).
PUBLISH_SOURCES = ("camera", "microphone", "screen_share", "screen_share_audio")


class TokenGrant(Tolerant):
    access_token: SecretStr
    token_type: str = "Bearer"
    expires_in: int = Field(default=3600, gt=0)
    scope: str | None = None


class Telephony(Tolerant):
    enabled: bool = False
    phone_number: str | None = None
    pin_code: str | None = None
    default_country: str | None = None

    @property
    def dial_in(self) -> bool:
        return self.enabled and bool(self.phone_number)


class Room(Tolerant):
    id: str
    slug: str
    name: str | None = None
    access_level: str = AccessLevel.TRUSTED
    configuration: dict[str, Any] = Field(default_factory=dict)
    url: str | None = None
    telephony: Telephony | None = None

    @field_validator("url")
    @classmethod
    def _one_slash(cls, url: str | None) -> str | None:
        """The service joins `APPLICATION_BASE_URL + "/" + slug` as is: `https://host//slug` when
        the base ends in `/`. Every link the bot shows is the same normal one, with any character a
        URL may not hold (`<`, `>`, spaces) percent-encoded."""
        if not url:
            return None
        if _NORMAL_LINK.fullmatch(url):
            return url
        parts = urlsplit(url)
        return urlunsplit(parts._replace(path=quote(re.sub("/{2,}", "/", parts.path), safe=_PATH_SAFE)))


class RoomPage(Tolerant):
    count: int
    next: str | None = None
    previous: str | None = None
    results: list[Room]

    def page_size(self) -> int:
        """The size the server really used: only a page with a successor shows it."""
        return len(self.results) if self.next and self.results else SERVICE_PAGE_SIZE
