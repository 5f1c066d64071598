"""Room calls made on behalf of one person: token from the cache, one retry after a 401."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from pydantic import SecretStr

from clients.room_directory import RoomDirectory
from clients.room_errors import RoomNotFound, TokenRejected
from clients.room_models import AccessLevel, Room, RoomPage, TokenGrant
from clients.rooms import RoomService
from clients.token_cache import TokenCache

T = TypeVar("T")


class UserRooms:
    def __init__(self, service: RoomService, tokens: TokenCache, directory: RoomDirectory) -> None:
        self._service = service
        self._tokens = tokens
        self.directory = directory

    async def list(self, email: str, page: int = 1) -> RoomPage:
        rooms = await self._as(email, lambda token: self._service.list_rooms(token, page))
        await self.directory.remember(rooms.results)
        return rooms

    async def create(self, email: str, access_level: AccessLevel | None = None) -> Room:
        room = await self._as(email, lambda token: self._service.create_room(token, access_level))
        await self.directory.remember([room])
        return room

    async def get(self, email: str, room_id: str) -> Room:
        return await self._as(email, lambda token: self._service.get_room(token, room_id))

    async def find_by_slug(self, email: str, slug: str) -> Room:
        """By the directory when the bot has seen the room, else by paging through the person's rooms."""
        known = await self.directory.lookup(slug)
        if known is not None:
            return await self.get(email, known)
        page = 1
        while True:
            rooms = await self.list(email, page)
            for room in rooms.results:
                if room.slug == slug:
                    return room
            if not rooms.next:
                raise RoomNotFound(f"no room with slug {slug!r} among the person's {rooms.count} rooms")
            page += 1

    async def _as(self, email: str, call: Callable[[SecretStr], Awaitable[T]]) -> T:
        def issue() -> Awaitable[TokenGrant]:
            return self._service.issue_token(email)

        token = await self._tokens.get_or_fetch(email, issue)
        try:
            return await call(token)
        except TokenRejected:
            # Expired early or invalidated: drop it, get a new one, try once more; a second 401 is final.
            await self._tokens.drop(email, token)
            token = await self._tokens.get_or_fetch(email, issue)
            return await call(token)
