"""`/dossier team <démarche> [group <n>] [at HH:MM] [here]`: a démarche's (or a group's) team space set
up, or completed — its channel, its digest, its standing room posted and pinned, its instructeurs
invited.

Safe to repeat: what each step made is saved the moment it is (clients/team_spaces.py), so a second
run finds it and does only what is left, and two runs at once are one (a claim on the space while it
is set up). A step that fails (the room service down, a scope the install lacks) is said, the steps
that need nothing of it still run, and running the command again completes the space.

Rights are read from the person's Slack profile and the service's lists as they are now: at the start
of each run, and again before the invitations, the step that acts for the person on others, which
comes after the slow ones (the room, the look-ups): rights lost meanwhile invite nobody, and an
instructeur who left the roster meanwhile is not invited. The digest step reads nothing again: it
only makes the channel follow the démarche, and each day's digest reads its setter's rights before it
posts anything (handlers/digest/job.py); the channel and the room hold nothing of the démarche.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass, field, replace
from zoneinfo import ZoneInfo

from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.errors import DemarcheForbidden, DemarcheNotFound, DossierServiceError
from clients.dossiers.models import Members
from clients.dossiers.subscriptions import Subscription
from clients.rooms.models import AccessLevel
from clients.team_spaces import TeamSpace, TeamSpaces
from domain.dossiers.schedule import first_day
from domain.rooms.room_refs import room_link
from domain.team.names import channel_name
from domain.team.roster import NoSuchGroup, Roster, may_set_up, roster
from handlers.blocks import Message, plain
from handlers.core.slack_refusals import attempted
from handlers.error_replies import dossier_reason, explain
from handlers.i18n import Mrkdwn, clock, counted, text
from handlers.services import Services
from handlers.team import calls
from handlers.team.calls import Refused
from handlers.team.messages import scope_line, space_name, team_room_message

#: how long one person's set-up holds the space against a second run (a double click)
SETTING_UP = 120
#: a space's roster is compared once in this many seconds (handlers/team/weekly.py)
WEEK = 7 * 86400


@dataclass(frozen=True)
class Ask:
    demarche: int
    group: int | None = None
    at: dt.time | None = None
    here: bool = False  # adopt the channel the command was typed in
    typed_in: str = ""


@dataclass
class Report:
    """What a run did, what it could not, and what only the person may read (addresses)."""

    done: list[str] = field(default_factory=list)
    not_done: list[str] = field(default_factory=list)
    private: list[str] = field(default_factory=list)


async def read_members(services: Services, team: str, demarche: int, lang: str) -> Members | Message:
    """The démarche's people as the service lists them now, or why they cannot be read."""
    account = await services.accounts.for_team(team)
    if account is None or services.digests is None:
        return plain(text(lang, "desk.no_token"))
    try:
        return await account.access.people(demarche)
    except DemarcheNotFound:
        return plain(text(lang, "team.unknown", number=demarche))
    except DemarcheForbidden:
        return plain(text(lang, "team.forbidden", number=demarche))
    except DossierServiceError as error:
        return plain(text(lang, "team.unchecked", number=demarche, reason=dossier_reason(lang, error)))


async def entitled(services: Services, team: str, email: str, lang: str, demarche: int, group: int | None
                   ) -> tuple[Members, Roster] | Message:
    """The démarche's people and the space's roster when the person may set it up; else why not."""
    members = await read_members(services, team, demarche, lang)
    if isinstance(members, Message):
        return members
    try:
        people = roster(members, group)
    except NoSuchGroup as missing:
        return plain(text(lang, "team.no_group", number=demarche, group=missing.group,
                          groups=", ".join(str(g) for g in missing.groups) or "—"))
    if not may_set_up(members, email, group):
        return plain(text(lang, "team.not_allowed_group" if group is not None else "team.not_allowed", number=demarche))
    return members, people


async def set_up(services: Services, client: AsyncWebClient, team: str, user: str, email: str, lang: str, ask: Ask) -> Message:
    assert services.team_spaces is not None
    holder = await services.once.claim_as("team-setup", team, str(ask.demarche), str(ask.group), holder=user, ttl=SETTING_UP)
    if holder is not None:
        return plain(text(lang, "team.busy", person=Mrkdwn(f"<@{holder}>") if holder else text(lang, "team.someone")))
    try:
        return await _set_up(services, services.team_spaces, client, team, user, email, lang, ask)
    finally:
        await services.once.release_held("team-setup", team, str(ask.demarche), str(ask.group), holder=user)


async def _set_up(services: Services, spaces: TeamSpaces, client: AsyncWebClient, team: str, user: str, email: str,
                  lang: str, ask: Ask) -> Message:
    found = await entitled(services, team, email, lang, ask.demarche, ask.group)
    if isinstance(found, Message):
        return found
    _, people = found
    space = await spaces.get(team, ask.demarche, ask.group) or TeamSpace(team, ask.demarche, ask.group)
    space = replace(space, by=user, at=(ask.at or dt.time.fromisoformat(space.at)).strftime("%H:%M"))
    report = Report()
    space = await _channel(client, spaces, space, people, ask, lang, report)
    if space.channel:
        space = await _digest(services, client, spaces, space, user, lang, report, moved=ask.at is not None)
        # the look-ups (50 people: 0.5 s at 100 ms a call, 10 at a time) go while the room is made and pinned
        space, accounts = await asyncio.gather(_room(services, client, spaces, space, people, email, lang, report),
                                               _lookups(client, people, lang, report))
        # the invitations act for the person: their rights, and the roster, read again after the slow steps
        again = await entitled(services, team, email, lang, ask.demarche, ask.group)
        if isinstance(again, Message):
            report.not_done.append(text(lang, "team.step_invite_rights", reason=Mrkdwn(again.text)))
        else:
            await _invite(client, space, user, again[1], accounts, lang, report)
    await spaces.save(space)
    await start_week(services, space)
    return _answer(lang, ask, people, space, report)


async def _channel(client: AsyncWebClient, spaces: TeamSpaces, space: TeamSpace, people: Roster, ask: Ask, lang: str,
                   report: Report) -> TeamSpace:
    if space.channel and not (ask.here and ask.typed_in != space.channel):
        gone = await calls.channel_state(client, space.channel)
        if gone is None:
            report.done.append(text(lang, "team.channel_kept", channel=Mrkdwn(f"<#{space.channel}>")))
            return space
        space = replace(space, channel="", posted="", pinned=False, digest=False)  # archived or deleted: made anew
    if ask.here:
        refused = await calls.channel_state(client, ask.typed_in)
        if refused is not None:
            report.not_done.append(text(lang, "team.cannot_adopt", reason=text(lang, "team.reason_channel")))
            return space
        space = replace(space, channel=ask.typed_in, posted="", pinned=False, digest=False, since=_today())
        report.done.append(text(lang, "team.channel_adopted", channel=Mrkdwn(f"<#{space.channel}>")))
    else:
        named = space

        async def asking(name: str) -> None:  # saved before Slack is asked: a stop before the answer is saved loses nothing
            nonlocal named
            named = await _saved(spaces, replace(named, naming=name))

        try:
            made, name = await calls.create_channel(client, channel_name(ask.demarche, people.title, people.group_label),
                                                    asked=space.naming, asking=asking)
        except Refused as refused:
            report.not_done.append(_refusal(lang, "team.step_channel", refused))
            return named
        space = replace(space, channel=made, naming=name, posted="", pinned=False, digest=False, since=_today())
        report.done.append(text(lang, "team.channel_made", channel=Mrkdwn(f"<#{made}>")))
    await spaces.save(space)
    return space


async def _digest(services: Services, client: AsyncWebClient, spaces: TeamSpaces, space: TeamSpace, user: str, lang: str,
                  report: Report, *, moved: bool) -> TeamSpace:
    """The channel follows the démarche (the group) in its digest, at the space's hour."""
    assert services.digests is not None
    subscriptions = services.digests.subscriptions
    at = dt.time.fromisoformat(space.at)
    current = await subscriptions.get(space.team, space.channel)
    followed = current is not None and _follows(current, space)
    if current is not None and followed and (not moved or current.at == at or not _alone(current, space)):
        report.done.append(text(lang, "team.digest_kept", time=clock(lang, current.at)))
        return await _saved(spaces, replace(space, digest=True))
    subscription = current or Subscription(space.channel, (), at, team=space.team)
    if current is not None and followed:
        subscription = replace(subscription, at=at)
    else:
        subscription = subscription.without({space.demarche}).follow(space.demarche, user, space.group)
    subscription = replace(subscription, paused=None, since=first_day(dt.datetime.now(dt.UTC), subscription.at, ZoneInfo(services.zone)))
    await subscriptions.save(subscription)
    report.done.append(text(lang, "team.digest_set", time=clock(lang, subscription.at)))
    await attempted(client.chat_postMessage(channel=space.channel, **plain(text(
        lang, "team.digest_announce", person=Mrkdwn(f"<@{user}>"), number=space.demarche, time=clock(lang, subscription.at))).payload()),
        "announcing a team space's digest")
    return await _saved(spaces, replace(space, digest=True))



def _follows(subscription: Subscription, space: TeamSpace) -> bool:
    return any(f.demarche == space.demarche and f.group == space.group and not f.lapsed for f in subscription.follows)


def _alone(subscription: Subscription, space: TeamSpace) -> bool:
    """The hour is the channel's: moved only when the channel follows nothing else (whose people were not asked)."""
    return all(f.demarche == space.demarche for f in subscription.follows)


async def _room(services: Services, client: AsyncWebClient, spaces: TeamSpaces, space: TeamSpace, people: Roster, email: str,
                lang: str, report: Report) -> TeamSpace:
    """The standing room: made once (restricted, owned by the person), posted once, pinned once."""
    if space.room and space.posted and space.pinned:
        report.done.append(text(lang, "team.room_kept"))
        return space
    if not space.room:
        try:
            room = await services.rooms.create(email, AccessLevel.RESTRICTED)
        except Exception as error:  # the room service's refusals, in words; the other steps go on
            explained = explain(error, lang, email=email, site=await services.rooms.site.origin())
            report.not_done.append(text(lang, "team.step_room", reason=Mrkdwn(explained.message)))
            return space
        space = await _saved(spaces, replace(space, room=room.id, link=room_link(room, services.room_site) or "", slug=room.slug))
        report.done.append(text(lang, "team.room_made"))
    if not space.posted:
        try:
            posted = await calls.call(client.chat_postMessage(channel=space.channel, **team_room_message(lang, space, people).payload()),
                                      "posting a team's room")
        except Refused as refused:
            report.not_done.append(_refusal(lang, "team.step_post", refused))
            return space
        space = await _saved(spaces, replace(space, posted=str(posted["ts"])))
    if not space.pinned:
        try:
            await calls.pin(client, space.channel, space.posted)
        except Refused as refused:
            report.not_done.append(_refusal(lang, "team.step_pin", refused))
            return space
        space = await _saved(spaces, replace(space, pinned=True))
        report.done.append(text(lang, "team.room_pinned"))
    return space


async def _lookups(client: AsyncWebClient, people: Roster, lang: str, report: Report) -> dict[str, str | None] | None:
    try:
        return await calls.look_up(client, people.instructeurs)
    except Refused as refused:
        report.not_done.append(_refusal(lang, "team.step_lookup", refused))
        return None


async def _invite(client: AsyncWebClient, space: TeamSpace, user: str, people: Roster, found: dict[str, str | None] | None,
                  lang: str, report: Report) -> None:
    """Invites the instructeurs who have an account here (and the person); tells the person alone who has none."""
    if found is None:
        return
    found = {email: account for email, account in found.items() if email in people.instructeurs}  # who still is one
    missing = [email for email, account in found.items() if account is None]
    wanted = {account for account in found.values() if account is not None} | {user}
    try:
        there = await calls.members(client, space.channel)
        came = await calls.invite(client, space.channel, sorted(wanted - there))
    except Refused as refused:
        report.not_done.append(_refusal(lang, "team.step_invite", refused))
        came = -1
    if came == 0:
        report.done.append(text(lang, "team.invited_none"))
    elif came > 0:
        report.done.append(counted(lang, "team.invited", came))
    if missing:
        report.private.append(counted(lang, "team.no_account", len(missing), total=len(people.instructeurs),
                                      emails=", ".join(missing)))


def _answer(lang: str, ask: Ask, people: Roster, space: TeamSpace, report: Report) -> Message:
    name = Mrkdwn(space_name(lang, ask.demarche, people))  # escaped once, by space_name
    title = text(lang, "team.done_title" if not report.not_done else "team.partly_title", space=name)
    lines = [title, *(f"• {line}" for line in report.done)]
    if report.not_done:
        lines += [text(lang, "team.not_done"), *(f"• {line}" for line in report.not_done), text(lang, "team.run_again")]
    lines += report.private
    return plain("\n".join(lines))


async def start_week(services: Services, space: TeamSpace) -> None:
    """A space just set up is not compared before a week has gone: its setter just saw it whole."""
    await services.once.claim("team-roster", space.team, space.place, ttl=WEEK)


def _refusal(lang: str, step: str, refused: Refused) -> str:
    """A step Slack refused, in words: the scope to add when that is why."""
    if refused.code == "missing_scope":
        return text(lang, step, reason=Mrkdwn(scope_line(lang, refused.needed)))
    return text(lang, step, reason=text(lang, f"team.refusal.{refused.code}") if refused.code in KNOWN else refused.code)


#: Slack's refusals a person may meet in a set-up, each in words (`team.refusal.<code>`)
KNOWN = ("name_taken", "restricted_action", "channel_not_found", "is_archived", "not_in_channel", "too_many_pins")


def _today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


async def _saved(spaces: TeamSpaces, space: TeamSpace) -> TeamSpace:
    await spaces.save(space)
    return space
