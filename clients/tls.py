"""One TLS context for every outside service.

httpx builds a context per client by reading the whole CA bundle (35 ms each here); the room
service's pools and the other clients made seven, a quarter of a second of `serve`'s start. This
one is built on first use, with httpx's own defaults (certifi's bundle, or `SSL_CERT_FILE` /
`SSL_CERT_DIR` when set), and shared.
"""

from __future__ import annotations

import ssl
from functools import cache

import httpx


@cache
def context() -> ssl.SSLContext:
    return httpx.create_ssl_context()
