"""What the app does when a workspace or an organisation removes it, or changes what it reaches.

`app_uninstalled` and `tokens_revoked` (its bot token): the installation goes, and with it
everything the bot keeps of the workspace (or of each workspace the organisation's install
served): subscriptions, planned meetings, cached profiles, its dossier-service token. Nothing of
it is used again — its token is refused by Slack from now on anyway. `tokens_revoked` for
people's tokens only removes their own grants. `team_access_granted` / `team_access_revoked`: an
organisation's administrators added or removed workspaces of its organisation-wide install.

Which installation an event is about comes from Slack's grant (`authorizations[0]`, which Bolt
reads into the context), never from the top-level fields, which name the one workspace where the
event happened (slack-platform.md §13).

Reminders already handed to Slack (`chat.scheduleMessage`) cannot be withdrawn any more: the
token that scheduled them is the one just revoked.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext

from handlers.dedupe import first_delivery
from handlers.services import Services

log = logging.getLogger(__name__)


def register(app: AsyncApp, services: Services) -> None:
    async def removed(body: dict[str, Any], event: dict[str, Any], context: AsyncBoltContext) -> None:
        if not await first_delivery(services, body):
            return
        enterprise, team = context.enterprise_id, None if context.is_enterprise_install else context.team_id
        tokens = event.get("tokens") or {}
        if event.get("type") == "tokens_revoked" and not tokens.get("bot"):
            people = [str(user) for user in tokens.get("oauth") or []][:1000]
            await services.workspaces.people_revoked(enterprise, team, people)
            log.info("people's tokens revoked in %s: %d grant(s) removed, the bot stays", team or enterprise, len(people))
            return
        teams, removed_keys = await services.workspaces.forget(enterprise, team)
        log.info("app removed from %s (%s): %d workspace(s) forgotten, %d keys removed",
                 team or enterprise, event.get("type"), len(teams), removed_keys)

    async def access_changed(body: dict[str, Any], event: dict[str, Any], context: AsyncBoltContext) -> None:
        if not context.enterprise_id or not await first_delivery(services, body):
            return
        teams = [str(team) for team in event.get("team_ids") or [] if str(team).isalnum()][:10_000]
        if event.get("type") == "team_access_granted":
            await services.workspaces.joined(context.enterprise_id, teams)
            log.info("organisation %s: %d workspace(s) added to its install", context.enterprise_id, len(teams))
            return
        forgotten, removed_keys = await services.workspaces.left(context.enterprise_id, teams)
        log.info("organisation %s: %d workspace(s) removed from its install, %d forgotten, %d keys removed",
                 context.enterprise_id, len(teams), len(forgotten), removed_keys)

    app.event("app_uninstalled")(removed)
    app.event("tokens_revoked")(removed)
    app.event("team_access_granted")(access_changed)
    app.event("team_access_revoked")(access_changed)
