"""Slack requests signed exactly as Slack signs them (v0 HMAC-SHA256 over `v0:ts:body`)."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from urllib.parse import urlencode

from tests.fakes.slack import TEAM

SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"


def signed_headers(body: str, *, secret: str = SIGNING_SECRET, timestamp: int | None = None,
                   extra: dict[str, str] | None = None) -> dict[str, str]:
    ts = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    return {
        **(extra or {}),
        "content-type": "application/json" if body.startswith("{") else "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": ts,
        "x-slack-signature": f"v0={digest}",
    }


def command_body(text: str, user_id: str, response_url: str, *, command: str = "/room", channel: str = "C0CHAN",
                 channel_name: str = "general", team: str = TEAM, enterprise: str | None = None, org: bool = False) -> str:
    """As Slack posts a slash command; a DM's `channel_name` is `directmessage`, a group DM's `mpdm-…`.
    In a workspace of an organisation, `enterprise_id` too, and `is_enterprise_install` for an
    organisation-wide installation."""
    grid = {"enterprise_id": enterprise, "enterprise_name": "Org", "is_enterprise_install": str(org).lower()} if enterprise else {}
    return urlencode({
        **grid,
        "token": "legacy-verification-token",
        "team_id": team,
        "team_domain": "example",
        "channel_id": channel,
        "channel_name": channel_name,
        "user_id": user_id,
        "user_name": user_id.lower(),
        "command": command,
        "text": text,
        "api_app_id": "A0APP",
        "response_url": response_url,
        "trigger_id": new_trigger_id(),
    })


def new_trigger_id() -> str:
    """Slack gives every invocation its own `trigger_id`."""
    return f"13345224609.738474920.{secrets.token_hex(16)}"


def _interaction(kind: str, user_id: str, **fields: object) -> str:
    """An interactivity payload as Slack posts it: form-encoded JSON under `payload`."""
    payload = {
        "type": kind,
        "team": {"id": TEAM, "domain": "example"},
        "user": {"id": user_id, "username": user_id.lower(), "team_id": TEAM},
        "api_app_id": "A0APP",
        "token": "legacy-verification-token",
        "trigger_id": new_trigger_id(),  # Slack's own for each click and submission
        **fields,
    }
    return urlencode({"payload": json.dumps(payload)})


def action_body(action_id: str, value: str, user_id: str, response_url: str, *, channel: str = "C0CHAN") -> str:
    return _interaction(
        "block_actions",
        user_id,
        container={"type": "message", "message_ts": "1700000000.000100", "channel_id": channel, "is_ephemeral": True},
        channel={"id": channel, "name": "general"},
        response_url=response_url,
        actions=[{"action_id": action_id, "block_id": "b1", "type": "button", "value": value, "action_ts": "1700000001.000200"}],
    )


def view_submission_body(callback_id: str, values: dict, private_metadata: str, user_id: str, view_id: str = "V0MODAL") -> str:
    return _interaction(
        "view_submission",
        user_id,
        view={"id": view_id, "type": "modal", "callback_id": callback_id, "private_metadata": private_metadata,
              "state": {"values": values}, "hash": "156772938.1827394", "team_id": TEAM, "app_id": "A0APP"},
    )


def event_body(event: dict, *, event_id: str = "Ev0001", team: str | None = TEAM, enterprise: str | None = None,
               org: bool = False) -> str:
    """Events API deliveries are JSON, not form-encoded. The top-level `team_id` is the workspace
    where the event happened; the installation it is for is the grant in `authorizations[0]` —
    for an organisation-wide install its `team_id` is null and only it says
    `is_enterprise_install` (slack-platform.md §13)."""
    grid = {"enterprise_id": enterprise, "context_enterprise_id": enterprise} if enterprise else {}
    return json.dumps({
        "token": "legacy-verification-token", "team_id": team, "context_team_id": team, "api_app_id": "A0APP",
        "type": "event_callback", "event_id": event_id, "event_time": int(time.time()), "event": event, **grid,
        "authorizations": [{"team_id": None if org else team, "enterprise_id": enterprise, "user_id": "U0BOT", "is_bot": True,
                            "is_enterprise_install": org}],
        "is_ext_shared_channel": False,
    })


def interaction(kind: str, user: str = "U0ALICE", *, team: str = TEAM, enterprise: str | None = None, org: bool = False,
                **fields: object) -> str:
    """An interactivity payload; for an organisation-wide install Slack sends `"team": null`, the
    workspace being the person's (`user.team_id`), and says `is_enterprise_install` at the top."""
    return urlencode({"payload": json.dumps({
        "type": kind, "team": None if org else {"id": team, "domain": "example"}, "user": {"id": user, "team_id": team},
        "enterprise": {"id": enterprise, "name": "Org"} if enterprise else None, "is_enterprise_install": org,
        "api_app_id": "A0APP", "trigger_id": new_trigger_id(), **fields})})


def submission(values: dict, view_id: str = "V0NEW", user: str = "U0ALICE") -> str:
    return interaction("view_submission", user, view={
        "id": view_id, "type": "modal", "callback_id": "room_new_modal", "private_metadata": "", "hash": "1.2",
        "state": {"values": values}})


def choice(level: str = "restricted", publish: list[str] | None = None, mute: bool = False, post_in: str | None = None) -> dict:
    return {
        "level": {"level": {"type": "static_select", "selected_option": {"value": level}}},
        "publish": {"publish": {"type": "checkboxes", "selected_options": [{"value": s} for s in publish or []]}},
        "mute": {"mute": {"type": "checkboxes", "selected_options": [{"value": "everyone_can_mute"}] if mute else []}},
        "post_in": {"post_in": {"type": "conversations_select", "selected_conversation": post_in}},
    }


async def send_event(bot, event: dict, event_id: str = "Ev0001", retry: int | None = None):
    body = event_body(event, event_id=event_id)
    extra = {"x-slack-retry-num": str(retry), "x-slack-retry-reason": "http_timeout"} if retry else None
    response = await bot.post(body, signed_headers(body, extra=extra))
    assert response.status_code == 200
    await bot.runtime.tasks.drain(5)
    return response


def home_opened(user: str = "U0ALICE") -> dict:
    return {"type": "app_home_opened", "user": user, "channel": "D0HOME", "tab": "home", "event_ts": "1700000000.1"}


def home_choice(level: str, user: str = "U0ALICE") -> str:
    from urllib.parse import urlencode

    return urlencode({"payload": json.dumps({
        "type": "block_actions", "team": {"id": "T0TEAM"}, "user": {"id": user, "team_id": "T0TEAM"},
        "api_app_id": "A0APP", "trigger_id": "1.2.3", "container": {"type": "view", "view_id": "V0HOME"},
        "view": {"id": "V0HOME", "type": "home"},
        "actions": [{"action_id": "home_new_room", "type": "static_select", "block_id": "b",
                     "selected_option": {"value": level, "text": {"type": "plain_text", "text": "x"}}}]})})
