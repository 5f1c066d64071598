"""The baseline: a bare AsyncApp whose /room listener only acks.

`python bench/bare_app.py` serves it like the bot (uvicorn + Bolt's Starlette adapter);
`python bench/bare_app.py aiohttp` on Bolt's own aiohttp server (`AsyncApp.start`)."""

import os
import sys

import uvicorn
from slack_bolt.adapter.starlette.async_handler import AsyncSlackRequestHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route

app = AsyncApp(
    client=AsyncWebClient(token="xoxb-bare", base_url=os.environ["SLACK_API_URL"]),
    signing_secret=os.environ["SLACK_SIGNING_SECRET"],
)


@app.command("/room")
async def ack_only(ack) -> None:
    await ack()


handler = AsyncSlackRequestHandler(app)


async def events(request: Request):
    return await handler.handle(request)


if __name__ == "__main__":
    port = int(os.environ["PORT"])
    if sys.argv[1:] == ["aiohttp"]:
        app.start(port=port, path="/slack/events", host="127.0.0.1")
    else:
        web = Starlette(routes=[Route("/slack/events", events, methods=["POST"])])
        uvicorn.run(web, host="127.0.0.1", port=port, log_level="warning")
