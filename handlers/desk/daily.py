"""`/dossier daily 08:30` (`off`; alone: what is set): a personal DM at the hour the person chose, in
their own zone, of what awaits them today in the démarches they watch — late dossiers, SVA/SVR dates
within 7 days or past, applicants awaiting an answer (the lines of Home's "My dossiers", `mine.py`),
and, read when the DM is made (one request a démarche), corrections received in the last day and
dossiers followed by nobody — grouped by démarche, with each dossier's card button. Nothing is sent
on a day with nothing.

The scheduler asks every poll which DMs are due; whichever process takes a person's lease for the
day sends it, and marks the day sent once it went: once a day per person, across processes, and
again (after the lease's minutes) when the process sending it died midway.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from slack_sdk.models.blocks import ActionsBlock, Block, SectionBlock

from clients.dossiers.choices import Daily
from clients.dossiers.news_kinds import Level
from domain.dossiers.hearing import daily_day
from domain.rooms.meeting_times import zone_named
from handlers.blocks import MAX_BLOCKS, Message, header, mrkdwn, plain
from handlers.core import grammar
from handlers.core.dossier_links import open_button
from handlers.core.slack_refusals import attempted
from handlers.desk.hearing import read_level
from handlers.desk.mine import MOST_BUTTONS, needs_line
from handlers.i18n import clock, quoted, text
from handlers.on_behalf import Asker
from handlers.profiles import ProfileProblem, language_of, load_profile, usable_email
from handlers.services import Services

MOST_DEMARCHES = 20  # in one DM (two blocks each)


async def set_daily(services: Services, asker: Asker, lang: str, tz: str | None, words: list[str], now: dt.datetime) -> Message:
    """`daily 08:30`, `daily off`, or `daily` (what is set)."""
    hours = services.hours
    team, user = asker.team_id, asker.user_id
    if len(words) == 1 and read_level(words[0]) is Level.OFF:
        await hours.set_daily(team, user, None)
        return plain(text(lang, "daily.off"))
    if not words:
        daily = await hours.daily(team, user)
        return plain(text(lang, "daily.is", at=clock(lang, daily.at)) if daily else text(lang, "daily.none"))
    found = grammar_time(words)
    if found is None:
        return plain(text(lang, "daily.unread", words=quoted(" ".join(words), 60)))
    daily = Daily(found, str(zone_named(tz, services.zone)))
    await hours.set_daily(team, user, daily)
    today = daily_day(now, daily, zone_named(daily.zone, services.zone))
    if today is not None:  # the hour has passed today: the first DM comes tomorrow
        await hours.daily_done(team, user, today)
    lines = [text(lang, "daily.is", at=clock(lang, found))]
    if not await services.watches.of(team, user):
        lines.append(text(lang, "daily.no_watch"))
    return plain("\n".join(lines))


def grammar_time(words: list[str]) -> dt.time | None:
    found = grammar.clock_time(words)
    return found[0] if found is not None and found[1] == len(words) else None


@dataclass
class DailyDMs:
    """For the scheduler: each person's daily DM, once their hour has come in their zone."""

    services: Services

    async def due(self, now: dt.datetime) -> list[tuple[str, Callable[[], Awaitable[object]]]]:
        hours = self.services.hours
        come = [(team, user, day) for (team, user), daily in (await hours.dailies()).items()
                if (day := daily_day(now, daily, zone_named(daily.zone, self.services.zone))) is not None]
        return [(f"daily DM {team}/{user}", functools.partial(self.send, team, user, day))
                for team, user, day in (await hours.unsent(come) if come else [])]

    async def send(self, team: str, user: str, day: dt.date) -> bool:
        """Sends the person's DM of `day` if this process holds its lease; whether one went."""
        hours = self.services.hours
        if not await hours.daily_lease(team, user, day):
            return False
        client = await self.services.workspaces.client(team)
        if client is None:  # the app left the workspace: nothing to send today
            await hours.daily_done(team, user, day)
            return False
        try:
            profile = await load_profile(client, self.services.profiles, team, user, fresh=True)
            email = usable_email(profile)
        except ProfileProblem:
            await hours.daily_done(team, user, day)
            return False
        daily = await hours.daily(team, user)
        if daily is not None and profile.tz and profile.tz != daily.zone:  # they moved: their hour follows them
            await hours.set_daily(team, user, Daily(daily.at, profile.tz))
        lang = language_of(profile, self.services.default_language)
        watched = await self.services.watches.of(team, user) or []
        message = None if profile.deleted else await self.message(team, email, lang, watched, dt.datetime.now(dt.UTC))
        sent = message is not None and await attempted(client.chat_postMessage(channel=user, unfurl_links=False,
                                                                                 **message.payload()),
                                                       "sending a daily DM") is not None
        await hours.daily_done(team, user, day)
        return sent

    async def message(self, team: str, email: str, lang: str, watched: list[int], now: dt.datetime) -> Message | None:
        """What awaits the person today, démarche by démarche; None on a day with nothing."""
        account = await self.services.accounts.for_team(team)
        if account is None or self.services.digests is None:
            return None
        blocks: list[Block] = [header(text(lang, "daily.title"))]
        for number in watched[:MOST_DEMARCHES]:
            found = await needs_line(self.services, account, number, email, lang, self.services.digests.late_days, now)
            if found is None or not found[1]:
                continue
            line, numbers = found
            blocks += [SectionBlock(text=mrkdwn(line)), ActionsBlock(elements=[open_button(lang, n) for n in numbers[:MOST_BUTTONS]])]
        if len(blocks) == 1:
            return None
        assert len(blocks) <= MAX_BLOCKS
        return Message(text=text(lang, "daily.title"), blocks=blocks)
