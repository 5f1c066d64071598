"""A team space's roster against the service's: the instructeurs not in its channel (with a button to
invite them), and the channel's members who are no instructeurs of it any more. Nobody is removed by
the bot: a channel's members are its people's to manage. On demand (`/dossier team <n> check`, and
the button), read again each time from the service and from Slack.
"""

from __future__ import annotations

from dataclasses import dataclass

from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement, SectionBlock
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.models import Members
from clients.team_spaces import TeamSpace
from domain.team.roster import Roster
from handlers.blocks import Message, mrkdwn, plain
from handlers.core.slack_refusals import attempted
from handlers.i18n import Mrkdwn, counted, text
from handlers.services import Services
from handlers.team import calls
from handlers.team.calls import Refused
from handlers.team.messages import ACTION_INVITE, scope_line
from handlers.team.setup import entitled


@dataclass(frozen=True)
class Drift:
    space: TeamSpace
    absent: list[str]  # Slack ids of instructeurs not in the channel
    gone: list[str]  # Slack ids of members who are no instructeurs of it (nor administrators of the démarche)
    no_account: list[str]  # instructeurs' addresses with no account in this workspace
    total: int


async def drift(services: Services, client: AsyncWebClient, team: str, email: str, lang: str, demarche: int,
                group: int | None) -> Drift | Message:
    """The roster's difference as it is now, or why it cannot be read (no space, no rights, a scope)."""
    assert services.team_spaces is not None
    space = await services.team_spaces.get(team, demarche, group)
    if space is None or not space.channel:
        return plain(text(lang, "team.no_space", number=demarche))
    found = await entitled(services, team, email, lang, demarche, group)
    if isinstance(found, Message):
        return found
    members, people = found
    try:
        accounts = await calls.look_up(client, people.instructeurs)
        heads = await calls.look_up(client, _heads(members, people))
        there = await calls.members(client, space.channel)
    except Refused as refused:
        reason = scope_line(lang, refused.needed) if refused.code == "missing_scope" else refused.code
        return plain(text(lang, "team.check_failed", reason=Mrkdwn(reason)))
    known = _found(accounts)
    staying = known | _found(heads) | {await _bot_id(client), space.by}
    return Drift(space, sorted(known - there), sorted(there - staying),
                 [address for address, account in accounts.items() if account is None], len(people.instructeurs))



def _heads(members: Members, people: Roster) -> tuple[str, ...]:
    """The démarche's administrators who are not its instructeurs: they belong in its team's channel
    too, never listed as gone."""
    instructeurs = {address.lower() for address in people.instructeurs}
    return tuple(p.email for p in members.administrateurs if p.email and p.email.lower() not in instructeurs)


def _found(accounts: dict[str, str | None]) -> set[str]:
    return {account for account in accounts.values() if account is not None}


async def _bot_id(client: AsyncWebClient) -> str:
    myself = await attempted(client.auth_test(), "reading the bot's id")
    return str(myself.get("user_id") or "") if myself is not None else ""


async def check(services: Services, client: AsyncWebClient, team: str, user: str, email: str, lang: str, demarche: int,
                group: int | None) -> Message:
    found = await drift(services, client, team, email, lang, demarche, group)
    if isinstance(found, Message):
        return found
    return drift_message(lang, found)


def drift_message(lang: str, found: Drift) -> Message:
    """The difference in words, with a button to invite those missing (never a button to remove)."""
    lines = [text(lang, "team.check_title", channel=Mrkdwn(f"<#{found.space.channel}>"))]
    if found.absent:
        lines.append(counted(lang, "team.check_absent", len(found.absent), people=_people(found.absent)))
    if found.gone:
        lines.append(counted(lang, "team.check_gone", len(found.gone), people=_people(found.gone)))
    if not found.absent and not found.gone:
        lines.append(text(lang, "team.check_same"))
    if found.no_account:
        lines.append(counted(lang, "team.no_account", len(found.no_account), total=found.total, emails=", ".join(found.no_account)))
    blocks: list[Block] = [SectionBlock(text=mrkdwn("\n".join(lines)))]
    if found.absent:
        blocks.append(ActionsBlock(elements=[ButtonElement(text=text(lang, "team.invite_button"), action_id=ACTION_INVITE,
                                                           value=found.space.place, style="primary")]))
    return Message(text=lines[0], blocks=blocks)


async def invite_absent(services: Services, client: AsyncWebClient, team: str, email: str, lang: str, demarche: int,
                        group: int | None) -> Message:
    """The button: the difference read again (never taken from the button), those missing invited."""
    found = await drift(services, client, team, email, lang, demarche, group)
    if isinstance(found, Message):
        return found
    try:
        came = await calls.invite(client, found.space.channel, found.absent)
    except Refused as refused:
        reason = scope_line(lang, refused.needed) if refused.code == "missing_scope" else refused.code
        return plain(text(lang, "team.check_failed", reason=Mrkdwn(reason)))
    return plain(counted(lang, "team.invited", came))


def _people(ids: list[str]) -> Mrkdwn:
    return Mrkdwn(", ".join(f"<@{user}>" for user in ids[:60]))


