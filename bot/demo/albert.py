"""A loopback Albert API (albert-api.md) with its real shapes and faults.

Key routes by generation (0: OpenGateLLM 0.1.x, `/tokens` at the root + `token`, other key routes
404; 1: `/v1/tokens` + `token`; 2: `/v1/me/keys`, create answers `key`, delete 204, no total; 3:
`/v1/keys`, `value`, delete 200, `total`); an optional maximum key lifetime that silently caps
`expires: null`; the master key (chats, owns no keys: 404 `User not found.` on key routes);
FastAPI-style errors; 429 without Retry-After; 503 with `Retry-After: 10`; the gateway's 500
`ConnectError` and 504 `model is too busy`; the nginx HTML 504; and streams cut three ways.
Models have aliases that chat accepts (answering with the provider's own model name); an unknown
model is 404 `Model not found.`, and a model the key's role has no limit for is 403 on chat while
`/v1/models` still lists it (albert-api.md §1b).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

BOOTSTRAP = "sk-bootstrap-operator-key-0123456789abcdef"
MASTER = "master-key-of-the-gateway-0123456789"
MODEL = "albert-small"
PROVIDER_MODEL = "mistralai/Mistral-Small-3.2-24B-Instruct-2506"


@dataclass
class FakeAlbert:
    generation: int = 2
    keys: dict[int, dict[str, Any]] = field(default_factory=dict)
    faults: list[str] = field(default_factory=list)  # next chat answers: 429, 429day, 503, 500connect, 500cut, 504html, cut_*
    reply: str = "Les dossiers progressent : 12 nouveaux dépôts, surtout sur la démarche 101."
    #: answers by the language the instructions ask for ("en", "fr"), as a model answers in the
    #: language it is asked in; `reply` for a language not here
    replies: dict[str, str] = field(default_factory=dict)
    chats: list[dict[str, Any]] = field(default_factory=list)
    calls: list[tuple[str, str, str]] = field(default_factory=list)  # method, path, key used
    delay: float = 0.0
    new_keys_work: bool = True  # False: keys created from now on are refused (a broken rotation)
    max_expiry_days: int | None = None  # the server's maximum key lifetime, when set
    models: dict[str, list[str]] = field(default_factory=lambda: {MODEL: ["openweight-small"], "albert-large": []})
    unlimited_models: set[str] = field(default_factory=set)  # listed, but the keys' role has no limit for them
    account_expired: bool = False  # the account behind the keys expired: every key of it is refused
    moved_to: str | None = None  # the gateway moved: every request is answered 301 to this address
    url: str = ""
    _next_id: int = 1

    def __post_init__(self) -> None:
        self._add_key("operator", BOOTSTRAP, None)

    def _add_key(self, name: str, secret: str, expires: int | None) -> dict[str, Any]:
        entry = {"id": self._next_id, "name": name, "secret": secret, "expires": expires, "created": int(time.time()),
                 "revoked": False, "disabled": not self.new_keys_work and name != "operator"}
        self.keys[self._next_id] = entry
        self._next_id += 1
        return entry

    def live(self, secret: str) -> bool:
        return any(k["secret"] == secret and not k["revoked"] and not k["disabled"] for k in self.keys.values())

    @property
    def route(self) -> str:
        return {0: "/tokens", 1: "/v1/tokens", 2: "/v1/me/keys", 3: "/v1/keys"}[self.generation]

    def asgi(self) -> Starlette:
        return Starlette(routes=[Route("/{path:path}", self._dispatch, methods=["GET", "POST", "DELETE", "PATCH"])])

    async def _dispatch(self, request: Request) -> Response:
        path = "/" + request.path_params["path"]
        header = request.headers.get("authorization", "")
        secret = header.removeprefix("Bearer ") if header.startswith("Bearer ") else ""
        self.calls.append((request.method, path, secret))
        if self.moved_to is not None:
            return Response(status_code=301, headers={"location": self.moved_to + path})
        refused = self._refused(secret, path, request.method)
        if refused is not None:
            return refused
        if self.delay:
            await asyncio.sleep(self.delay)
        if path == "/v1/models" and request.method == "GET":
            return JSONResponse({"object": "list", "data": [
                {"id": name, "object": "model", "type": "text-generation", "aliases": aliases, "owned_by": "albert"}
                for name, aliases in self.models.items()]})
        if path == "/v1/chat/completions" and request.method == "POST":
            return await self._chat(request)
        if path == self.route or path.startswith(self.route + "/"):
            return await self._keys(request, path[len(self.route):].strip("/"))
        return JSONResponse({"detail": "Not Found"}, status_code=404)

    def _refused(self, secret: str, path: str, method: str) -> Response | None:
        """No key (401), a key that is not live (403, 401 from the 0.4 gateway), or the master key
        where it is no user's: as each generation of the gateway answers."""
        if not secret:
            return JSONResponse({"detail": "Not authenticated"}, status_code=401, headers={"www-authenticate": "Bearer"})
        if secret == MASTER:
            if self.generation == 0 and path == self.route and method == "GET":
                return JSONResponse({"object": "list", "data": []})  # the 0.1.x gateway lists nothing for it
            if path == self.route or path.startswith(self.route + "/") or path == "/users/me":
                return JSONResponse({"detail": "User not found."}, status_code=404)
        elif not self.live(secret) or self.account_expired:
            return JSONResponse({"detail": "Invalid API key."}, status_code=403 if self.generation < 3 else 401)
        return None

    async def _chat(self, request: Request) -> Response:
        body = json.loads(await request.body())
        self.chats.append(body)
        model = next((name for name, aliases in self.models.items() if body.get("model") in (name, *aliases)), None)
        if model is None:
            return JSONResponse({"detail": "Model not found."}, status_code=404)
        if model in self.unlimited_models:
            return JSONResponse({"detail": f"Insufficient permissions to access the model {model}."}, status_code=403)
        fault = self.faults.pop(0) if self.faults else None
        stream = bool(body.get("stream"))
        if fault == "429":
            return JSONResponse({"detail": "3 requests per minute exceeded (remaining: 0)."}, status_code=429)
        if fault == "429day":
            return JSONResponse({"detail": "10 requests per day exceeded (remaining: 0)."}, status_code=429)
        if fault == "503":
            return JSONResponse({"detail": "Model is too busy (ReadTimeout), please try again later"}, status_code=503,
                                headers={"Retry-After": "10"})
        if fault == "500connect":
            return JSONResponse({"detail": "ConnectError"}, status_code=500)
        if fault == "500cut":  # the provider cut its answer short
            return JSONResponse({"detail": "RemoteProtocolError"}, status_code=500)
        if fault == "504busy":
            return JSONResponse({"detail": "Request timed out, model is too busy."}, status_code=504)
        if fault == "502html":  # the provider's own error page, which the gateway passes on as `detail`
            return JSONResponse({"detail": "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1>"
                                           "<p>upstream vllm-1</p></body></html>"}, status_code=502)
        if fault == "504html":
            return Response("<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center>"
                            "<hr><center>nginx/1.27.0</center></body></html>", status_code=504, media_type="text/html")
        answer = self.replies.get(_asked_language(body), self.reply)
        if not stream:
            return JSONResponse({"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": PROVIDER_MODEL,
                                 "choices": [{"index": 0, "message": {"role": "assistant", "content": answer},
                                              "finish_reason": "stop"}],
                                 "usage": {"prompt_tokens": 20, "completion_tokens": 15, "total_tokens": 35, "cost": 0.0, "requests": 1}})
        return StreamingResponse(self._stream(answer, fault), media_type="text/event-stream")

    async def _stream(self, answer: str, fault: str | None) -> AsyncIterator[bytes]:
        words = answer.split(" ")
        half = len(words) // 2
        for index, word in enumerate(words):
            if fault and index == half:
                if fault == "cut_detail":
                    yield b'{"detail": "Model is too busy (RemoteProtocolError), please try again later."}\n\n'
                elif fault == "cut_event":
                    yield b'event: error\ndata: {"error": {"message": "Internal Server Error"}}\n\n'
                return  # cut_drop: the connection just ends
            chunk = {"id": "c", "object": "chat.completion.chunk", "model": MODEL,
                     "choices": [{"index": 0, "delta": {"content": word + (" " if index < len(words) - 1 else "")}, "finish_reason": None}]}
            yield f"data: {json.dumps(chunk)}\n\n".encode()
        final = {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        yield f"data: {json.dumps(final)}\n\n".encode()
        yield f"data: {json.dumps({'id': 'c', 'choices': [], 'usage': {'prompt_tokens': 3}})}\n\n".encode()
        yield b"data: [DONE]\n\n"

    async def _keys(self, request: Request, rest: str) -> Response:
        if request.method == "POST" and not rest:
            return self._create_key(json.loads(await request.body()))
        if request.method == "GET" and not rest:
            return self._list_keys(int(request.query_params.get("offset", 0)), int(request.query_params.get("limit", 10)))
        key = self.keys.get(int(rest)) if rest.isdigit() else None
        if key is None or key["revoked"]:
            return JSONResponse({"detail": "Token not found."}, status_code=404)
        if request.method == "GET":
            return JSONResponse(self._shown(key))
        if request.method == "DELETE":
            key["revoked"] = True
            return Response(status_code=204) if self.generation < 3 else JSONResponse(self._shown(key) | {"status": "revoked"})
        return JSONResponse({"detail": "Method Not Allowed"}, status_code=405)

    def _create_key(self, body: dict[str, Any]) -> Response:
        """A new key, as each generation of the gateway names its fields; a longest life, capped silently."""
        expires = body.get("expires_at" if self.generation <= 1 else "expires")
        if expires is not None and expires < time.time():
            return JSONResponse({"detail": [{"type": "value_error", "loc": ["body", "expires"],
                                             "msg": "Value error, Wrong timestamp, must be in the future."}]}, status_code=422)
        if self.max_expiry_days is not None:
            latest = int(time.time()) + self.max_expiry_days * 86400
            if expires is not None and expires > latest:
                return JSONResponse({"detail": "Token expiration timestamp cannot be greater than "
                                               f"{self.max_expiry_days} days from now."}, status_code=400)
            expires = latest if expires is None else expires  # capped silently, not said in the reply
        entry = self._add_key(body["name"], "sk-" + secrets.token_urlsafe(32), expires)
        secret_field = {0: "token", 1: "token", 2: "key", 3: "value"}[self.generation]
        reply = {"id": entry["id"], secret_field: entry["secret"]}
        if self.generation == 3:
            reply |= {"object": "key", "name": entry["name"], "expires": expires, "created": entry["created"], "status": "active"}
        return JSONResponse(reply, status_code=201)

    def _list_keys(self, offset: int, limit: int) -> Response:
        if limit > 100:
            return JSONResponse({"detail": [{"type": "less_than_equal", "loc": ["query", "limit"],
                                             "msg": "Input should be less than or equal to 100"}]}, status_code=422)
        live = [k for k in self.keys.values() if not k["revoked"]]
        page = [self._shown(k) for k in live[offset : offset + limit]]
        listing: dict[str, Any] = {"object": "list", "data": page}
        if self.generation == 3:
            listing |= {"total": len(live), "offset": offset, "limit": limit}
        return JSONResponse(listing)

    def _shown(self, key: dict[str, Any]) -> dict[str, Any]:
        masked = key["secret"][:8] + "..." + key["secret"][-8:]
        if self.generation <= 1:
            return {"object": "token", "id": key["id"], "name": key["name"], "token": masked,
                    "expires_at": key["expires"], "created_at": key["created"]}
        shown = {"object": "key", "id": key["id"], "name": key["name"], "expires": key["expires"], "created": key["created"]}
        return shown | ({"token": masked} if self.generation == 2 else {"value": masked, "status": "active"})


def _asked_language(body: dict[str, Any]) -> str:
    """The language the system message asks the answer in (the bot's instructions say it in words)."""
    asked = " ".join(str(message.get("content", "")) for message in body.get("messages", []) if message.get("role") == "system")
    return "en" if "English" in asked else "fr" if "français" in asked else ""
