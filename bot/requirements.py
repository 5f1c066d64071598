"""What each command cannot run without, and the line that names what is unset.

The command line asks this before it parses the configuration: parsing loads pydantic (0.3–0.5 s
here), and a fresh machine with nothing set should hear what to set as fast as `--help` answers.
Names are read as `Settings` reads them: from the environment, then `./.env`, case-insensitive,
an empty value counting as unset.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: What each variable is, as the configuration error names it.
WHAT = {
    "slack_bot_token": "the Slack bot token, xoxb-…",
    "slack_signing_secret": "Slack's request signing secret, needed in HTTP mode; or set SLACK_APP_TOKEN for Socket Mode",
    "slack_client_id": "the Slack app's client id (Basic Information), with SLACK_CLIENT_SECRET for OAuth installs",
    "token_encryption_key": "a Fernet key: OAuth installs keep every workspace's bot token in Redis, encrypted with it",
    "meet_api_url": "the room service URL, ending in /external-api/v1.0",
    "meet_client_id": "the room service application's id",
    "meet_client_secret": "the room service application's secret",
    "ds_api_token": "the dossier service's API token, from its administrator profile",
    "digest_channel": "the Slack channel id the digest goes to, like C0123ABCD",
    "digest_demarches": "the comma-separated démarche numbers the digest reports on",
    "albert_api_key": "the inference service's API key",
}


def needed(command: str, *, dry_run: bool = False, socket_mode: bool = False, oauth: bool = False) -> tuple[tuple[str, ...], str]:
    """The variables `command` needs, and what it needs them for, as the error line says it. With
    OAuth installs there is no bot token to need: each workspace's is kept, encrypted."""
    if command == "serve":
        if oauth:
            slack = ("token_encryption_key",) if socket_mode else ("slack_signing_secret", "token_encryption_key")
        else:
            slack = ("slack_bot_token",) if socket_mode else ("slack_bot_token", "slack_signing_secret")
        return (*slack, "meet_api_url", "meet_client_id", "meet_client_secret"), "to serve"
    if command == "digest" and dry_run:
        return ("ds_api_token", "digest_demarches"), "to count the digest"
    if command == "digest":
        return ("ds_api_token", "digest_demarches", "slack_bot_token", "digest_channel"), "to post the digest"
    if command == "keys":
        return ("albert_api_key",), "to manage the inference keys"
    if command == "shell":  # against the real room service; `shell --demo` needs nothing
        return ("meet_api_url", "meet_client_id", "meet_client_secret"), \
            "to try the shell against your room service (or try it with nothing set: python -m bot shell --demo)"
    return (), ""


def unset_line(names: Iterable[str]) -> str:
    return "set " + ", ".join(f"{name.upper()} ({WHAT[name]})" for name in names)


def missing_before_parsing(command: str, *, dry_run: bool = False) -> str | None:
    """The configuration error `command` will meet for want of a variable, or None."""
    values: dict[str, str] = {}
    if Path(".env").is_file():
        from dotenv import dotenv_values  # only with a file to read

        values = {name.lower(): value for name, value in dotenv_values(".env").items() if value}
    values.update({name.lower(): value for name, value in os.environ.items() if value})
    oauth = bool(values.get("slack_client_id") and values.get("slack_client_secret")) and not values.get("slack_bot_token")
    names, to = needed(command, dry_run=dry_run, socket_mode=bool(values.get("slack_app_token")), oauth=oauth)
    unset = [name for name in names if not values.get(name)]
    return f"{to}, {unset_line(unset)}" if unset else None
