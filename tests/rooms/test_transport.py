"""The room service's transport says what a lost call means, because the retry policy acts on it:
a creation whose answer was lost is not sent again (it may have made a room), a list is, and a
service that takes no connection is reported unreachable."""

from __future__ import annotations

import asyncio
import socket

import pytest
from pydantic import SecretStr

from clients.retry import RetryPolicy
from clients.rooms import errors
from clients.rooms.service import RoomService


class HangsUp:
    """Reads each request, then closes the connection without a word; counts the requests."""

    def __init__(self) -> None:
        self.requests = 0

    async def __aenter__(self) -> str:
        async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            self.requests += 1
            writer.close()

        self.server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()


def service(base: str) -> RoomService:
    async def no_wait(_: float) -> None:
        return None

    return RoomService(base, "roombot-app", SecretStr("secret"), policy=RetryPolicy(attempts=3, sleep=no_wait))


async def test_a_creation_whose_answer_is_lost_is_sent_once():
    server = HangsUp()
    async with server as base:
        rooms = service(base)
        with pytest.raises(errors.ServiceUnavailable) as lost:
            await rooms.create_room(SecretStr("token"))
        await rooms.aclose()
    assert server.requests == 1
    assert not isinstance(lost.value, errors.ServiceUnreachable)  # it was reached: "try again", not "down"


async def test_a_list_whose_answer_is_lost_is_asked_again_then_reported():
    server = HangsUp()
    async with server as base:
        rooms = service(base)
        with pytest.raises(errors.ServiceUnavailable):
            await rooms.list_rooms(SecretStr("token"))
        await rooms.aclose()
    assert server.requests == 6  # 3 attempts of the policy, each sent again once by aiohttp for a GET


async def test_no_service_listening_is_unreachable():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]  # closed again: nothing listens there
    rooms = service(f"http://127.0.0.1:{port}")
    with pytest.raises(errors.ServiceUnreachable):
        await rooms.list_rooms(SecretStr("token"))
    await rooms.aclose()
