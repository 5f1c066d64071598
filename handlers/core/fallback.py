"""The last answer (Bolt's `app.error`): a listener that raised still tells its person, in words and in
their language, that something went wrong and what to quote; the operator gets one log line with the
same reference. Listeners answer their own failures (`on_behalf.run_for`); this is for what escaped."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from handlers.blocks import plain
from handlers.core.slack_refusals import attempted
from handlers.error_replies import COMMANDS, explain
from handlers.on_behalf import Asker, language_quickly, reply_privately, workspace_of
from handlers.services import Services

log = logging.getLogger(__name__)

#: what a person did (a command, a click, a window, a shortcut): worth an answer; an event is not
_DONE_BY_A_PERSON = frozenset({"block_actions", "view_submission", "shortcut", "message_action", "workflow_step_edit"})


def register(app: AsyncApp, services: Services) -> None:
    async def fallback(error: Exception, body: dict[str, Any], context: AsyncBoltContext,
                       response: BoltResponse | None) -> BoltResponse | None:
        asker = _asker(body)
        client: AsyncWebClient | None = context.client
        lang = services.default_language
        if asker is not None and client is not None:
            lang = await language_quickly(services, client, asker)
        explained = explain(error, lang, email=None, site=await services.rooms.site.origin())  # logs the unexpected, with a reference
        COMMANDS.labels(command=_name(body), outcome=explained.outcome).inc()
        if asker is not None and client is not None:
            message = plain(explained.message)
            if context.respond is not None:
                await reply_privately(client, context.respond, asker.user_id, message)
            else:
                await attempted(client.chat_postMessage(channel=asker.user_id, **message.payload()), "telling a person a request failed")
        # not acknowledged yet: acknowledge (an empty 200: a window closes, a command says nothing more)
        return BoltResponse(status=200, body="") if response is not None else None

    app.error(fallback)


def _asker(body: dict[str, Any]) -> Asker | None:
    if body.get("command") and body.get("user_id"):
        return Asker(workspace_of(body), str(body["user_id"]))
    user = body.get("user")
    if body.get("type") in _DONE_BY_A_PERSON and isinstance(user, dict) and user.get("id"):
        return Asker(workspace_of(body), str(user["id"]))
    return None


def _name(body: dict[str, Any]) -> str:
    return str(body.get("command") or body.get("type") or (body.get("event") or {}).get("type") or "unknown")[:40]
