"""Memory of a file given with an act: `python bench/uploads.py [TREE …]`.

A file of 20 MiB less a byte (the largest the service takes, `clients.dossiers.uploads.MOST_BYTES`)
goes through the bot's own code as an act's file does: read from a Slack stand-in with the bot's token
(`handlers.desk.files.fetched`: spooled into the temporary file, its size and MD5 computed), then
`clients.dossiers.uploads.upload` (`createDirectUpload` to the dossier service's stand-in, the PUT to
its storage, which reads the whole body and checks its Content-MD5). The stand-ins run in a process of
their own, so that only the bot's side is measured. One upload, or 5 at once, each in a fresh process
(after 5 uploads of a small file at once: the connections open, the modules and the executor's threads
up, the heap not yet grown by a large file), measured twice:

- `rss`: the growth of the resident set (VmHWM after, the peak reset before, less VmRSS before);
- `traced`: then the same again under tracemalloc: the peak of Python's allocations above what was held.

Given several source trees (a checkout each, e.g. one made with `git archive`), it measures each in a
process of its own, alternately, `ROUNDS` times (default 3), and prints every round's MiB.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
SIZE = 20 * 1024 * 1024 - 1
BLOCK = bytes(range(256)) * 4096  # 1 MiB
CONTENT = (BLOCK * 20)[:SIZE]
SMALL = 64 * 1024


def serve() -> None:
    """The stand-ins (this tree's): the dossier service and its storage, and Slack's file download."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Mount, Route

    sys.path.insert(0, str(HERE))
    from bot.demo.ds import SCHEMA, FakeDS, load_schema

    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    ds = FakeDS(load_schema(SCHEMA))
    ds.url = f"http://127.0.0.1:{port}/api/v2/graphql"
    ds.add_demarche(101, "Banc d'essai", groups={1: ("Nord", ["alice@example.gouv.fr"])})
    for _ in range(10):
        ds.deposit(101, "en_instruction")

    async def download(request: Request) -> Response:
        assert request.headers.get("authorization") == "Bearer xoxb-bench"
        return Response(CONTENT if request.path_params["name"] == "big.pdf" else BLOCK[:SMALL], media_type="application/pdf")

    app = Starlette(routes=[Route("/files/{name}", download), Mount("/", app=ds.asgi())])
    print(port, flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off")).run(sockets=[listening])


def _peak_reset() -> int:
    """VmRSS now, in KiB, the peak (VmHWM) counted from here."""
    Path("/proc/self/clear_refs").write_text("5")
    return _kib("VmRSS")


def _kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise LookupError(field)


async def measure(port: int, count: int) -> dict[str, float]:
    """MiB of `count` uploads at once, in this process (run with a tree's folder first on sys.path)."""
    import aiohttp
    from pydantic import SecretStr
    from slack_sdk.web.async_client import AsyncWebClient

    from clients.dossiers.desk import DossierDesk
    from clients.dossiers.rate_limit import RateLimiter
    from clients.dossiers.service import DossierService
    from clients.dossiers.uploads import upload
    from clients.retry import RetryPolicy
    from handlers.desk.files import SlackFile, fetched

    base = f"http://127.0.0.1:{port}"
    service = DossierService(f"{base}/api/v2/graphql", SecretStr("ds-token-secret-value"), limiter=RateLimiter(1_000_000))
    desk = DossierDesk(service)
    ids = [(await desk.card(number)).id for number in range(1, 6)]
    policy = RetryPolicy(attempts=1, budget=120)
    big = SlackFile("big.pdf", "application/pdf", SIZE, f"{base}/files/big.pdf")
    small = SlackFile("small.pdf", "application/pdf", SMALL, f"{base}/files/small.pdf")
    figures: dict[str, float] = {}
    async with aiohttp.ClientSession() as session:
        slack = AsyncWebClient(token="xoxb-bench", base_url=f"{base}/api/", session=session)

        async def one(dossier_id: str, found: SlackFile = big) -> None:
            file = await fetched(slack, found)
            try:
                assert file.size == found.size
                await upload(service, dossier_id, file, policy)
            finally:
                file.close()

        await asyncio.gather(*(one(ids[i], small) for i in range(5)))
        before = _peak_reset()
        await asyncio.gather(*(one(ids[i]) for i in range(count)))
        figures[f"rss {count}"] = (_kib("VmHWM") - before) / 1024
        tracemalloc.start()
        held = tracemalloc.get_traced_memory()[0]
        await asyncio.gather(*(one(ids[i]) for i in range(count)))
        figures[f"traced {count}"] = (tracemalloc.get_traced_memory()[1] - held) / 2**20
        tracemalloc.stop()
    await service.aclose()
    return figures


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        return serve()
    if sys.argv[1:2] == ["--measure"]:
        sys.path.insert(0, sys.argv[4])
        os.chdir(sys.argv[4])
        print(json.dumps(asyncio.run(measure(int(sys.argv[2]), int(sys.argv[3])))))
        return None
    trees = [str(Path(tree).resolve()) for tree in sys.argv[1:]] or [str(HERE)]
    rounds = int(os.environ.get("ROUNDS", "3"))
    server = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        port = server.stdout.readline().strip()
        results: dict[str, list[dict[str, Any]]] = {tree: [{} for _ in range(rounds)] for tree in trees}
        for round_ in range(rounds):
            for tree in trees:
                for count in (1, 5):
                    started = time.monotonic()
                    out = subprocess.run([sys.executable, __file__, "--measure", port, str(count), tree],
                                         capture_output=True, text=True, check=True, timeout=600).stdout
                    results[tree][round_].update(json.loads(out.strip().splitlines()[-1]))
                    print(f"round {round_ + 1} {tree}: {count} at once {results[tree][round_]} "
                          f"({time.monotonic() - started:.0f} s, load {os.getloadavg()[0]:.1f})", file=sys.stderr)
    finally:
        server.terminate()
        server.wait(10)
    for tree, rows in results.items():
        print(f"{tree}:")
        for key in ("rss 1", "traced 1", "rss 5", "traced 5"):
            print(f"  {key:<9} MiB: " + ", ".join(f"{row[key]:.2f}" for row in rows))


if __name__ == "__main__":
    main()
