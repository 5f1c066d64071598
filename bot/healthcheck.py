"""`python -m bot.healthcheck`: the container's health check. Asks `/healthz` where `serve`
listens (HOST and PORT from the environment; a wildcard HOST is asked on loopback) and exits 0
when it answers 200, never through a proxy: HTTP_PROXY, set for the way out to Slack and the
services, often without NO_PROXY, would make a serving container unhealthy. Nothing else is
imported, so it costs the container little every 30 s."""

from __future__ import annotations

import os
import sys
import urllib.request

WILDCARDS = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}  # answering on all includes loopback


def url(env: dict[str, str]) -> str:
    host = env.get("HOST", "0.0.0.0")  # serve's default
    host = WILDCARDS.get(host, host)
    return f"http://{f'[{host}]' if ':' in host else host}:{env.get('PORT', '3000')}/healthz"


#: an opener that reads no *_PROXY variable: serve is asked where it listens, directly
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def main() -> int:
    try:
        with DIRECT.open(url(dict(os.environ)), timeout=3) as answer:  # our own address
            return 0 if answer.status == 200 else 1
    except OSError as error:
        print(f"unhealthy: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
