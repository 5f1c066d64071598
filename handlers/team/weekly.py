"""Once a week, each team space's setter hears of its roster's drift by direct message (when there is
any): the instructeurs not in the channel, with a button to invite them, and the members who are no
instructeurs of it any more. One process sends it (a week's claim per space, in Redis); the setter's
rights are read again first, and a setter who no longer works on the démarche hears nothing."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from clients.team_spaces import TeamSpace
from handlers.blocks import Message
from handlers.core.slack_refusals import attempted
from handlers.profiles import ProfileProblem, language_of, load_profile, usable_email
from handlers.services import Services
from handlers.team.drift import drift, drift_message
from handlers.team.setup import WEEK


@dataclass(frozen=True)
class RosterWeek:
    """For the scheduler: the spaces whose week is up, each compared and told once."""

    services: Services

    async def due(self, now: dt.datetime) -> list[tuple[str, Callable[[], Awaitable[object]]]]:
        if self.services.team_spaces is None:
            return []
        jobs: list[tuple[str, Callable[[], Awaitable[object]]]] = []
        for space in await self.services.team_spaces.all():
            if space.channel and space.by and await self.services.once.claim("team-roster", space.team, space.place, ttl=WEEK):
                jobs.append((f"team roster of n° {space.demarche} in {space.team}", self._job(space)))
        return jobs

    def _job(self, space: TeamSpace) -> Callable[[], Awaitable[object]]:
        return lambda: self.tell(space)

    async def tell(self, space: TeamSpace) -> bool:
        """Whether the setter was told of a drift."""
        client = await self.services.workspaces.client(space.team)
        if client is None:
            return False
        try:
            profile = await load_profile(client, self.services.profiles, space.team, space.by)
            email = usable_email(profile)
        except ProfileProblem:
            return False  # their account went, or has no e-mail: nobody to tell
        lang = language_of(profile, self.services.default_language)
        found = await drift(self.services, client, space.team, email, lang, space.demarche, space.group)
        if isinstance(found, Message) or not (found.absent or found.gone):
            return False  # no rights any more, nothing readable, or nothing changed
        told = await attempted(client.chat_postMessage(channel=space.by, **drift_message(lang, found).payload()),
                               "telling a team space's setter of its roster")
        return told is not None
