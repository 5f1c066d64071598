"""The room service's transport says what a lost call means, because the retry policy acts on it:
a creation whose answer was lost is not sent again (it may have made a room), a list is, and a
service that takes no connection is reported unreachable. It reads answers as httpx did: a
compressed one decoded, a refusal's words in the charset its content type names."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
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


class Answers:
    """Answers every request with `head` and `body` (`Content-Length` added), on a kept-alive
    connection; keeps each request's first line."""

    def __init__(self, head: bytes, body: bytes) -> None:
        self.answer = head + b"\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        self.requests: list[bytes] = []

    async def __aenter__(self) -> str:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            with contextlib.suppress(asyncio.IncompleteReadError):  # the client closed the connection
                while head := await reader.readuntil(b"\r\n\r\n"):
                    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                                   if line.lower().startswith(b"content-length:")), 0)
                    await reader.readexactly(length)
                    self.requests.append(head.split(b"\r\n", 1)[0])
                    writer.write(self.answer)
                    await writer.drain()

        self.server = await asyncio.start_server(answer, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()


ROOM = {"id": "8b1c1f0e-3c4b-4f4e-9d55-1d2c3b4a5f60", "slug": "abc-defg-hij", "access_level": "trusted"}


async def test_a_compressed_room_list_is_read():
    """Servers compress what the bot accepts (`Accept-Encoding: gzip, deflate`), as Django's
    GZipMiddleware or nginx do: the page is read decoded, the next page asked for as `?page=`."""
    page = gzip.compress(json.dumps({"count": 21, "next": "x?page=3", "results": [ROOM]}).encode())
    server = Answers(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip", page)
    async with server as base:
        rooms = service(base)
        listed = await rooms.list_rooms(SecretStr("token"), page=2)
        await rooms.aclose()
    assert [room.slug for room in listed.results] == ["abc-defg-hij"] and listed.count == 21
    assert server.requests == [b"GET /rooms/?page=2 HTTP/1.1"]


@pytest.mark.parametrize(("words", "requests"), [("100 requests per day exceeded", 1), ("Too many requests", 12)])
async def test_a_daily_quota_is_not_waited_for_in_the_charset_the_answer_names(words: str, requests: int):
    """A 429 that names a daily quota is reported at once (no wait within a call outlasts a day);
    another is retried as long as the budget lasts, at most 12 times (here at once: the clock stands
    still). The words are read in the answer's charset (UTF-16 here), as httpx read them."""
    server = Answers(b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-16", words.encode("utf-16"))
    async with server as base:
        rooms = RoomService(base, "roombot-app", SecretStr("secret"), policy=RetryPolicy(
            attempts=3, sleep=lambda _: asyncio.sleep(0), clock=lambda: 0.0, jitter=lambda: 0.0))
        with pytest.raises(errors.RoomServiceError):
            await rooms.list_rooms(SecretStr("token"))
        await rooms.aclose()
    assert len(server.requests) == requests
