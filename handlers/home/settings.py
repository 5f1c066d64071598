"""Home's Settings, for workspace administrators when the bot serves many workspaces: which
dossier-service token reads for this workspace, and a way to give, replace or remove its own.

A token is tried on the service before it is kept (within the 3 s Slack gives a modal's answer),
kept sealed, and never shown again; whether the person is an administrator is asked of Slack
again when they submit or remove, never taken from the view.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from typing import Any

from pydantic import SecretStr
from redis.exceptions import RedisError
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from handlers.blocks import plain, view_input
from handlers.core.slack_refusals import attempted
from handlers.home.settings_view import (
    CHECK_SECONDS,
    MAX_TOKEN,
    REMOVE_TOKEN,
    SET_TOKEN,
    TOKEN_INPUT,
    TOKEN_MODAL,
    accounts_of,
    token_modal,
)
from handlers.home.tab import publish_home
from handlers.i18n import text
from handlers.on_behalf import language_quickly, who
from handlers.services import Services

log = logging.getLogger(__name__)


def register(app: AsyncApp, services: Services) -> None:
    async def give(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        lang = await language_quickly(services, client, who(body))
        await attempted(client.views_open(trigger_id=body["trigger_id"], view=token_modal(lang)), "opening the token window")

    async def submitted(ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient) -> None:
        asker = who(body)
        # everything before the answer runs side by side: Slack waits 3 s for it, network included
        language = asyncio.ensure_future(language_quickly(services, client, asker))
        token = str(view_input(view, TOKEN_INPUT).get("value") or "").strip()
        accounts = accounts_of(services)
        if not _well_formed(token) or accounts is None:
            await ack(response_action="errors", errors={TOKEN_INPUT: text(await language, "settings.malformed")})
            return
        try:
            admin, refused = await asyncio.wait_for(
                asyncio.gather(_admin_now(client, asker.user_id), accounts.probe(SecretStr(token))), CHECK_SECONDS)
        except TimeoutError:
            await ack(response_action="errors", errors={TOKEN_INPUT: text(await language, "settings.too_slow")})
            return
        lang = await language
        problem = None if admin else text(lang, "settings.not_admin")
        if admin and refused is not None:
            problem = text(lang, "settings.refused", reason=text(lang, f"digest.reason.{refused}"))
        if problem is None:
            try:
                await accounts.tokens.keep(asker.team_id, SecretStr(token), asker.user_id, dt.datetime.now(dt.UTC))
            except RedisError:
                problem = text(lang, "settings.unavailable")
        if problem is not None:
            await ack(response_action="errors", errors={TOKEN_INPUT: problem})
            return
        await ack()
        log.info("workspace %s was given its own dossier-service token", asker.team_id)
        await publish_home(services, client, asker, said=plain(text(lang, "settings.kept")))

    async def remove(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)
        lang = await language_quickly(services, client, asker)
        accounts = accounts_of(services)
        if accounts is None:
            return
        if not await _admin_now(client, asker.user_id):
            said = text(lang, "settings.not_admin")
        elif await accounts.tokens.remove(asker.team_id):
            log.info("workspace %s removed its own dossier-service token", asker.team_id)
            said = text(lang, "settings.removed")
        else:
            return  # a second click: the first removed it and said so
        await publish_home(services, client, asker, said=plain(said))

    app.action(SET_TOKEN)(give)
    app.view(TOKEN_MODAL)(submitted)
    app.action(REMOVE_TOKEN)(remove)


async def _admin_now(client: AsyncWebClient, user: str) -> bool:
    """Asked of Slack, not of the profile cache: a demoted administrator changes nothing."""
    answer = await attempted(client.users_info(user=user), "reading whether a person is an administrator")
    found = (answer.get("user") or {}) if answer is not None else {}
    return bool(found.get("is_admin") or found.get("is_owner"))


def _well_formed(token: str) -> bool:
    """A token as the service makes them: some printable characters, no space, not too many."""
    return 0 < len(token) <= MAX_TOKEN and not any(c.isspace() or not c.isprintable() for c in token)
