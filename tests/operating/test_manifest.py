"""`manifest.yml` is a valid Slack app manifest that declares what the bot really uses."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from tests.conftest import DATA, ROOT

SCHEMA = DATA / "slack-manifest.schema.json"


@pytest.fixture(scope="module")
def manifest() -> dict:
    return yaml.safe_load((ROOT / "manifest.yml").read_text())


def test_manifest_is_valid_against_slacks_schema(manifest: dict):
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text()))
    errors = sorted(f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(manifest))
    assert errors == []


def test_the_schema_check_catches_a_broken_manifest(manifest: dict):
    broken = json.loads(json.dumps(manifest))
    broken["features"]["slash_commands"][0]["command"] = "room"
    assert list(jsonschema.Draft7Validator(json.loads(SCHEMA.read_text())).iter_errors(broken))


def test_manifest_declares_the_command_interactivity_and_scopes_the_bot_uses(manifest: dict):
    command, digest, dossier = manifest["features"]["slash_commands"]
    assert command["command"] == "/room" and digest["command"] == "/digest" and dossier["command"] == "/dossier"
    assert digest["url"] == command["url"] == dossier["url"]
    assert command["url"].endswith("/slack/events")
    assert manifest["settings"]["interactivity"] == {"is_enabled": True, "request_url": command["url"]}
    assert set(manifest["oauth_config"]["scopes"]["bot"]) == {
        "commands", "chat:write", "chat:write.public", "im:write", "links:read", "links:write", "users:read", "users:read.email",
        "channels:read", "groups:read", "files:write", "files:read", "channels:join", "channels:manage", "groups:write", "pins:write"}
    events = manifest["settings"]["event_subscriptions"]
    assert events["request_url"] == command["url"]
    assert set(events["bot_events"]) == {"app_home_opened", "link_shared", "function_executed", "app_uninstalled", "tokens_revoked",
                                         "team_access_granted", "team_access_revoked"}
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True


def test_manifest_declares_the_shortcuts_and_the_workflow_step_the_bot_serves(manifest: dict):
    from handlers.new_room.from_message import FROM_MESSAGE_SHORTCUT
    from handlers.new_room.modal import NEW_ROOM_SHORTCUT
    from handlers.new_room.workflow_step import CREATE_ROOM_FUNCTION

    shortcuts = {s["callback_id"]: s["type"] for s in manifest["features"]["shortcuts"]}
    assert shortcuts == {NEW_ROOM_SHORTCUT: "global", FROM_MESSAGE_SHORTCUT: "message"}
    step = manifest["functions"][CREATE_ROOM_FUNCTION]
    assert step["input_parameters"]["owner"] == {**step["input_parameters"]["owner"], "type": "slack#/types/user_id",
                                                 "is_required": True}
    assert step["input_parameters"]["access_level"]["is_required"] is False
    assert set(step["output_parameters"]) == {"room_url", "room_id", "access_level"}
    assert manifest["settings"]["function_runtime"] == "remote" and manifest["settings"]["org_deploy_enabled"] is True


def test_manifest_unfurls_the_domains_of_room_and_dossier_links(manifest: dict):
    from urllib.parse import urlsplit

    from bot.config import Settings
    from bot.demo.meet import FakeMeet

    room_host = str(FakeMeet().room_base_url).removeprefix("https://")  # the host of the links the service returns
    dossier_host = urlsplit(str(Settings.model_fields["ds_api_url"].default)).hostname  # DS_API_URL's default
    assert manifest["features"]["unfurl_domains"] == [room_host, dossier_host]


def test_check_asks_for_the_scopes_the_manifest_declares(manifest: dict):
    from bot.scopes import ALL_SCOPES

    assert set(manifest["oauth_config"]["scopes"]["bot"]) == ALL_SCOPES
