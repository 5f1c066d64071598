"""Runs one piece of work on behalf of the Slack user who asked, and always has an answer.

Every `/room` subcommand, room button and Home control goes through `run_for`: it finds the
person's profile (e-mail and language), runs the work, and gives back either its message or the
explanation of what went wrong. Nothing escapes: the next command works normally.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from handlers.blocks import Message, plain
from handlers.core.slack_refusals import attempted
from handlers.error_replies import COMMANDS, explain
from handlers.profiles import Profile, ProfileProblem, language_of, load_profile, profile_or_none, usable_email
from handlers.services import Services

log = logging.getLogger(__name__)

T = TypeVar("T")

Work = Callable[[str, str], Awaitable[Message | None]]  # (e-mail, language) → reply, or None when already answered


@dataclass(frozen=True)
class Asker:
    """Who is asking: the Slack workspace and person a piece of work is done for."""

    team_id: str
    user_id: str
    on_home: bool = False  # answers point to the Home tab's controls rather than to commands


def who(body: dict[str, Any]) -> Asker:
    """The person behind an interaction payload."""
    return Asker(team_id=workspace_of(body), user_id=body["user"]["id"])


def workspace_of(body: dict[str, Any]) -> str:
    """The workspace a request came from, in every shape Slack sends (slack-platform.md §13): an
    organisation-wide install's buttons and modals carry `"team": null`, the workspace being the
    person's (`user.team_id`) or the view's; commands and events name it at the top (`team_id`),
    while an event's `authorizations[0].team_id` is null for an organisation's grant."""
    team = body.get("team")
    if isinstance(team, dict) and team.get("id"):
        return str(team["id"])
    if isinstance(team, str) and team:
        return team
    for part in ("user", "view"):
        found = body.get(part)
        if isinstance(found, dict) and found.get("team_id"):
            return str(found["team_id"])
    return str(body.get("team_id") or "")


@dataclass(frozen=True)
class Attempt(Generic[T]):
    """What a piece of work gave back, or (`problem`) what went wrong in the person's words."""

    lang: str
    value: T | None
    problem: Message | None


async def attempt(
    services: Services,
    client: AsyncWebClient,
    asker: Asker,
    *,
    name: str,
    work: Callable[[str, str], Awaitable[T]],
    needs_email: bool = True,
    needs_profile: bool = True,
) -> Attempt[T]:
    """`work`'s result in the asker's language, or the explanation of what went wrong (the error
    carries its own context: the room or the page it was about). Work that needs nobody's profile
    (help, a list) is done in the default language when the profile cannot be read."""
    lang, email = services.default_language, None
    try:
        try:
            profile: Profile | None = await load_profile(client, services.profiles, asker.team_id, asker.user_id)
        except ProfileProblem:
            if needs_profile:
                raise
            profile = None
        lang = language_of(profile, services.default_language)
        email = usable_email(profile) if needs_email and profile is not None else ""
        value = await work(email, lang)
    except Exception as error:  # every failure becomes an answer; explain() logs the unexpected ones
        explained = explain(error, lang, email=email, site=await services.rooms.site.origin(), on_home=asker.on_home)
        COMMANDS.labels(command=name, outcome=explained.outcome).inc()
        return Attempt(lang, None, plain(explained.message))
    COMMANDS.labels(command=name, outcome="ok").inc()
    return Attempt(lang, value, None)


async def run_for(
    services: Services,
    client: AsyncWebClient,
    asker: Asker,
    *,
    name: str,
    work: Work,
    needs_email: bool = True,
    needs_profile: bool = True,
) -> tuple[str, Message | None]:
    """`attempt` of work whose result is its reply: that reply, or the explanation."""
    done = await attempt(services, client, asker, name=name, work=work, needs_email=needs_email, needs_profile=needs_profile)
    return done.lang, done.value if done.problem is None else done.problem


async def reply_for(
    services: Services,
    client: AsyncWebClient,
    respond: AsyncRespond,
    asker: Asker,
    *,
    name: str,
    work: Work,
    needs_email: bool = True,
    needs_profile: bool = True,
    replace_original: bool = False,
) -> None:
    """`run_for`, then a private reply through `response_url` (or the app's DM when that fails)."""
    _, message = await run_for(services, client, asker, name=name, work=work, needs_email=needs_email,
                               needs_profile=needs_profile)
    if message is not None:
        await reply_privately(client, respond, asker.user_id, message, replace_original=replace_original)


async def reply_privately(
    client: AsyncWebClient, respond: AsyncRespond, user_id: str, message: Message, *, replace_original: bool = False
) -> None:
    """An ephemeral reply; `response_url` expires (30 min, 5 uses), the app's DM with the person does not."""
    if await respond_ok(respond, message, response_type="ephemeral", replace_original=replace_original):
        return
    await attempted(client.chat_postMessage(channel=user_id, **message.payload()), "reaching the person privately by DM")


async def respond_ok(respond: AsyncRespond, message: Message, **options: object) -> bool:
    try:
        response = await respond(**message.payload(**options))
    except Exception as error:  # a network failure to response_url: the caller has a fallback
        log.warning("response_url unusable: %s", type(error).__name__)
        return False
    if response.status_code != 200:
        log.warning("response_url refused the reply: %s %s", response.status_code, response.body)
        return False
    return True


#: How long a lookup made before an ack (or a views.open) may take: Slack allows 3 s for those.
PRE_ACK_SECONDS = 1.0


async def language_quickly(services: Services, client: AsyncWebClient, asker: Asker) -> str:
    """The person's language when their (usually cached) profile comes within a second, else the default:
    this runs before an ack or a views.open, which Slack allows 3 s."""
    try:
        async with asyncio.timeout(PRE_ACK_SECONDS):
            profile = await profile_or_none(client, services.profiles, asker.team_id, asker.user_id)
    except TimeoutError:
        profile = None
    return language_of(profile, services.default_language)



def channel_of(body: dict[str, Any]) -> str:
    return str((body.get("channel") or {}).get("id") or body.get("container", {}).get("channel_id", ""))

