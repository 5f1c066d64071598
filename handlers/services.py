"""What the listeners need from the rest of the bot, handed over once at wiring time."""

from __future__ import annotations

from dataclasses import dataclass

from clients.json_cache import JsonCache
from clients.once import Once
from clients.rooms.user_rooms import UserRooms
from handlers.digest.job import DigestJob


@dataclass(frozen=True)
class Services:
    rooms: UserRooms
    profiles: JsonCache
    once: Once
    default_language: str
    # Where people sign in to the room service, and where links point when the service gives none.
    room_site: str
    # the digest job, when a dossier-service token is configured
    digests: DigestJob | None = None
