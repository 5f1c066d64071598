"""Runs one piece of work on behalf of the Slack user who asked, and always answers them.

Every `/room` subcommand and room button goes through `reply_for`: it finds the person's
profile (e-mail and language), runs the work, and replies privately with the result or with
the explanation of what went wrong. Nothing escapes: the next command works normally.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from handlers.failures import COMMANDS, explain
from handlers.profiles import Profile, language_of, load_profile, usable_email
from handlers.room_messages import Message, plain
from handlers.services import Services

Work = Callable[[str, str], Awaitable[Message]]  # (e-mail, language) → reply


async def reply_for(
    services: Services,
    client: AsyncWebClient,
    respond: AsyncRespond,
    *,
    team_id: str,
    user_id: str,
    name: str,
    work: Work,
    ref: str | None = None,
    page: int = 1,
    needs_email: bool = True,
    replace_original: bool = False,
) -> None:
    profile: Profile | None = None
    email: str | None = None
    try:
        profile = await load_profile(client, services.profiles, team_id, user_id)
        email = usable_email(profile) if needs_email else ""
        message = await work(email, language_of(profile, services.default_language))
        outcome = "ok"
    except Exception as error:  # every failure becomes an answer; explain() logs the unexpected ones
        explained = explain(
            error,
            language_of(profile, services.default_language),
            email=email,
            ref=ref,
            site=services.room_site,
            page=page,
        )
        message, outcome = plain(explained.message), explained.outcome
    COMMANDS.labels(command=name, outcome=outcome).inc()
    await respond(**message.payload(response_type="ephemeral", replace_original=replace_original))
