"""The bot's twin: a bare Bolt `AsyncApp` on its aiohttp server doing, for `/room list`,
`/room new` and `/dossier <n>`, the outside work the bot must do and nothing else.

Each command: the ack; the request claimed once in Redis (`SET NX EX` on its trigger id); the
person's e-mail (Redis, else `users.info`, then cached); for a room command their delegated token
(Redis, else the room service's token endpoint, then cached) and one room-service call; for
`/dossier` one read of the dossier's card and the check that the person is one of its group's
instructeurs; then one reply on the request's `response_url` over a kept-alive connection: a few
blocks for a room command, for `/dossier` a card of the bot's card's shape and size (its three
lines, its six buttons, one with a confirmation, its menu of three links), made into
`slack_sdk.models` and checked as a bare app builds Block Kit (the developers' guide: those models,
or the limits checked by hand, as the bot does); `TWIN_CARD=checked` sends it as Slack's JSON with the
limits checked by hand (the guide's other way), `TWIN_CARD=json` unchecked (the cheapest way, below
what the guide allows), `TWIN_CARD=short` the three small blocks the twin sent before
(2026-11-28). No configuration, translations, logs, metrics, validation models nor error words: what
the bot spends beyond this is what `python -m bench twin` measures.

`PORT=… REDIS_URL=… SLACK_API_URL=… MEET_API_URL=… MEET_CLIENT_ID=… MEET_CLIENT_SECRET=…
DS_API_URL=… DS_API_TOKEN=… python bench/twin_app.py`. `TWIN_IDEAS` (comma-separated) turns on the
ideas of issue 46 item 4, each measured against the plain twin: `pipeline` (the claim and both
cached reads in one Redis round trip), `orjson` (bodies encoded and decoded with orjson), `lean`
(Bolt's built-in middleware the twin does not need left out: SSL check, URL verification, self
events, the authorization's `auth.test`)."""

import asyncio
import importlib
import json
import os
import re
from collections.abc import Callable
from typing import Any, cast

import aiohttp
import redis.asyncio as aioredis
from slack_bolt.async_app import AsyncApp
from slack_bolt.authorization import AuthorizeResult
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    MarkdownTextObject,
    SectionBlock,
)
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.queries import GET_DOSSIER_CARD  # the bot's very document: the same request, the same answer

IDEAS = set(filter(None, os.environ.get("TWIN_IDEAS", "").split(",")))
#: `/dossier`'s reply: the bot's card's shape built with slack_sdk.models (checked), or `checked` the
#: same written as Slack's JSON with the limits checked by hand, or `json` the same unchecked, or
#: `short` the three small blocks the twin sent before
CARD = os.environ.get("TWIN_CARD", "models")
dumps: Callable[[object], bytes]
loads: Callable[[bytes], Any]
if "orjson" in IDEAS:  # as the bot reads answers and writes replies (since 2026-11-28, 08:00)
    orjson = importlib.import_module("orjson")
    dumps, loads = orjson.dumps, orjson.loads
else:
    dumps, loads = (lambda value: json.dumps(value).encode()), json.loads

MEET = os.environ["MEET_API_URL"].rstrip("/")
DS_URL, DS_TOKEN = os.environ.get("DS_API_URL", ""), os.environ.get("DS_API_TOKEN", "")
CREDENTIALS = {"client_id": os.environ["MEET_CLIENT_ID"], "client_secret": os.environ["MEET_CLIENT_SECRET"],
               "grant_type": "client_credentials"}
JSON = {"Content-Type": "application/json"}

#: commands wait for one of 64 connections, as the bot's do: redis-py's plain pool raises "Too many
#: connections" past 100 in use, and a burst's listeners lost their replies to it
redis = aioredis.Redis.from_pool(aioredis.BlockingConnectionPool.from_url(os.environ["REDIS_URL"], max_connections=64))
#: a pool of kept-alive connections per service, as the bot has (100 each, idle ones closed after 4 s)
sessions: dict[str, aiohttp.ClientSession] = {}

if "lean" in IDEAS:
    async def authorize(**_: object) -> AuthorizeResult:
        return AuthorizeResult(enterprise_id=None, team_id="T0TEAM", bot_token="xoxb-twin", bot_user_id="U0TWIN")

    app = AsyncApp(client=AsyncWebClient(token="xoxb-twin", base_url=os.environ["SLACK_API_URL"]), authorize=authorize,
                   signing_secret=os.environ["SLACK_SIGNING_SECRET"], ssl_check_enabled=False,
                   url_verification_enabled=False, ignoring_self_events_enabled=False, request_verification_enabled=True,
                   name="twin")
else:
    app = AsyncApp(client=AsyncWebClient(token="xoxb-twin", base_url=os.environ["SLACK_API_URL"]),
                   signing_secret=os.environ["SLACK_SIGNING_SECRET"], name="twin")


def session(service: str) -> aiohttp.ClientSession:
    if service not in sessions:  # made on first use: aiohttp binds a session to the running event loop
        sessions[service] = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=100, keepalive_timeout=4.0),
                                                  json_serialize=lambda value: dumps(value).decode())
    return sessions[service]


def person(body: dict) -> str:
    """Whose profile and token: kept by Slack user, so that both can be read before the e-mail is known."""
    return f"{body['team_id']}:{body['user_id']}"


async def cached_reads(body: dict) -> tuple[bool, Any, Any]:
    """The claim, the cached profile and (with `pipeline`) the cached token, read at once."""
    claim = f"twin:once:command:{body['team_id']}:{body['trigger_id']}"
    if "pipeline" in IDEAS:
        async with redis.pipeline(transaction=False) as pipe:
            pipe.set(claim, "1", nx=True, ex=600)
            pipe.get(f"twin:profile:{person(body)}")
            pipe.get(f"twin:token:{person(body)}")
            claimed, profile, token = await pipe.execute()
        return bool(claimed), profile, token
    claimed = await redis.set(claim, "1", nx=True, ex=600)
    return bool(claimed), await redis.get(f"twin:profile:{person(body)}"), None


async def email_of(client: AsyncWebClient, body: dict, cached: Any) -> str:
    if cached is not None:
        return loads(cached)["email"]
    user = (await client.users_info(user=body["user_id"], include_locale=True))["user"]
    email = user["profile"]["email"]
    await redis.set(f"twin:profile:{person(body)}", dumps({"email": email, "locale": user.get("locale")}), ex=600)
    return email


async def token_of(body: dict, email: str, cached: Any) -> str:
    if cached is None:
        cached = await redis.get(f"twin:token:{person(body)}")
    if cached is not None:
        return loads(cached)["token"]
    async with session("rooms").post(f"{MEET}/application/token/", json={**CREDENTIALS, "scope": email}) as answer:
        grant = loads(await answer.read())
    await redis.set(f"twin:token:{person(body)}", dumps({"token": grant["access_token"]}), ex=grant["expires_in"] - 60)
    return grant["access_token"]


async def reply(body: dict, blocks: list[Block] | list[dict]) -> None:
    """`blocks`: slack_sdk's (checked by `to_dict`) or Slack's JSON as is; a section comes first."""
    shown = [block if isinstance(block, dict) else block.to_dict() for block in blocks]
    message = {"response_type": "ephemeral", "text": shown[0]["text"]["text"], "blocks": shown}
    await posted("slack", body["response_url"], dumps(message), JSON)


async def posted(service: str, url: str, data: bytes, headers: dict[str, str]) -> bytes:
    """The answer's body; once more after a connection error (a kept-alive connection the server
    closed as it was taken), as the bot does for its replies (slack_sdk's webhook client) and its
    dossier reads (its retry policy)."""
    for attempt in range(2):
        try:
            async with session(service).post(url, data=data, headers=headers) as answer:
                return await answer.read()
        except (aiohttp.ServerConnectionError, aiohttp.ClientOSError):
            if attempt:
                raise
            await asyncio.sleep(0.5)
    raise AssertionError("unreachable: the second attempt returns or raises")


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@app.command("/room")
async def room(ack, body: dict, client: AsyncWebClient) -> None:
    await ack()
    claimed, profile, cached_token = await cached_reads(body)
    if not claimed:
        return
    email = await email_of(client, body, profile)
    token = await token_of(body, email, cached_token)
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if body.get("text", "").strip() == "new":
        async with session("rooms").post(f"{MEET}/rooms/", data=b"{}", headers={**headers, **JSON}) as answer:
            made = loads(await answer.read())
        link = f"<{escape(made['url'])}|{escape(made['slug'])}>"
        blocks: list[Block] = [SectionBlock(text=MarkdownTextObject(text=f"Your room is ready: {link}")),
                  ActionsBlock(elements=[ButtonElement(text="Join", url=made["url"], action_id="twin_join")]),
                  ContextBlock(elements=[MarkdownTextObject(text=f"PIN {made.get('pin_code') or '—'}")])]
    else:
        async with session("rooms").get(f"{MEET}/rooms/", headers=headers) as answer:
            page = loads(await answer.read())
        lines = [f"• <{escape(r['url'])}|{escape(r['name'] or r['slug'])}>" for r in page["results"]] or ["You have no room yet."]
        blocks = [SectionBlock(text=MarkdownTextObject(text="\n".join(lines)[:3000])),
                  ContextBlock(elements=[MarkdownTextObject(text=f"{page['count']} room(s)")])]
    await reply(body, blocks)


#: the card's first act by state, as the bot offers it (its other acts: `message`, `follow`)
FIRST_ACT = {"en_construction": ("Start review", "dossier_start"), "en_instruction": ("Decide", "dossier_decide")}


def card_json(card: dict) -> list[dict]:
    """The bot's card, in the shape the bot sends (a section of three lines, the acts, the edits
    and the service's other pages): the same reply, so that the same work is measured. As Slack's
    JSON; parsed into slack_sdk.models, checked by their `to_dict` as a bare app checks Block Kit."""
    number, demarche = card["number"], card["demarche"]
    page = f"https://ds.example/procedures/{demarche['number']}/dossiers/{number}"
    depot = (card.get("dateDepot") or "")[:10]
    said = (f"*Dossier n° {number}* · {escape(demarche['title'])} (n° {demarche['number']})\n"
            f"{card['state']} since {depot} · deposited {depot} · group {escape(card['groupeInstructeur']['label'])} · "
            f"{len(card.get('messages') or [])} message(s) · you do not follow it\n<{page}|Open it on the dossier service>")
    title, action = FIRST_ACT.get(card["state"], ("Open", "dossier_open"))
    value = str(number)

    def button(text: str, action_id: str, value: str, **more: object) -> dict:
        return {"type": "button", "text": {"type": "plain_text", "text": text, "emoji": True}, "action_id": action_id,
                "value": value, **more}

    def plain(text: str) -> dict:
        return {"type": "plain_text", "text": text, "emoji": True}

    confirm = {"title": plain(f"{title}?"), "text": {"type": "mrkdwn", "text": f"Dossier n° {number}: {title.lower()}, in your name."},
               "confirm": plain(title), "deny": plain("Cancel")}
    acts = [button(title, action, value, style="primary", confirm=confirm), button("Message", "dossier_message", f"{value}:c"),
            button("Follow", "dossier_follow", value)]
    elsewhere = [{"text": plain(text), "value": key, "url": f"{page}{tail}"} for key, text, tail in
                 (("avis", "Ask an expert for an avis (on the service)", "/avis"),
                  ("exports", "Exports (on the service)", "/exports"),
                  ("appointments", "Appointments (on the service's dossier page)", ""))]
    edits = [button("Labels", "dossier_labels", value), button("Send to another group", "dossier_regroup", value),
             button("Private annotations", "dossier_annotations", value),
             {"type": "overflow", "action_id": "dossier_elsewhere", "options": elsewhere}]
    return [{"type": "section", "text": {"type": "mrkdwn", "text": said, "verbatim": True}},
            {"type": "actions", "block_id": "acts", "elements": acts}, {"type": "actions", "block_id": "edits", "elements": edits}]


#: Block Kit's limits on what the card holds (Slack's reference, as slack_sdk's models check them)
PLAIN_MOST = {"button": 75, "title": 100, "confirm": 30, "deny": 30, "option": 75}


def checked(blocks: list[dict]) -> list[dict]:
    """The card as Slack's JSON with Block Kit's limits checked by hand — the developers' guide's
    other way (a bare app's cheapest that the guide allows): at most 50 blocks, 3,000 characters a
    section, 25 elements an actions block, 255 an action id, 2,000 a button's value, a button's
    label 75, a confirmation's title 100 and text 300 and buttons 30, 5 options an overflow menu of
    labels of 75, values of 150 and links of 3,000."""
    def fits(words: str | list, most: int, what: str) -> None:
        if len(words) > most:
            raise ValueError(f"{what} cannot exceed {most}")

    fits(blocks, 50, "blocks")
    for block in blocks:
        if block["type"] == "section":
            fits(block["text"]["text"], 3000, "a section's text")
            continue
        fits(block.get("elements", []), 25, "an actions block's elements")
        for element in block.get("elements", []):
            fits(element["action_id"], 255, "action_id")
            if element["type"] == "button":
                fits(element["text"]["text"], PLAIN_MOST["button"], "a button's text")
                fits(element.get("value", ""), 2000, "a button's value")
                confirm = element.get("confirm")
                if confirm:
                    fits(confirm["text"]["text"], 300, "a confirmation's text")
                    for part in ("title", "confirm", "deny"):
                        fits(confirm[part]["text"], PLAIN_MOST[part], f"a confirmation's {part}")
            else:
                fits(element["options"], 5, "an overflow menu's options")
                for option in element["options"]:
                    fits(option["text"]["text"], PLAIN_MOST["option"], "an option's text")
                    fits(option["value"], 150, "an option's value")
                    fits(option["url"], 3000, "an option's url")
    return blocks


def short_card(card: dict) -> list[Block]:
    return [SectionBlock(text=MarkdownTextObject(text=f"*Dossier {card['number']}* · {escape(card['demarche']['title'])}")),
            ContextBlock(elements=[MarkdownTextObject(text=f"{card['state']} · {escape(card['groupeInstructeur']['label'])}")]),
            ActionsBlock(elements=[ButtonElement(text="Open", url=f"https://ds.example/dossiers/{card['number']}",
                                                 action_id="twin_open")])]


@app.command("/dossier")
async def dossier(ack, body: dict, client: AsyncWebClient) -> None:
    await ack()
    claimed, profile, _ = await cached_reads(body)
    if not claimed:
        return
    email = (await email_of(client, body, profile)).strip().lower()
    number = int(re.sub(r"\D", "", body.get("text", "")) or 0)
    query = {"query": GET_DOSSIER_CARD, "operationName": "getDossierCard", "variables": {"dossierNumber": number}}
    answer = await posted("dossiers", DS_URL, dumps(query), {**JSON, "Authorization": f"Bearer {DS_TOKEN}"})
    card = (loads(answer).get("data") or {}).get("dossier") or {}
    group = (card.get("groupeInstructeur") or {}).get("instructeurs") or []
    blocks: list[Block] | list[dict]
    if not any(person["email"].strip().lower() == email for person in group):
        blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": f"No dossier {number} you may see."}}]
    else:
        blocks = short_card(card) if CARD == "short" else card_json(card) if CARD == "json" else \
            checked(card_json(card)) if CARD == "checked" else \
            [cast(Block, Block.parse(block)) for block in card_json(card)]  # each is a block
    await reply(body, blocks)


if __name__ == "__main__":
    app.start(port=int(os.environ["PORT"]), path="/slack/events", host="127.0.0.1")
