"""Room calls made on behalf of one person: the token from the cache, one retry with a new one.

A cached token may be refused for reasons a new token fixes: it expired early (401), or it was
issued before the application gained a scope (403; tokens carry the scopes of their issue time).
So a cached token's refusal drops it and the call is made once more with a fresh token; only a
fresh token's refusal is final. A disabled account is final at once: the service still issues
it tokens, and refuses all of them.

A fresh token refused for a missing scope is believed for a few minutes: every command needing
that scope is answered at once, without a token request and a second call that cannot succeed.
An application without `rooms:retrieve` can still list rooms, and a list item holds all a room's
view needs: the rooms a person just listed are kept a few minutes to answer their Details buttons.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from time import monotonic
from typing import Any, TypeVar

from pydantic import SecretStr
from redis.exceptions import RedisError

from clients.json_cache import JsonCache
from clients.redis_keys import email_digest
from clients.rooms.directory import RoomDirectory
from clients.rooms.errors import (
    AccountNotFound,
    NotYourRoom,
    PublicRoomsDisabled,
    RoomNotFound,
    RoomServiceError,
    ScopeMissing,
    TokenRejected,
)
from clients.rooms.levels import RoomLevels
from clients.rooms.models import AccessLevel, Room, RoomPage, TokenGrant
from clients.rooms.recent import RecentRooms
from clients.rooms.service import RoomService
from clients.rooms.site import RoomSite
from clients.rooms.token_cache import TokenCache
from clients.shared_reads import SharedReads

T = TypeVar("T")

#: How long "this person has no account" is believed before the service is asked again.
NO_ACCOUNT_TTL = 180
#: How long "none of this person's rooms has this slug" is believed.
SLUG_MISS_TTL = 600
#: How long "the application lacks this scope" is believed, and the cache's name (bot.serving.slack_app
#: makes it; `check --as` forgets a mark once the scope is granted again).
SCOPE_MISSING_TTL = 180
SCOPE_MISSING = "scope-missing"
#: How long this process believes, without asking Redis again, that the application lacks no scope.
NOT_MISSING_SECONDS = 5.0
#: How long the rooms a person listed answer for a room the service will not show (no rooms:retrieve).
LISTED_TTL = 600
#: A link is looked for in this many pages of a person's rooms (1,000 rooms) and this long at most:
#: a list without end (or a person with more rooms) answers "not found" rather than never.
LOOKUP_PAGES = 50
LOOKUP_SECONDS = 10.0


Rooms = list[Room]  # named here: inside the class, `list` is the method below


class UserRooms:
    def __init__(
        self,
        service: RoomService,
        tokens: TokenCache,
        directory: RoomDirectory,
        *,
        application: str,
        no_account: JsonCache,
        slug_misses: JsonCache,
        recent: RecentRooms,
        levels: RoomLevels,
        scopes_missing: JsonCache,
        listed: JsonCache,
        site: RoomSite,
    ) -> None:
        self._service = service
        self._tokens = tokens
        self._application = application
        self._no_account = no_account
        self._slug_misses = slug_misses
        self._scopes_missing = scopes_missing
        self._not_missing_until: dict[str, float] = {}
        self._reading_missing: SharedReads[str, str | None] = SharedReads()
        self._listed = listed
        self.directory = directory
        self.recent = recent
        self.levels = levels
        self.site = site

    @property
    def application(self) -> str:
        """The room-service application's tag: the bot's tokens and caches for people carry it."""
        return self._application

    async def list(self, email: str, page: int = 1, *, token: SecretStr | None = None) -> RoomPage:
        """`token`: the person's cached token, read a moment ago (else read now)."""
        rooms = await self._as(email, "rooms:list", lambda token: self._service.list_rooms(token, page), token=token)
        await self.directory.remember(rooms.results)
        await self.site.learn(rooms.results)
        person = email_digest(email)
        await self._listed.put_many((room.model_dump(mode="json"), (self._application, person, room.id)) for room in rooms.results)
        return rooms

    async def list_with_latest(self, email: str, page: int = 1) -> tuple[RoomPage, Rooms]:
        """`list`, then `latest`: the person's token and their recent rooms read in one round trip."""
        try:
            token, kept = await self._tokens.get_beside(email, lambda pipe: self.recent.read_on(pipe, email))
        except RedisError:  # each read again on its own, each doing without Redis its own way
            token, kept = None, None
        rooms = await self.list(email, page, token=token)
        return rooms, await self.latest(email, rooms, kept=None if kept is None else self.recent.rooms(kept))

    async def latest(self, email: str, listed: RoomPage, *, kept: Rooms | None = None) -> Rooms:
        """The rooms the bot made for the person lately (`kept`: as read a moment ago), as the service
        has them now: from the page just listed when they are on it, else read again; one the
        service no longer has is forgotten. Where the service will not show a room (no
        `rooms:retrieve`, or it is down), the copy the bot kept is shown."""
        if kept is None:
            kept = await self.recent.list(email)
        on_page = {room.id: room for room in listed.results}

        async def fresh(room: Room) -> Room | None:
            if room.id in on_page:
                return on_page[room.id]
            try:
                return await self._as(email, "rooms:retrieve", lambda token: self._service.get_room(token, room.id))
            except RoomNotFound:
                await self.recent.forget(email, room.id)
                return None
            except RoomServiceError:
                return room

        found = await asyncio.gather(*(fresh(room) for room in kept))
        return [room for room in found if room is not None]

    async def create(
        self, email: str, access_level: AccessLevel | None = None, configuration: dict[str, Any] | None = None
    ) -> Room:
        """A room owned by the person; `configuration` as the service takes it (who may publish what,
        whether everyone may mute others), None for the service's defaults."""
        try:
            room = await self._as(email, "rooms:create", lambda token: self._service.create_room(token, access_level, configuration))
        except PublicRoomsDisabled:
            await self.levels.refused(AccessLevel.PUBLIC)
            raise
        await self.site.learn([room])
        await self.recent.add(email, room, slugs=self.directory)  # one round trip for both
        if access_level is not None:
            await self.levels.accepted(access_level)
        return room

    async def get(self, email: str, room_id: str) -> Room:
        """One of the person's rooms; without `rooms:retrieve`, as they listed it a moment ago."""
        try:
            return await self._as(email, "rooms:retrieve", lambda token: self._service.get_room(token, room_id))
        except ScopeMissing:
            listed = await self._listed.get(self._application, email_digest(email), room_id.lower())
            if listed is None:
                raise
            return Room.model_validate(listed)

    async def find_by_slug(self, email: str, slug: str) -> Room:
        found = await self.find_by_slugs(email, [slug])
        if slug not in found:
            raise RoomNotFound(f"no room of this person has the slug {slug!r}", slug)
        return found[slug]

    async def find_by_slugs(self, email: str, slugs: Iterable[str]) -> dict[str, Room]:
        """The person's rooms with these slugs: by the directory when the bot has seen them, else by
        one walk through the person's rooms for all of them together. A slug the walk did not find
        is remembered for a while, so pasting it again costs no walk."""
        found: dict[str, Room] = {}
        wanted: set[str] = set()
        for slug in dict.fromkeys(slugs):
            known = await self.directory.lookup(slug)
            if known is not None:
                try:
                    found[slug] = await self.get(email, known)
                    continue
                except NotYourRoom:  # slugs are unique: it is not among theirs either
                    continue
                except RoomNotFound:
                    pass  # deleted since: the slug may have been given again
            if not await self._slug_misses.get(self._application, email_digest(email), slug):
                wanted.add(slug)
        deadline = monotonic() + LOOKUP_SECONDS
        page = 1
        while wanted:
            rooms = await self.list(email, page)
            for room in rooms.results:
                if room.slug in wanted:
                    found[room.slug] = room
                    wanted.discard(room.slug)
            if not rooms.next or page >= LOOKUP_PAGES or monotonic() > deadline:
                break
            page += 1
        for slug in wanted:
            await self._slug_misses.put(True, self._application, email_digest(email), slug)
        return found

    async def _as(self, email: str, scope: str, call: Callable[[SecretStr], Awaitable[T]], *,
                  token: SecretStr | None = None) -> T:
        """`call` with the person's token (`token`: the cached one, read a moment ago); `scope` is
        what the call needs of the application."""
        known = await self._missing(scope)
        if known is not None:
            raise ScopeMissing(known, scope)
        issued = False

        async def issue() -> TokenGrant:
            nonlocal issued
            issued = True
            return await self._issue(email)

        token = token or await self._tokens.get_or_fetch(email, issue)
        try:
            return await call(token)
        except (TokenRejected, ScopeMissing) as error:
            if issued:
                await self._remember_missing(error)
                raise
            await self._tokens.drop(email, token)
        try:
            return await call(await self._tokens.get_or_fetch(email, issue))
        except ScopeMissing as error:
            await self._remember_missing(error)
            raise

    async def _missing(self, scope: str) -> str | None:
        """What the service said when it refused `scope`, if it did lately. That it did not is
        taken as known for `NOT_MISSING_SECONDS` without asking Redis again (a round trip of every
        command, for a mark set a few times in an application's life): another process that meets
        the refusal first costs this one at most a refused call and a token request meanwhile.
        Commands that need the mark while it is being read wait for that one read: a burst's
        first commands all asked Redis before the first answer came (250 reads in a burst of 300)."""
        if self._not_missing_until.get(scope, 0.0) > monotonic():
            return None
        return await self._reading_missing.read(scope, lambda: self._read_missing(scope))

    async def _read_missing(self, scope: str) -> str | None:
        known = await self._scopes_missing.get(self._application, scope)
        if known is None:
            self._not_missing_until[scope] = monotonic() + NOT_MISSING_SECONDS
        return None if known is None else str(known)

    async def _remember_missing(self, error: Exception) -> None:
        """A fresh token's refusal for a scope: the application's, so everyone's, for a while."""
        if isinstance(error, ScopeMissing) and error.scope:
            self._not_missing_until.pop(error.scope, None)
            await self._scopes_missing.put(error.detail, self._application, error.scope)

    async def _issue(self, email: str) -> TokenGrant:
        """A token request, unless the service said a moment ago that this person has no account."""
        who = (self._application, email_digest(email))
        if await self._no_account.get(*who):
            raise AccountNotFound("no account (remembered from the service's last answer)")
        try:
            return await self._service.issue_token(email)
        except AccountNotFound:
            await self._no_account.put(True, *who)
            raise
