"""An httpx client made when first used.

Making one for the inference service loads httpcore and reads the CA bundle (about 0.1 s of CPU
together); made in `serve`'s start, that held back the first /healthz, though the service is not
needed before the start-up checks, which run once serving. (The dossier service goes through
`clients/aiohttp_transport.py`, made when first used as well.)
"""

from __future__ import annotations

from typing import Any

import httpx

from clients import tls


class LazyClient:
    """`client()` is the one httpx client, with these options, TLS from `tls.context()` and no
    redirects followed."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._client: httpx.AsyncClient | None = None

    def __call__(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(verify=tls.context(), follow_redirects=False, **self._options)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
