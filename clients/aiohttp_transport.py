"""The room and dossier services' calls over aiohttp's connection pool, with httpx's errors.

A `/room list` is one call to the room service. Through httpx's own pool (httpcore 1.0.9) that
call cost 1.6–1.9 ms of CPU at 50 in flight against a loopback server, through aiohttp 0.56 ms
(2,000 calls, one process each, same server): httpcore scans every waiting request against every
connection each time a call starts or ends. The clients kept httpx's requests, responses, timeouts
and exceptions; only the transport changed.

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

Since then a call no longer goes through httpx's objects at all (`send`): the clients hand the
method, a URL parsed once, headers built once, the body encoded once and the time bounds, and get
back an `Answer`, read whole and decoded. httpx's request, its response and their conversions were
a quarter of a dossier look-up's call (docs/benchmarks.md, "One outside call"); httpx's exceptions
stay, so the clients and the retry policy map errors as before. aiohttp decodes a compressed answer
as it comes, in bounded steps, and the bound counts decoded bytes; one that does not decode is a
`ReadError`, an answer cut short (httpx's decoding error used to escape the clients' mapping).
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Mapping
from functools import cache
from typing import IO, Any

import aiohttp
import httpx
import orjson
from yarl import URL

from clients import tls

#: Idle connections close before the servers' own keep-alive timeouts (5 s for uvicorn and many
#: proxies) run out: a request sent on a connection the server is closing fails, and a room
#: creation is not retried (it may have been made).
KEEPALIVE = 4.0
#: httpx's `is_redirect`
REDIRECTS = frozenset({301, 302, 303, 307, 308})


class AnswerTooLarge(Exception):
    """An answer longer than the transport's `max_answer_bytes`; not a transport error, so not retried."""


class Answer:
    """An answer read whole: what the clients, `clients.errors` and the retry policy read of httpx's
    `Response`, under the same names, without building one."""

    __slots__ = ("content", "headers", "method", "status_code", "url")

    def __init__(self, status_code: int, headers: httpx.Headers, content: bytes, method: str, url: URL) -> None:
        self.status_code, self.headers, self.content, self.method, self.url = status_code, headers, content, method, url

    @property
    def is_redirect(self) -> bool:
        return self.status_code in REDIRECTS

    @property
    def text(self) -> str:
        """As httpx decodes it (the charset the content type names, else UTF-8, errors replaced);
        read only of a 429's words."""
        content_type = self.headers.get("content-type")
        return httpx.Response(self.status_code, headers={"content-type": content_type} if content_type else None,
                              content=self.content).text

    def json(self) -> Any:
        """orjson's reading (its errors are `ValueError`s, as json's): the dossiers' pages and
        cards are the largest answers the bot reads, and orjson reads them in a fifth of the time."""
        return orjson.loads(self.content)

    async def aclose(self) -> None:
        """Nothing to release: read whole already (the retry policy closes an answer it drops)."""


def json_body(value: Any) -> bytes:
    """`value` as httpx's `json=` encodes it (compact UTF-8), by orjson; by json, escaped to ASCII,
    where orjson refuses: a lone surrogate, which a JSON payload (`\\ud800`) may put in what a
    person typed (a message, a reply repeating their words)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":"), allow_nan=False).encode()


def timeouts(*, connect: float, read: float) -> aiohttp.ClientTimeout:
    """A call's time bounds: `connect` to get a connection, `read` between two pieces of the answer."""
    return aiohttp.ClientTimeout(total=None, sock_connect=connect, sock_read=read)


class AiohttpTransport:
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
            self._session = aiohttp.ClientSession(connector=connector)
        return self._session

    async def send(self, method: str, url: URL, headers: Mapping[str, str], body: bytes | IO[bytes] | None,
                   timeout: aiohttp.ClientTimeout) -> Answer:
        """One attempt; httpx's exception for what went wrong, by what it says of the request. A file
        `body` is read in steps as the socket takes them, from where it stands (a direct upload's
        20 MiB: never whole in memory); aiohttp reads it again from there if it retries an idempotent
        call on a connection lost. The caller closes it (aiohttp does only when the call fails)."""
        try:
            async with self._open().request(
                method, url, headers=headers, data=body, allow_redirects=False, timeout=timeout,
                proxy=self._proxy_for(url.scheme, url.host),
            ) as answer:
                content = await (answer.read() if self._max_answer is None else self._read_bounded(answer))
        except aiohttp.ConnectionTimeoutError as error:
            raise httpx.ConnectTimeout(str(error)) from error
        except aiohttp.ClientConnectorError as error:
            raise httpx.ConnectError(str(error)) from error
        except aiohttp.SocketTimeoutError as error:
            raise httpx.ReadTimeout(str(error)) from error
        except aiohttp.ClientResponseError as error:  # an answer that is not HTTP
            raise httpx.RemoteProtocolError(str(error)) from error
        except aiohttp.ClientError as error:  # hung up or failed after the request left (or undecodable)
            raise httpx.ReadError(str(error) or type(error).__name__) from error
        return Answer(answer.status, httpx.Headers(answer.raw_headers), content, method, url)

    async def _read_bounded(self, answer: aiohttp.ClientResponse) -> bytes:
        # leaving the `async with` with the body unread closes the connection, not reused
        assert self._max_answer is not None
        declared = answer.content_length if "Content-Encoding" not in answer.headers else None
        if declared is not None and declared <= self._max_answer:
            return await answer.read()  # aiohttp reads no more than the length declared
        chunks, size = [], 0
        async for chunk in answer.content.iter_any():  # decoded, if the server compressed it
            size += len(chunk)
            if size > self._max_answer:
                raise AnswerTooLarge(f"an answer over {self._max_answer} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


def _proxy_router(proxies: dict[str, str]) -> Callable[[str | None, str | None], str | None]:
    """The proxy a call to `scheme://host` goes through, as curl and requests read the environment
    (NO_PROXY's hosts and domains go direct); one answer per host, kept."""

    @cache
    def proxy_for(scheme: str | None, host: str | None) -> str | None:
        if not proxies or not scheme or urllib.request.proxy_bypass(host or ""):
            return None
        return proxies.get(scheme)

    return proxy_for
