"""The log an operator reads from a real `serve`: every line a JSON object a collector can parse, no
terminal colour codes, no e-mail address, a line saying where it listens, and libraries' chatter
kept for LOG_LEVEL=DEBUG."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import httpx
import pytest

from bot.demo.meet import FakeMeet
from tests.conftest import bot_env, eventually
from tests.fakes.slack import FakeSlack
from tests.processes import python_env, start_server
from tests.slack_requests import action_body, command_body, signed_headers

#: loggers of the libraries under the bot: at INFO only their warnings reach the log
LIBRARIES = ("uvicorn", "slack_bolt", "slack_sdk", "httpx", "httpcore", "aiohttp")


async def _serve_and_stop(tmp_path: Path, meet: FakeMeet, slack: FakeSlack, level: str) -> tuple[list[str], str]:
    """Serves a command (Bolt reads the person's profile, e-mail included) and a button no listener
    handles (Bolt's warning quotes the listener to write: `\\n@app.action(…)`), then stops: the log's
    lines, and the address served."""
    slack.add_user("U0ALICE", "alice.martin@example.gouv.fr", locale="en-US")
    meet.add_user("alice.martin@example.gouv.fr")
    env = python_env(**bot_env(meet, slack), LOG_LEVEL=level, DATA_DIR=str(tmp_path / "data"))
    process, base = start_server(["-m", "bot", "serve"], env, cwd=tmp_path)
    try:
        async with httpx.AsyncClient() as http:
            for body in (command_body("new", "U0ALICE", slack.response_url()),
                         action_body("nobody_handles_this", "x", "U0ALICE", slack.response_url())):
                assert (await http.post(f"{base}/slack/events", content=body, headers=signed_headers(body))).status_code in (200, 404)
        await eventually(lambda: slack.responses, "the command answered")
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = await asyncio.to_thread(process.communicate, timeout=30)
    return output.splitlines(), base.removeprefix("http://")


@pytest.mark.parametrize("level", ["INFO", "DEBUG"])
async def test_every_line_of_serve_is_json_without_colours_or_e_mails(tmp_path, meet, slack, level):
    lines, _ = await _serve_and_stop(tmp_path, meet, slack, level)
    entries = []
    for line in lines:
        try:
            entries.append(json.loads(line))
        except ValueError:
            pytest.fail(f"not a JSON line: {line!r}")
    assert any("nobody_handles_this" in entry["message"] for entry in entries)  # Bolt's hint is there, whole
    assert all("color_message" not in entry for entry in entries)
    assert not [line for line in lines if "\x1b[" in line or "\\u001b[" in line]
    assert not [line for line in lines if "example.gouv.fr" in line]
    chatter = [entry for entry in entries if entry["logger"].split(".")[0] in LIBRARIES and entry["level"] in ("INFO", "DEBUG")]
    if level == "INFO":
        assert chatter == []
    else:
        assert any(entry["logger"].startswith("uvicorn") for entry in chatter)  # DEBUG shows them


async def test_serve_says_where_it_listens(tmp_path, meet, slack):
    lines, address = await _serve_and_stop(tmp_path, meet, slack, "INFO")
    messages = [json.loads(line)["message"] for line in lines]
    assert f"listening on {address}" in messages
