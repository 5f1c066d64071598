"""What the listeners need from the rest of the bot, handed over once at wiring time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.choices import ChoiceStore, PersonHours
from clients.dossiers.subscriptions import Subscriptions
from clients.dossiers.watch import Watches
from clients.json_cache import JsonCache
from clients.meetings import Meetings
from clients.once import Once
from clients.person_erasure import PersonalData
from clients.rooms.user_rooms import UserRooms
from clients.team_spaces import TeamSpaces
from domain.dossiers.accounts import WorkspaceAccounts
from handlers.blocks import Message
from handlers.workspace_access import Workspaces

#: a section a feature adds to a person's Home tab: its blocks for (team, user, e-mail, language)
HomeSection = Callable[[str, str, str, str], Awaitable[list[Block]]]
#: a `/dossier` verb another feature answers (`team`): its reply to (client, the command as Slack sent it, the
#: words after the verb, the person's e-mail, their language); the desk reads the verb, the feature the rest
DeskVerb = Callable[[AsyncWebClient, dict[str, Any], list[str], str, str], Awaitable[Message]]
#: a window another feature may open (the new-room window, for a channel): its view for (language, channel)
Window = Callable[[str, str], Awaitable[View]]
#: the new-room window's name among `Services.windows`
ROOM_WINDOW = "new_room"
#: publishes a person's Home tab again, with a line saying what a button just did
HomeRefresh = Callable[[AsyncWebClient, str, str, Message | None], Awaitable[None]]


class Dossiers(Protocol):
    """What features other than the digest use of the digest job: what channels follow, and after
    how many days a dossier waits too long (which token reads for a workspace is `Services.accounts`)."""

    @property
    def subscriptions(self) -> Subscriptions: ...

    @property
    def late_days(self) -> int: ...


@dataclass
class Home:
    """How features meet on the Home tab without importing one another: each adds its section at
    registration; the Home feature registers how it is published again."""

    sections: list[HomeSection] = field(default_factory=list)
    refresh: HomeRefresh | None = None


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
    # what a window needs once submitted: the message it was opened from (to replace it)
    views: JsonCache
    # who watches which démarches (`/dossier watch`), and how often they are read (DS_WATCH_SECONDS)
    watches: Watches
    watch_seconds: int
    # what each person chose to hear of it (levels per démarche and kind), and when (quiet hours, snooze, daily DM)
    choices: ChoiceStore
    hours: PersonHours
    # what the bot keeps of each person, for them to see and erase (`/room forget me`)
    personal: PersonalData
    home: Home = field(default_factory=Home)
    # the `/dossier` verbs other features answer, added at their registration (the desk imports none of them)
    desk_verbs: dict[str, DeskVerb] = field(default_factory=dict)
    # windows a feature opens for another, by callback id (the new-room window, opened by a team space)
    windows: dict[str, Window] = field(default_factory=dict)
    # each workspace's team spaces (`/dossier team`): what each set-up made, for the next run to complete
    team_spaces: TeamSpaces | None = None
    # the digest job, when a dossier-service token is configured: what channels follow, and late days
    digests: Dossiers | None = None
    # which dossier-service token reads and acts for a workspace (the desk, the watch, previews, Home)
    accounts: WorkspaceAccounts = field(default_factory=lambda: WorkspaceAccounts(None))
    # the dossier service's web origin (from DS_API_URL): its dossier links get previews, cards link there
    dossier_site: str | None = None
