"""Behind an administration's proxy: the room and dossier services' calls go through
HTTP(S)_PROXY, except to the hosts NO_PROXY names, read once when the client starts."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from pydantic import SecretStr
from yarl import URL

from clients.aiohttp_transport import AiohttpTransport, timeouts
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.service import DossierService
from tests.conftest import instant_policy


async def _server(answer: bytes, seen: list[bytes]) -> tuple[asyncio.Server, int]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        seen.append(head.split(b"\r\n", 1)[0])
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(answer), answer))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


@dataclass
class Behind:
    """A proxy the environment names and a service NO_PROXY names, each keeping the request lines it got."""

    service_port: int
    through_proxy: list[bytes] = field(default_factory=list)
    direct: list[bytes] = field(default_factory=list)


@contextlib.asynccontextmanager
async def _behind_a_proxy(monkeypatch: pytest.MonkeyPatch, from_proxy: bytes, from_service: bytes) -> AsyncIterator[Behind]:
    through_proxy: list[bytes] = []
    direct: list[bytes] = []
    proxy, proxy_port = await _server(from_proxy, through_proxy)
    service, service_port = await _server(from_service, direct)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy_port}")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    try:
        yield Behind(service_port, through_proxy, direct)
    finally:
        proxy.close()
        service.close()


async def test_calls_go_through_the_proxy_the_environment_names_except_no_proxy_hosts(monkeypatch: pytest.MonkeyPatch):
    # the transport reads the environment when it is made: after the proxy is named
    async with _behind_a_proxy(monkeypatch, b"from the proxy", b"from the service") as behind:
        transport, bounds = AiohttpTransport(), timeouts(connect=5.0, read=5.0)
        try:
            outside = await transport.send("GET", URL("http://visio.example.test/external-api/v1.0/rooms"), {}, None, bounds)
            inside = await transport.send("GET", URL(f"http://127.0.0.1:{behind.service_port}/rooms"), {}, None, bounds)
        finally:
            await transport.aclose()
    assert outside.text == "from the proxy"
    assert behind.through_proxy == [b"GET http://visio.example.test/external-api/v1.0/rooms HTTP/1.1"]
    assert inside.text == "from the service" and behind.direct == [b"GET /rooms HTTP/1.1"]


async def test_dossier_service_calls_go_through_the_proxy_except_no_proxy_hosts(monkeypatch: pytest.MonkeyPatch):
    """Kept when the client moved from httpx's pool to aiohttp's (which reads the environment once)."""
    async with _behind_a_proxy(monkeypatch, b'{"data": {"demarche": {"title": "via the proxy"}}}',
                               b'{"data": {"demarche": {"title": "direct"}}}') as behind:
        outside = DossierService("http://ds.example.test/api/v2/graphql", SecretStr("t"), limiter=RateLimiter(1_000),
                                 policy=instant_policy())
        inside = DossierService(f"http://127.0.0.1:{behind.service_port}/api/v2/graphql", SecretStr("t"),
                                limiter=RateLimiter(1_000), policy=instant_policy())
        try:
            assert await outside.title(101) == "via the proxy"
            assert await inside.title(101) == "direct"
        finally:
            await outside.aclose()
            await inside.aclose()
    assert behind.through_proxy == [b"POST http://ds.example.test/api/v2/graphql HTTP/1.1"]
    assert behind.direct == [b"POST /api/v2/graphql HTTP/1.1"]
