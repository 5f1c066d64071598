"""Behind an administration's proxy: the room service's calls go through HTTP(S)_PROXY, except to
the hosts NO_PROXY names, read once when the client starts."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from clients.aiohttp_transport import AiohttpTransport


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
