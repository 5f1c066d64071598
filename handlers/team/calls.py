"""The Slack calls a team space makes, each with the refusals it acts on named: a name taken (by a
person, or by the bot's own channel a stopped run made), a person already in, a message already
pinned, a scope an older install lacks."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from domain.team.names import numbered
from handlers.core.slack_refusals import code_of

log = logging.getLogger(__name__)

#: how many names are tried (`name`, `name-2`…) before saying the name is taken
NAME_TRIES = 20
#: users.lookupByEmail calls at once: 50 instructeurs at 100 ms a call take 0.5 s, not 5 s
LOOKUPS_AT_ONCE = 10
#: ids per conversations.invite call
INVITE_BATCH = 100


class Refused(Exception):
    """Slack refused a step: its code, and the scope it needs when that is why."""

    def __init__(self, code: str, needed: str = "") -> None:
        super().__init__(code)
        self.code, self.needed = code, needed


async def call(answer: Awaitable[Any], doing: str, *, expected: tuple[str, ...] = ()) -> dict[str, Any]:
    """The call's answer, or Refused with Slack's code (logged as `doing`, unless `expected` of the step;
    never the call's arguments)."""
    try:
        return dict((await answer).data)
    except SlackApiError as error:
        code = code_of(error)
        if code not in expected:
            log.warning("%s: Slack said %s", doing, code)
        raise Refused(code, str(error.response.get("needed") or "")) from None


async def create_channel(client: AsyncWebClient, name: str, *, asked: str,
                         asking: Callable[[str], Awaitable[None]]) -> tuple[str, str]:
    """A new private channel named `name` (or `name-2`, `name-3`… when taken): its id and name.

    Each name is given to `asking` (which saves it) before Slack is asked for it: a run that stopped
    between Slack's answer and the save left its channel made and unsaved, under the name it saved
    (`asked`). That name found taken, the channel is adopted if it is the bot's own — a member's
    channel of the same name is never taken, and the next name is tried."""
    for attempt in range(NAME_TRIES):
        tried = numbered(name, attempt)
        await asking(tried)
        try:
            made = await call(client.conversations_create(name=tried, is_private=True),
                              "making a team space's channel", expected=("name_taken",))
        except Refused as refused:
            if refused.code != "name_taken":
                raise
            mine = await own_channel(client, tried) if tried == asked else None
            if mine is not None:
                return mine, tried
            continue
        return str(made["channel"]["id"]), tried
    raise Refused("name_taken")


async def own_channel(client: AsyncWebClient, name: str) -> str | None:
    """The id of the private channel named `name` that the bot made and is in (not archived), if any:
    the bot's conversations as Slack lists them to it, whose creator is the bot's own user."""
    me = str((await call(client.auth_test(), "reading the bot's own user"))["user_id"])
    cursor = ""
    while True:
        page = await call(client.users_conversations(types="private_channel", exclude_archived=True, limit=200,
                                                     cursor=cursor or None), "listing the bot's channels")
        for channel in page.get("channels", []):
            if channel.get("name") == name and channel.get("creator") == me and not channel.get("is_archived"):
                return str(channel["id"])
        cursor = str((page.get("response_metadata") or {}).get("next_cursor") or "")
        if not cursor:
            return None


async def channel_state(client: AsyncWebClient, channel: str) -> str | None:
    """None when the bot is in the channel (joining a public one it is not in: inviting and pinning
    need it there); else why not (`channel_not_found`, `is_archived`, a refusal to join)."""
    try:
        found = (await call(client.conversations_info(channel=channel), "reading a team space's channel"))["channel"]
        if found.get("is_archived"):
            return "is_archived"
        if found.get("is_member"):
            return None
        if found.get("is_private"):
            return "channel_not_found"
        await call(client.conversations_join(channel=channel), "joining a team space's channel")
    except Refused as refused:
        return refused.code
    return None


async def look_up(client: AsyncWebClient, emails: tuple[str, ...]) -> dict[str, str | None]:
    """Each address's Slack user id in this workspace (None: no account here). Raises Refused when
    the install lacks the scope, which no address would change."""
    gate = asyncio.Semaphore(LOOKUPS_AT_ONCE)

    async def one(email: str) -> str | None:
        async with gate:
            try:
                return str((await call(client.users_lookupByEmail(email=email), "looking an instructeur up",
                                      expected=("users_not_found",)))["user"]["id"])
            except Refused as refused:
                if refused.code == "users_not_found":
                    return None
                raise

    found = await asyncio.gather(*(one(email) for email in emails))
    return dict(zip(emails, found, strict=True))


async def members(client: AsyncWebClient, channel: str) -> set[str]:
    people: set[str] = set()
    cursor = ""
    while True:
        page = await call(client.conversations_members(channel=channel, limit=200, cursor=cursor or None), "reading a channel's members")
        people.update(str(user) for user in page.get("members", []))
        cursor = str((page.get("response_metadata") or {}).get("next_cursor") or "")
        if not cursor:
            return people


async def invite(client: AsyncWebClient, channel: str, users: list[str]) -> int:
    """Invites `users` (already members and the bot skipped by Slack, not counted); how many came in."""
    came = 0
    for start in range(0, len(users), INVITE_BATCH):
        batch = users[start:start + INVITE_BATCH]
        try:
            answer = await call(client.conversations_invite(channel=channel, users=",".join(batch), force=True), "inviting a team")
        except Refused as refused:
            if refused.code in ("already_in_channel", "cant_invite_self", "user_not_found"):
                continue  # none of the batch could come, and none needed to
            raise
        came += len(batch) - len(answer.get("errors") or [])
    return came


async def pin(client: AsyncWebClient, channel: str, ts: str) -> None:
    try:
        await call(client.pins_add(channel=channel, timestamp=ts), "pinning a team's room", expected=("already_pinned",))
    except Refused as refused:
        if refused.code != "already_pinned":
            raise
