"""The dossier-service fake as a process of its own, for benchmarks: `PORT=… python bench/ds_server.py N:COUNT,…`.

`POST /admin/change {"demarche": N, "fraction": 0.01}` changes the state of that share of the
démarche's dossiers now, as instructors would during a day.
"""

import datetime as dt
import os
import random
import sys
from pathlib import Path

import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bot.demo.ds import SCHEMA, STATES, FakeDS, load_schema


def main() -> None:
    port, spec = int(os.environ["PORT"]), sys.argv[1]
    fake = FakeDS(load_schema(SCHEMA))
    if os.environ.get("DS_PER_WINDOW"):  # enforce the service's rate limit: N per epoch-aligned minute
        fake.per_window = int(os.environ["DS_PER_WINDOW"])
    sizes = {int(n): int(count) for n, count in (part.split(":") for part in spec.split(","))}
    fake.now = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=sum(sizes.values()) + 3600)
    for number, count in sizes.items():
        fake.add_demarche(number, f"Démarche {number}", dossiers=count, seed=number)

    async def change(request: Request) -> JSONResponse:
        body = await request.json()
        demarche = fake.demarches[body["demarche"]]
        fake.now = max(fake.now, dt.datetime.now(dt.UTC))
        chosen = random.Random(1).sample(demarche.dossiers, int(len(demarche.dossiers) * body["fraction"]))
        for dossier in chosen:
            fake.change(body["demarche"], dossier.number, random.choice([s for s in STATES if s != dossier.state]))
        return JSONResponse({"changed": len(chosen)})

    app = fake.asgi()
    async def stats(request: Request) -> JSONResponse:
        return JSONResponse({"too_many": fake.too_many, "requests": len(fake.queries)})

    app.router.routes.append(Route("/admin/change", change, methods=["POST"]))
    app.router.routes.append(Route("/admin/stats", stats, methods=["GET"]))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
