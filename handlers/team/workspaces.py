"""Which workspace a team space set up from Home goes to. A space is one workspace's; on an
organisation-wide install Home is the organisation's, so the window asks the person to pick among the
workspaces the install was granted (`auth.teams.list`), and the pick is checked when submitted: the
workspace must be one the install serves now (listed again, never taken from the window), and the
person must have an account there (their Slack profile's e-mail, looked up in it), whose id becomes
the space's setter there."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from handlers.blocks import Message, plain
from handlers.i18n import text
from handlers.services import Services
from handlers.team import calls
from handlers.team.calls import Refused

#: a static select's most options, as Slack takes them
MOST = 100


@dataclass(frozen=True)
class Place:
    """Where a set-up goes: the workspace, its client, and the person's id there."""

    team: str
    client: AsyncWebClient
    user: str


def organisation_wide(body: dict[str, Any]) -> bool:
    return bool(body.get("is_enterprise_install"))


async def granted(client: AsyncWebClient) -> list[tuple[str, str]]:
    """The workspaces (id, name) an organisation's install serves, by pages; [] when Slack says none
    or refuses (the window then has no choice, and the click's workspace is used)."""
    found: list[tuple[str, str]] = []
    cursor = ""
    try:
        while len(found) < MOST:
            page = await calls.call(client.auth_teams_list(limit=MOST, cursor=cursor or None), "listing an organisation's workspaces")
            found += [(str(team["id"]), str(team.get("name") or team["id"])) for team in page.get("teams", []) if team.get("id")]
            cursor = str((page.get("response_metadata") or {}).get("next_cursor") or "")
            if not cursor:
                break
    except Refused:
        return []
    return found[:MOST]


async def place_of(services: Services, client: AsyncWebClient, clicked: str, picked: str | None, user: str, email: str,
                   lang: str) -> Place | Message:
    """The picked workspace when the install serves it and the person has an account there; the
    click's own when nothing else was picked; else why not, in words."""
    if not picked or picked == clicked:
        return Place(clicked, client, user)
    if picked not in {team for team, _ in await granted(client)}:
        return plain(text(lang, "team.workspace_not_granted"))
    there = await services.workspaces.client(picked)
    if there is None:
        return plain(text(lang, "team.workspace_not_granted"))
    try:
        found = await calls.call(there.users_lookupByEmail(email=email), "finding a person in the workspace they picked",
                                 expected=("users_not_found",))
    except Refused as refused:
        if refused.code == "users_not_found":
            return plain(text(lang, "team.workspace_not_yours"))
        return plain(text(lang, "team.workspace_not_granted"))
    return Place(picked, there, str(found["user"]["id"]))
