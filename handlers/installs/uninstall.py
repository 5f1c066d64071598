"""`app_uninstalled` and `tokens_revoked`: the workspace (or the whole organisation) removed the
app, or revoked its bot token. Its installation goes, and with it everything the bot keeps of
that workspace: subscriptions, planned meetings, cached profiles, its dossier-service token.
Nothing of it is used again — its token is refused by Slack from now on anyway.

Reminders already handed to Slack (`chat.scheduleMessage`) cannot be withdrawn any more: the
token that scheduled them is the one just revoked.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp

from handlers.dedupe import first_delivery
from handlers.services import Services

log = logging.getLogger(__name__)


def register(app: AsyncApp, services: Services) -> None:
    async def removed(body: dict[str, Any], event: dict[str, Any]) -> None:
        if event.get("type") == "tokens_revoked" and not (event.get("tokens") or {}).get("bot"):
            return  # only people's tokens: the app asks for none, its bot is untouched
        if not await first_delivery(services, body):
            return
        enterprise = body.get("enterprise_id") or None
        team = body.get("team_id") or None
        org = bool(body.get("is_enterprise_install"))
        teams, removed_keys = await services.workspaces.forget(enterprise, None if org else team)
        log.info("app removed from %s (%s): %d workspace(s) forgotten, %d keys removed",
                 enterprise if org else team, event.get("type"), len(teams), removed_keys)

    app.event("app_uninstalled")(removed)
    app.event("tokens_revoked")(removed)
