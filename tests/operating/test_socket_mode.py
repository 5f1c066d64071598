"""Socket Mode when Slack cannot be reached, refuses the token or drops the connection: one line
naming what to check, a growing wait, no traceback; /readyz says Slack is not reached while
/healthz stays alive."""

from __future__ import annotations

import re
import signal
import subprocess
import time
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from slack_bolt.async_app import AsyncApp

from bot.demo.meet import FakeMeet
from bot.serving.socket_mode import READY_SECONDS, SocketMode
from tests.conftest import bot_env, eventually
from tests.fakes.slack import FakeSlack
from tests.processes import Silent, free_port, python_env, start_server
from tests.slack_requests import command_body


class Served:
    """`serve` in Socket Mode, its output in a file read while it runs."""

    def __init__(self, tmp_path: Path, env: dict[str, str]) -> None:
        env = {**env, "DATA_DIR": str(tmp_path / "data")}
        env.pop("SLACK_SIGNING_SECRET", None)  # not needed in Socket Mode
        self.log = tmp_path / "serve.log"
        with self.log.open("w") as out:
            # alive; ready only once Slack is reached, which some of these tests keep from happening
            self.process, self.base = start_server(["-m", "bot", "serve"], env, cwd=tmp_path, stdout=out, ready="/healthz")

    def output(self) -> str:
        return self.log.read_text()

    def wait_for(self, held: Callable[[str], bool], what: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while not held(output := self.output()):
            assert self.process.poll() is None, f"serve ended:\n{output}"
            assert time.monotonic() < deadline, f"no {what} in:\n{output}"
            time.sleep(0.1)
        return output

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Callable[[dict[str, str]], Served]]:
    started: list[Served] = []

    def start(env: dict[str, str]) -> Served:
        started.append(Served(tmp_path, env))
        return started[-1]

    yield start
    for one in started:
        one.stop()


def meet_env(meet: FakeMeet) -> dict[str, str]:
    return {"MEET_API_URL": f"{meet.base}/external-api/v1.0", "MEET_CLIENT_ID": meet.app_config.client_id,
            "MEET_CLIENT_SECRET": meet.app_config.client_secret}


def unreachable_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if "cannot reach Slack in Socket Mode" in line]


def test_slack_refusing_connections_gets_one_line_each_try_later_and_later(served, meet: FakeMeet) -> None:
    """Nothing listens at SLACK_API_URL: each attempt is one line naming the settings, the waits
    grow, and nothing of slack_sdk's own retry loop (a traceback every 10 s) shows."""
    bot = served(python_env(SLACK_BOT_TOKEN="xoxb-test", SLACK_APP_TOKEN="xapp-1-test",
                            SLACK_API_URL=f"http://127.0.0.1:{free_port()}/api/", **meet_env(meet)))
    output = bot.wait_for(lambda out: len(unreachable_lines(out)) >= 3, "three attempts")
    lines = unreachable_lines(output)
    assert all("check SLACK_API_URL" in line and "SLACK_APP_TOKEN" in line for line in lines), lines
    assert [re.search(r"trying again in (\d+) s", line).group(1) for line in lines[:3]] == ["1", "2", "5"]
    assert "Traceback" not in output and "Failed to connect" not in output
    health, ready = httpx.get(bot.base + "/healthz", timeout=10), httpx.get(bot.base + "/readyz", timeout=10)
    assert health.status_code == 200  # alive: restarting it would not bring Slack back
    assert ready.status_code == 503 and ready.json() == {"status": "unavailable", "slack": "not reached since the start"}
    assert bot.stop() == 0


def test_an_address_that_takes_the_connection_and_never_answers_gets_a_line_too(served, meet: FakeMeet) -> None:
    with Silent() as silent:
        bot = served(python_env(SLACK_BOT_TOKEN="xoxb-test", SLACK_APP_TOKEN="xapp-1-test", SLACK_API_URL=f"{silent}/api/",
                                **meet_env(meet)))
        output = bot.wait_for(lambda out: bool(unreachable_lines(out)), "line about the silent address")
        [line] = unreachable_lines(output)[:1]
        assert f"{silent.removeprefix('http://')} did not answer within 15 s" in line and "check SLACK_API_URL" in line
        assert httpx.get(bot.base + "/readyz", timeout=10).status_code == 503
        assert "Traceback" not in output
        assert bot.stop() == 0


def test_a_websocket_address_that_never_answers_is_named(served, meet: FakeMeet, slack: FakeSlack) -> None:
    """The Web API answers, the WebSocket is held and never opened (a proxy that lets HTTPS through
    but not WebSockets): the line names the WebSocket's host, never its URL (it holds a ticket)."""
    with Silent() as silent:
        slack.socket_url = silent.replace("http://", "ws://") + "/link/?ticket=secret-ticket"
        bot = served(python_env(**bot_env(meet, slack), SLACK_APP_TOKEN="xapp-1-socket-test"))
        output = bot.wait_for(lambda out: bool(unreachable_lines(out)), "line about the WebSocket")
        assert f"{silent.removeprefix('http://')} did not answer within 15 s" in unreachable_lines(output)[0]
        assert "secret-ticket" not in output and "Traceback" not in output
        assert bot.stop() == 0


def test_a_bot_token_given_as_the_app_token_is_named(served, meet: FakeMeet, slack: FakeSlack) -> None:
    bot = served(python_env(**bot_env(meet, slack), SLACK_APP_TOKEN="xoxb-the-bot-token-pasted-again"))
    said = "Slack refuses SLACK_APP_TOKEN (not_allowed_token_type): make an app-level token (xapp-…) with the connections:write scope"
    output = bot.wait_for(lambda out: said in out, "line about the token")  # the start-up check says much the same
    assert "xoxb-the-bot-token-pasted-again" not in output and "Traceback" not in output
    assert slack.socket_connections == 0


def test_a_dropped_connection_is_made_again_and_readiness_follows_slack(served, meet: FakeMeet, slack: FakeSlack) -> None:
    bot = served(python_env(**bot_env(meet, slack), SLACK_APP_TOKEN="xapp-1-socket-test"))
    bot.wait_for(lambda out: "connected to Slack in Socket Mode" in out, "connection")
    assert httpx.get(bot.base + "/readyz", timeout=10).json() == {"status": "ok"}
    slack.socket_drop = True
    output = bot.wait_for(lambda out: out.count("connected to Slack in Socket Mode") == 2, "second connection")
    assert "lost the Socket Mode connection to Slack: connecting again" in output
    assert slack.socket_connections == 2 and "Traceback" not in output
    assert httpx.get(bot.base + "/readyz", timeout=10).status_code == 200
    assert bot.stop() == 0


async def test_after_slacks_disconnect_the_bot_reconnects_and_answers(served, meet: FakeMeet, slack: FakeSlack) -> None:
    """Slack asks every few hours for a new connection (`disconnect`, refresh_requested): the next
    command is answered over the new one."""
    slack.add_user("U0ALICE", "alice@example.gouv.fr", locale="en-US")
    meet.add_user("alice@example.gouv.fr")
    bot = served(python_env(**bot_env(meet, slack), SLACK_APP_TOKEN="xapp-1-socket-test"))
    bot.wait_for(lambda out: "connected to Slack in Socket Mode" in out, "connection")
    slack.socket_outbox.append({"type": "disconnect", "reason": "refresh_requested", "debug_info": {"host": "fake"}})
    await eventually(lambda: slack.socket_connections >= 2, "a new connection")
    payload = dict(urllib.parse.parse_qsl(command_body("new", "U0ALICE", slack.response_url())))
    slack.socket_outbox.append({"envelope_id": "env-after", "type": "slash_commands", "payload": payload,
                                "accepts_response_payload": True})
    await slack.wait_responses(1, timeout=20)
    assert [ack["envelope_id"] for ack in slack.socket_acks] == ["env-after"] and len(meet.rooms) == 1
    assert "Traceback" not in bot.output()
    assert bot.stop() == 0


async def test_readiness_ends_when_slack_was_not_reached_for_a_while() -> None:
    """Reached once, then silent: ready for READY_SECONDS (a short cut is mended in seconds), then
    not; the reason says for how long."""
    now = [1000.0]
    app = AsyncApp(name="roombot", token="xoxb-test", request_verification_enabled=False)
    connection = SocketMode(app, "xapp-1-test", api_url="https://slack.com/api/", clock=lambda: now[0])
    try:
        assert connection.unready() == "not reached since the start"
        connection.reached = now[0]
        now[0] += READY_SECONDS - 1
        assert connection.unready() is None
        now[0] += 16
        assert connection.unready() == f"not reached for {READY_SECONDS + 15:.0f} s"
    finally:
        await connection.close()

