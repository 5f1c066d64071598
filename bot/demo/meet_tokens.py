"""The Meet stand-in's applications and their tokens: the token endpoint and each request's bearer check.

Apart from the rooms because this is the service's door, not its rooms (meet-api.md §2–§3, §5c):
the client-credentials grant with the person's e-mail as its scope, DRF's refusals word for word
(415, 400 per field, 401 with `WWW-Authenticate`, 403 for another domain, 404 for an unknown
person), tokens that expire, an application made inactive, and — `APPLICATION_ENABLED` off — tokens
it issued before falling through to the OIDC check (401 `Resource Server is improperly configured`).
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

ALL_SCOPES = "rooms:list rooms:retrieve rooms:create"


@dataclass
class Application:
    client_id: str = "roombot-app"
    client_secret: str = "app-secret-value"
    active: bool = True
    domains: tuple[str, ...] = ()  # empty: any e-mail domain
    scopes: str | None = ALL_SCOPES


class Accounts(Protocol):
    """What the door reads and keeps of the stand-in (bot.demo.meet.FakeMeet)."""

    app_config: Application
    applications_enabled: bool
    expires_in: int
    users: dict[str, dict[str, Any]]
    tokens: dict[str, dict[str, Any]]
    token_requests: list[str]


class Door:
    """POST /application/token/, and the bearer check of every rooms request."""

    def __init__(self, meet: Accounts) -> None:
        self.meet = meet

    async def token(self, request: Request) -> Response:
        if request.method != "POST":
            return JSONResponse({"detail": f'Method "{request.method}" not allowed.'}, status_code=405)
        kind = request.headers.get("content-type", "").split(";")[0]
        raw = await request.body()
        if kind == "application/json":
            data = json.loads(raw or b"{}")
        elif kind == "application/x-www-form-urlencoded":
            data = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
        else:
            return JSONResponse({"detail": f'Unsupported media type "{kind}" in request.'}, status_code=415)
        if not isinstance(data, dict):
            expected = f"Invalid data. Expected a dictionary, but got {type(data).__name__}."
            return JSONResponse({"non_field_errors": [expected]}, status_code=400)
        missing = {k: ["This field is required."] for k in ("client_id", "client_secret", "grant_type", "scope") if k not in data}
        if missing:
            return JSONResponse(missing, status_code=400)
        if data["scope"] == "":
            return JSONResponse({"scope": ["This field may not be blank."]}, status_code=400)
        if data["grant_type"] != "client_credentials":
            return JSONResponse({"grant_type": [f'"{data["grant_type"]}" is not a valid choice.']}, status_code=400)
        return self._grant(data)

    def _grant(self, data: dict[str, Any]) -> Response:
        """A token for the person the request names, when the application may have one."""
        meet, app = self.meet, self.meet.app_config
        meet.token_requests.append(data["scope"])
        if data["client_id"] != app.client_id or data["client_secret"] != app.client_secret:
            return JSONResponse({"detail": "Invalid credentials"}, status_code=401, headers={"WWW-Authenticate": "Session"})
        if not app.active:
            return JSONResponse({"detail": "Application is inactive"}, status_code=401, headers={"WWW-Authenticate": "Session"})
        email = str(data["scope"]).strip()
        if "@" not in email or " " in email or email.startswith("@") or email.endswith("@"):
            return JSONResponse({"error": "Scope should be a valid email address."}, status_code=400)
        if app.domains and email.lower().rpartition("@")[2] not in app.domains:
            return JSONResponse({"error": "This application is not authorized for this email domain."}, status_code=403)
        user = meet.users.get(email.lower())
        if user is None:
            return JSONResponse({"detail": "User not found."}, status_code=404)
        token = secrets.token_urlsafe(24)
        meet.tokens[token] = {"user": user["id"], "exp": time.time() + meet.expires_in, "scopes": app.scopes or ""}
        body: dict[str, Any] = {"access_token": token, "token_type": "Bearer", "expires_in": meet.expires_in}
        if app.scopes is not None:
            body["scope"] = app.scopes
        return JSONResponse(body)

    def authenticate(self, request: Request, scope: str) -> tuple[str | None, Response | None]:
        """The user the bearer token acts for, or the service's refusal."""
        meet = self.meet
        header = request.headers.get("authorization", "")
        parts = header.split(" ")
        challenge = {"WWW-Authenticate": "Bearer"}
        if not header or parts[0] != "Bearer":
            return None, JSONResponse({"detail": "Authentication credentials were not provided."}, status_code=401, headers=challenge)
        if len(parts) != 2:
            return None, JSONResponse({"detail": "Invalid token header."}, status_code=401, headers=challenge)
        token = meet.tokens.get(parts[1])
        if not meet.applications_enabled:  # the application backend is off: only OIDC is left
            return None, JSONResponse({"detail": "Resource Server is improperly configured"}, status_code=401, headers=challenge)
        if token is None:
            return None, JSONResponse({"detail": "Invalid token."}, status_code=401, headers=challenge)
        if token["exp"] <= time.time():
            return None, JSONResponse({"detail": "Token expired."}, status_code=401, headers=challenge)
        if not meet.app_config.active:
            return None, JSONResponse({"detail": "Application is disabled."}, status_code=401, headers=challenge)
        user = next((u for u in meet.users.values() if u["id"] == token["user"]), None)
        if user is None or not user["active"]:
            return None, JSONResponse({"detail": "User account is disabled."}, status_code=401, headers=challenge)
        if scope not in token["scopes"].split():
            detail = f"Insufficient permissions. Required scope: {scope}" if token["scopes"] else "Insufficient permissions."
            return None, JSONResponse({"detail": detail}, status_code=403)
        return token["user"], None
