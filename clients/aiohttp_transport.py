"""httpx's interface over aiohttp's connection pool, for the room service's hot path.

A `/room list` is one call to the room service. Through httpx's own pool (httpcore 1.0.9) that
call cost 1.6–1.9 ms of CPU at 50 in flight against a loopback server, through aiohttp 0.56 ms
(2,000 calls, one process each, same server): httpcore scans every waiting request against every
connection each time a call starts or ends. The clients keep httpx's requests, responses, timeouts
and exceptions; only the transport changes.

Errors are mapped by what they say about the request, because the retry policy decides on it: a
connection never made (`ConnectError`, `ConnectTimeout`) means nothing was sent and any request
may be retried; a connection lost or a malformed answer after sending (`ReadError`,
`RemoteProtocolError`) means the server may have acted, and a room creation is not retried.
(`httpx-aiohttp` 0.2 maps every `ClientConnectionError`, a server hanging up included, to
`ConnectTimeout`: a lost answer to a creation would have made a second room.)

A proxy in the environment (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`) is read once, when the pool
opens, not for every call as aiohttp's `trust_env` does (a trip to a thread and a read of
`~/.netrc` each time: 5 % of the bot's CPU under load).

The dossier service's calls go through it too (`/dossier <n>`: 7.4 ms of CPU a command through
httpx's pool, half of it httpcore's scans; see docs/benchmarks.md). Its answers are read up to a
bound (`max_answer_bytes`): past it, `AnswerTooLarge`, and the rest is never read.
"""

from __future__ import annotations

import urllib.request
from collections.abc import Callable
from functools import cache

import aiohttp
import httpx

from clients import tls

#: Idle connections close before the servers' own keep-alive timeouts (5 s for uvicorn and many
#: proxies) run out: a request sent on a connection the server is closing fails, and a room
#: creation is not retried (it may have been made).
KEEPALIVE = 4.0


class AnswerTooLarge(Exception):
    """An answer longer than the transport's `max_answer_bytes`; not a transport error, so not retried."""


class AiohttpTransport(httpx.AsyncBaseTransport):
    """At most `connections` connections, kept alive `KEEPALIVE` seconds; a call waits for a free
    one without a time limit of its own (the retry policy's budget bounds the whole call)."""

    def __init__(self, connections: int = 100, *, max_answer_bytes: int | None = None) -> None:
        self._connections = connections
        self._max_answer = max_answer_bytes
        self._session: aiohttp.ClientSession | None = None
        self._proxy_for = _proxy_router(urllib.request.getproxies())

    def _open(self) -> aiohttp.ClientSession:
        # made on first use: aiohttp binds a session to the running event loop
        if self._session is None:
            connector = aiohttp.TCPConnector(limit=self._connections, keepalive_timeout=KEEPALIVE, ssl=tls.context())
            self._session = aiohttp.ClientSession(connector=connector, auto_decompress=False)
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeout = request.extensions.get("timeout", {})
        limits = aiohttp.ClientTimeout(total=None, sock_connect=timeout.get("connect"), sock_read=timeout.get("read"))
        body = await request.aread()
        try:
            async with self._open().request(
                request.method, str(request.url), headers=list(request.headers.multi_items()),
                data=body or None, allow_redirects=False, timeout=limits,
                proxy=self._proxy_for(request.url.scheme, request.url.host),
            ) as answer:
                content = await (answer.read() if self._max_answer is None else self._read_bounded(answer))
        except aiohttp.ConnectionTimeoutError as error:
            raise httpx.ConnectTimeout(str(error), request=request) from error
        except aiohttp.ClientConnectorError as error:
            raise httpx.ConnectError(str(error), request=request) from error
        except aiohttp.SocketTimeoutError as error:
            raise httpx.ReadTimeout(str(error), request=request) from error
        except aiohttp.ClientResponseError as error:  # an answer that is not HTTP
            raise httpx.RemoteProtocolError(str(error), request=request) from error
        except aiohttp.ClientError as error:  # hung up or failed after the request left
            raise httpx.ReadError(str(error) or type(error).__name__, request=request) from error
        return httpx.Response(answer.status, headers=list(answer.raw_headers), stream=httpx.ByteStream(content),
                              request=request, extensions={"http_version": b"HTTP/1.1"})

    async def _read_bounded(self, answer: aiohttp.ClientResponse) -> bytes:
        # leaving the `async with` with the body unread closes the connection, not reused
        assert self._max_answer is not None
        chunks, size = [], 0
        async for chunk in answer.content.iter_any():
            size += len(chunk)
            if size > self._max_answer:
                raise AnswerTooLarge(f"an answer over {self._max_answer} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


def _proxy_router(proxies: dict[str, str]) -> Callable[[str, str], str | None]:
    """The proxy a call to `scheme://host` goes through, as curl and requests read the environment
    (NO_PROXY's hosts and domains go direct); one answer per host, kept."""

    @cache
    def proxy_for(scheme: str, host: str) -> str | None:
        if not proxies or urllib.request.proxy_bypass(host):
            return None
        return proxies.get(scheme)

    return proxy_for
