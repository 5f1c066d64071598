"""What the listeners need from the rest of the bot, handed over once at wiring time."""

from __future__ import annotations

from dataclasses import dataclass

from clients.json_cache import JsonCache
from clients.meetings import Meetings
from clients.once import Once
from clients.rooms.user_rooms import UserRooms
from handlers.digest.job import DigestJob
from handlers.workspaces import Workspaces


@dataclass(frozen=True)
class Services:
    rooms: UserRooms
    profiles: JsonCache
    once: Once
    default_language: str
    # Where people sign in to the room service, and where links point when the service gives none.
    room_site: str
    # planned rooms: what the bot keeps of them, how long before the start reminders come, and the
    # time zone of whoever has none in Slack (DIGEST_TIMEZONE)
    meetings: Meetings
    reminder_minutes: int
    zone: str
    # each workspace's Slack client outside requests, and what an uninstall removes
    workspaces: Workspaces
    # the digest job, when a dossier-service token is configured
    digests: DigestJob | None = None
    # the dossier service's web host (from DS_API_URL): its dossier links get previews
    dossier_host: str | None = None
