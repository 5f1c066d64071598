"""The room service's line of `check`: the application's credentials, and with --as a person's rooms.

With --as, the check also does what a person's first command would: it learns where people
sign in from their rooms' links, and forgets refusals of scopes the application has been granted
since, so commands refused a few minutes ago work again at once.
"""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bot import operator_advice as advice
from bot.commands.checks.result import Result, unset
from bot.config import Settings
from bot.wiring import room_service
from clients.redis_keys import application_tag, key
from clients.rooms.errors import RoomServiceError
from clients.rooms.models import RoomPage, TokenGrant
from clients.rooms.service import OPTIONAL_SCOPES as ROOM_OPTIONAL_SCOPES
from clients.rooms.service import REQUIRED_SCOPES as ROOM_SCOPES
from clients.rooms.site import RoomSite
from clients.rooms.token_cache import MIN_CACHED_LIFETIME
from clients.rooms.user_rooms import SCOPE_MISSING, SCOPE_MISSING_TTL

#: the room service's address in .env.example: copied as it is, it is no service (not "the network")
EXAMPLE_MEET_HOST = "visio.example.gouv.fr"


def _example_address(settings: Settings) -> str | None:
    if advice.host_of(settings.meet_api_url) != EXAMPLE_MEET_HOST:
        return None
    return (f"MEET_API_URL is still .env.example's address ({EXAMPLE_MEET_HOST}): set your room service's, ending "
            "in /external-api/v1.0")


async def check_rooms(settings: Settings, as_email: str | None, redis: aioredis.Redis) -> Result:
    needed = ("meet_api_url", "meet_client_id", "meet_client_secret")
    example = _example_address(settings)
    if settings.missing(*needed):
        return Result("room service", False, unset(settings, *needed) + (f"; {example}" if example else ""))
    if example:
        return Result("room service", False, example)
    rooms = room_service(settings)
    try:
        await rooms.check_credentials()
        if not as_email:
            return Result("room service", True, f"application {settings.meet_client_id} accepted by "
                                                f"{advice.host_of(settings.meet_api_url)}; give --as EMAIL to check "
                                                "its scopes and a person's rooms")
        grant = await rooms.issue_token(as_email)
        granted = set((grant.scope or "").split())
        lacking = [scope for scope in ROOM_SCOPES if scope not in granted]
        if lacking:
            return Result("room service", False, f"the application {settings.meet_client_id} lacks the scope(s) "
                                                 f"{', '.join(lacking)}: ask the room service's administrator to grant "
                                                 "them (tokens already issued keep their old scopes for up to an hour)")
        page = await rooms.list_rooms(grant.access_token)
    except RoomServiceError as error:
        return Result("room service", False, advice.rooms(error, settings, as_email))
    finally:
        await rooms.aclose()
    return await _rooms_learnt(settings, redis, grant, page)


async def _rooms_learnt(settings: Settings, redis: aioredis.Redis, grant: TokenGrant, page: RoomPage) -> Result:
    """The line of a check as a person: what was learnt of their rooms, forgotten of past refusals,
    and each warning, none hiding another."""
    # the rooms' links say where people sign in (the web app, usually not the API's host): learnt now,
    # the first person the bot sends to sign in gets the right address
    tag = application_tag(settings.meet_client_id or "")
    site = RoomSite(redis, tag, "")
    await site.learn(page.results)
    granted = set((grant.scope or "").split())
    found = f"a token for that person and their {page.count} room(s); scopes {', '.join(ROOM_SCOPES)}"
    if not page.count:  # no room: nothing to learn from, and perhaps an account made just now
        found += await _without_rooms(settings, site)
    restored = await _forget_refusals(redis, tag, granted)
    if restored:
        found += (f"; the bot had been refusing what needs {', '.join(restored)} (the service refused it lately, and "
                  f"that is believed up to {SCOPE_MISSING_TTL} s): now granted, forgotten, it works again")
    buts = []  # each warning of the line, none hiding another
    unavailable = {scope: verb for scope, verb in ROOM_OPTIONAL_SCOPES.items() if scope not in granted}
    if unavailable:
        buts.append(f"the application lacks {', '.join(unavailable)}: {', '.join(unavailable.values())} will say it is "
                    "not available (grant the scope on the room service to offer it)")
    if grant.expires_in < MIN_CACHED_LIFETIME:
        buts.append(f"tokens last {grant.expires_in} s: below {MIN_CACHED_LIFETIME} s they are not cached and every "
                    "command asks for one (raise APPLICATION_JWT_EXPIRATION_SECONDS on the service)")
    if buts:
        return Result("room service", True, f"{found}; but " + "; and ".join(buts), warning=True)
    return Result("room service", True, f"{found}; tokens last {grant.expires_in} s")


async def _without_rooms(settings: Settings, site: RoomSite) -> str:
    """What checking someone with no room could not learn, and may have done."""
    if await site.origin():
        where = "the one learnt before is kept"
    elif settings.meet_room_base_url:
        where = f"people are sent to sign in at MEET_ROOM_BASE_URL ({settings.meet_room_base_url}) until a room link is seen"
    else:
        where = (f"people are sent to sign in at the API's own address ({advice.host_of(settings.meet_api_url)}) until a "
                 "room link is seen: set MEET_ROOM_BASE_URL to the web app's address, or check --as someone who has a room")
    return (f" (with no room of theirs, the bot learnt no web address: {where}; and on a room service that creates "
            "accounts (APPLICATION_ALLOW_USER_CREATION), this check made that person's account if they had none)")


async def _forget_refusals(redis: aioredis.Redis, tag: str, granted: set[str]) -> list[str]:
    """The scopes the bot's processes still believe missing (a refusal of the last few minutes)
    though the application has them now: forgotten, so commands needing them stop being refused."""
    names = {scope: key(SCOPE_MISSING, tag, scope) for scope in sorted(granted)}
    try:
        forgotten = [scope for scope, name in names.items() if await redis.delete(name)]
    except RedisError:
        return []
    return forgotten
