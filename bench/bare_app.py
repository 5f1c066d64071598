"""The baseline: a bare AsyncApp whose /room listener only acks, served like the bot (uvicorn + Starlette adapter)."""

import os

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
    web = Starlette(routes=[Route("/slack/events", events, methods=["POST"])])
    uvicorn.run(web, host="127.0.0.1", port=int(os.environ["PORT"]), log_level="warning")
