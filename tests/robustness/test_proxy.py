"""Behind an administration's proxy: the room and dossier services' calls go through
HTTP(S)_PROXY, except to the hosts NO_PROXY names, read once when the client starts."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from pydantic import SecretStr

from clients.aiohttp_transport import AiohttpTransport
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


async def test_calls_go_through_the_proxy_the_environment_names_except_no_proxy_hosts(monkeypatch: pytest.MonkeyPatch):
    through_proxy: list[bytes] = []
    direct: list[bytes] = []
    proxy, proxy_port = await _server(b"from the proxy", through_proxy)
    service, service_port = await _server(b"from the service", direct)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy_port}")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    transport = AiohttpTransport()
    try:
        async with httpx.AsyncClient(transport=transport) as http:
            outside = await http.get("http://visio.example.test/external-api/v1.0/rooms")
            inside = await http.get(f"http://127.0.0.1:{service_port}/rooms")
    finally:
        proxy.close()
        service.close()
    assert outside.text == "from the proxy"
    assert through_proxy == [b"GET http://visio.example.test/external-api/v1.0/rooms HTTP/1.1"]
    assert inside.text == "from the service" and direct == [b"GET /rooms HTTP/1.1"]


async def test_dossier_service_calls_go_through_the_proxy_except_no_proxy_hosts(monkeypatch: pytest.MonkeyPatch):
    through_proxy: list[bytes] = []
    direct: list[bytes] = []
    proxy, proxy_port = await _server(b'{"data": {"demarche": {"title": "via the proxy"}}}', through_proxy)
    service, service_port = await _server(b'{"data": {"demarche": {"title": "direct"}}}', direct)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy_port}")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    outside = DossierService("http://ds.example.test/api/v2/graphql", SecretStr("t"), limiter=RateLimiter(1_000),
                             policy=instant_policy())
    inside = DossierService(f"http://127.0.0.1:{service_port}/api/v2/graphql", SecretStr("t"), limiter=RateLimiter(1_000),
                            policy=instant_policy())
    try:
        assert await outside.title(101) == "via the proxy"
        assert await inside.title(101) == "direct"
    finally:
        await outside.aclose()
        await inside.aclose()
        proxy.close()
        service.close()
    assert through_proxy == [b"POST http://ds.example.test/api/v2/graphql HTTP/1.1"]
    assert direct == [b"POST /api/v2/graphql HTTP/1.1"]
