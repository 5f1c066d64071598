"""CPU of one outside HTTP call, layer by layer: `python bench/http_layers.py [TREE …]`.

Each command makes one or two calls: `/dossier <n>` a dossier-service POST (the card) and the
reply to Slack's `response_url`; `/room list` and `/room new` a room-service call and the reply.
This measures the CPU (the client process's `time.process_time()`) of each call, layer by layer,
against a server in another process that answers what the fakes answer (captured from
`bot/demo`'s FakeDS and FakeMeet once, replayed byte for byte), so that only the client is timed:

- `floor`: aiohttp's `session.post` (or `get`) and `json.loads`, as the twin (bench/twin_app.py) calls;
- `transport`, `retry`, `service`: the bot's layers, each with those below it (what a tree has of them);
- `reply`: `handlers.responses.post` of a `/dossier` card's reply.

Given several source trees (a checkout each, e.g. one made with `git archive`), it measures each
in a process of its own, alternately, `ROUNDS` times (default 6), and prints the median µs a call
per layer and tree. `CALLS` calls a layer a round (default 1,000), one at a time.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

HERE = Path(__file__).resolve().parents[1]
ANSWERS = Path(os.environ.get("ANSWERS", "/tmp/http-layers-answers.json"))


# --- the answers, captured once from the fakes ---------------------------------------------
def capture() -> None:
    sys.path.insert(0, str(HERE))
    import httpx

    from bot.demo.ds import SCHEMA, FakeDS, load_schema
    from bot.demo.loopback import LoopbackServer
    from bot.demo.meet import FakeMeet
    from clients.dossiers.queries import GET_DOSSIER_CARD

    ds = FakeDS(load_schema(SCHEMA))
    ds.add_demarche(101, "Subvention <vélo>", admins=("ada@example.gouv.fr",),
                    groups={1: ("Nord", ["alice@example.gouv.fr", "bob@example.gouv.fr"])})
    number = ds.deposit(101).number
    ds.label(101, number, "urgent")
    meet = FakeMeet()
    email = "alice@example.gouv.fr"
    meet.add_user(email)
    for slug in ("abc-defg-hij", "klm-nopq-rst", "uvw-xyza-bcd"):
        meet.add_room(email, slug)
    answers: dict[str, Any] = {}
    servers = [LoopbackServer(ds.asgi()).start(), LoopbackServer(meet.asgi()).start()]
    try:
        ds_url, meet_url = servers[0].url, servers[1].url + "/external-api/v1.0"
        with httpx.Client() as http:
            card = {"query": GET_DOSSIER_CARD, "operationName": "getDossierCard", "variables": {"dossierNumber": number}}
            kept = [("POST /graphql", http.post(ds_url + "/api/v2/graphql", json=card,
                                                headers={"Authorization": f"Bearer {ds.token}"}))]
            grant = http.post(meet_url + "/application/token/", json={
                "client_id": meet.app_config.client_id, "client_secret": meet.app_config.client_secret,
                "grant_type": "client_credentials", "scope": email})
            token = grant.json()["access_token"]
            bearer = {"Authorization": f"Bearer {token}"}
            kept.append(("GET /rooms/", http.get(meet_url + "/rooms/", headers=bearer)))
            kept.append(("POST /rooms/", http.post(meet_url + "/rooms/", json={}, headers=bearer)))
        for route, response in kept:
            assert response.status_code < 300, (route, response.status_code, response.text[:300])
            head = [f"HTTP/1.1 {response.status_code} {response.reason_phrase}"]
            head += [f"{name}: {value}" for name, value in response.headers.multi_items()]
            answers[route] = ("\r\n".join(head) + "\r\n\r\n", response.text)
        answers["POST /reply"] = ("HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 2\r\n\r\n", "ok")
        answers["number"] = number
    finally:
        for server in servers:
            server.stop()
    ANSWERS.write_text(json.dumps(answers))


# --- the server: the captured answers, by method and path, on kept-alive connections ---------
class Replay(asyncio.Protocol):
    answers: ClassVar[dict[bytes, bytes]] = {}

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport, self.buffer = transport, b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head = self.buffer[:end].decode("latin-1")
            length = next((int(line.split(":", 1)[1]) for line in head.split("\r\n")[1:]
                           if line.lower().startswith("content-length:")), 0)
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length:]
            method, target, _ = head.split("\r\n", 1)[0].split(" ")
            path = target.split("?")[0]
            route = f"{method} {next(end for end in ('/graphql', '/reply', '/rooms/') if path.endswith(end))}"
            self.transport.write(self.answers[route.encode()])  # type: ignore[attr-defined]


def serve() -> None:
    answers = json.loads(ANSWERS.read_text())
    answers.pop("number")
    Replay.answers = {route.encode(): head.encode() + body.encode() for route, (head, body) in answers.items()}

    async def run() -> None:
        server = await asyncio.get_running_loop().create_server(Replay, "127.0.0.1", 0)
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the parent closes it

    asyncio.run(run())


# --- the client: one tree's layers ------------------------------------------------------------
async def layers(base: str, calls: int) -> dict[str, float]:
    import aiohttp
    import httpx
    from pydantic import SecretStr

    from clients.dossiers.queries import GET_DOSSIER_CARD
    from clients.dossiers.rate_limit import RateLimiter
    from clients.dossiers.service import SERVICE, DossierService
    from clients.errors import read_json
    from clients.retry import RetryPolicy
    from clients.rooms.service import RoomService
    from handlers import responses

    number = json.loads(ANSWERS.read_text())["number"]  # noqa: ASYNC240 (before the measures)
    variables = {"dossierNumber": number}
    body = {"query": GET_DOSSIER_CARD, "operationName": "getDossierCard", "variables": variables}
    ds_url = base + "/api/v2/graphql"
    ds = DossierService(ds_url, SecretStr("ds-token"), limiter=RateLimiter(1_000_000))
    rooms = RoomService(base + "/external-api/v1.0", "roombot-app", SecretStr("secret"))
    token = SecretStr("a-delegated-token")
    transport: Any = ds._transport()
    policy = RetryPolicy(attempts=6, budget=300.0)
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=100, keepalive_timeout=4.0))
    headers = {"Content-Type": "application/json", "Authorization": "Bearer ds-token"}
    reply = json.dumps({"text": "n° 12", "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 40}}] * 12}).encode()

    async def floor() -> None:
        async with session.post(ds_url, data=json.dumps(body).encode(), headers=headers) as answer:
            json.loads(await answer.read())

    async def transport_call() -> Any:
        if hasattr(transport, "handle_async_request"):  # a tree whose transport takes httpx's requests
            old: Any = ds
            request = httpx.Request("POST", old._url, json=body, headers=old._headers, extensions=old._extensions)
            response = await transport.handle_async_request(request)
            await response.aread()
            return response
        from clients.aiohttp_transport import json_body

        pool, url, timeout = transport
        return await pool.send("POST", url, ds._headers, json_body(body), timeout)

    async def through_transport() -> None:
        read_json(await transport_call())

    async def through_retry() -> None:
        read_json(await policy.send(SERVICE, transport_call, idempotent=True))

    async def service() -> None:
        await ds.query("getDossierCard", GET_DOSSIER_CARD, variables)

    async def rooms_floor() -> None:
        async with session.get(base + "/external-api/v1.0/rooms/", headers={"Authorization": "Bearer t"}) as answer:
            json.loads(await answer.read())

    async def room_list() -> None:
        await rooms.list_rooms(token)

    async def room_new() -> None:
        await rooms.create_room(token)

    async def reply_floor() -> None:
        async with session.post(base + "/reply", data=reply, headers=responses.HEADERS) as answer:
            await answer.text()

    async def reply_post() -> None:
        await responses.post(session, base + "/reply", reply)

    measured = {"card: floor (aiohttp + json.loads)": floor, "card: + transport": through_transport,
                "card: + retry policy": through_retry, "card: DossierService.query": service,
                "room list: floor": rooms_floor, "room list: RoomService.list_rooms": room_list,
                "room new: RoomService.create_room": room_new,
                "reply: floor": reply_floor, "reply: responses.post": reply_post}
    times = {}
    for name, call in measured.items():
        for _ in range(50):  # connections opened, caches warm
            await call()
        started = time.process_time()
        for _ in range(calls):
            await call()
        times[name] = (time.process_time() - started) / calls * 1e6
        if os.environ.get("PROFILE") == name.split(":")[0] + ":" + str(list(measured).index(name)):
            import cProfile
            import pstats
            profile = cProfile.Profile(time.process_time)
            profile.enable()
            for _ in range(calls):
                await call()
            profile.disable()
            pstats.Stats(profile, stream=sys.stderr).sort_stats("tottime").print_stats(45)
    await session.close()
    await ds.aclose()
    await rooms.aclose()
    return times


def child(base: str) -> None:
    sys.path.insert(0, os.getcwd())
    import logging

    logging.disable(logging.INFO)  # the retry policy's line a call: logged in the bot, to no handler here
    print(json.dumps(asyncio.run(layers(base, int(os.environ.get("CALLS", "1000"))))))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ("--serve", "--child"):
        serve() if sys.argv[1] == "--serve" else child(sys.argv[2])
        return
    trees = [str(Path(tree).resolve()) for tree in sys.argv[1:]] or [str(HERE)]
    capture()  # afresh each run: what the fakes answer today
    server = subprocess.Popen([sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        base = f"http://127.0.0.1:{server.stdout.readline().strip()}"
        results: dict[str, list[dict[str, float]]] = {tree: [] for tree in trees}
        for round_ in range(int(os.environ.get("ROUNDS", "6"))):
            for tree in trees:
                out = subprocess.run([sys.executable, __file__, "--child", base], cwd=tree, check=True,
                                     stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": tree}).stdout
                results[tree].append(json.loads(out))
                print(f"round {round_ + 1} {Path(tree).name}: "
                      + ", ".join(f"{v:.0f}" for v in results[tree][-1].values()), file=sys.stderr)
        names = list(results[trees[0]][0])
        print("| µs of CPU a call (median) | " + " | ".join(Path(tree).name for tree in trees) + " |")
        print("|---|" + "---|" * len(trees))
        for name in names:
            cells = [f"{statistics.median(r[name] for r in results[tree]):.0f}" for tree in trees]
            print(f"| {name} | " + " | ".join(cells) + " |")
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(10)
        ANSWERS.unlink(missing_ok=True)  # captured afresh by the next run: nothing left behind


if __name__ == "__main__":
    main()
