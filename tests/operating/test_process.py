"""`python -m bot` as an operator runs it: a real process, its own embedded Redis, signals."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import httpx
import pytest

from bot.cli import main
from bot.config import Settings
from bot.demo.meet import FakeMeet
from tests.conftest import ROOT, VERSION, bot_env, eventually
from tests.fakes.slack import FakeSlack
from tests.processes import Silent, free_port, python_children, python_env, start_server
from tests.slack_requests import SIGNING_SECRET, command_body, signed_headers


@pytest.fixture
def served(tmp_path: Path, meet: FakeMeet, slack: FakeSlack):
    env = python_env(**bot_env(meet, slack), DATA_DIR=str(tmp_path / "data"))
    process, base = start_server(["-m", "bot", "serve"], env, cwd=tmp_path)
    yield process, base, tmp_path / "data"
    if process.poll() is None:
        process.kill()
        process.wait()


async def test_serve_answers_slack_with_embedded_redis_then_stops_cleanly_on_sigterm(served, meet: FakeMeet, slack: FakeSlack):
    process, base, data = served
    slack.add_user("U0ALICE", "alice@example.gouv.fr", locale="en-US")
    meet.add_user("alice@example.gouv.fr")
    meet.delay = 0.5  # the command is still being worked on when SIGTERM arrives

    body = command_body("new restricted", "U0ALICE", slack.response_url())
    async with httpx.AsyncClient() as http:
        ack = await http.post(f"{base}/slack/events", content=body, headers=signed_headers(body))
    assert ack.status_code == 200
    await eventually(lambda: any(method == "POST" and "rooms" in path for method, path in meet.log), "the room asked for")
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    output, _ = await asyncio.to_thread(process.communicate, timeout=15)
    assert process.returncode == 0, output
    assert time.monotonic() - started < 10
    # the in-flight command was finished, not cut: the room exists and the person was answered
    assert len(meet.rooms) == 1 and len(slack.responses) == 1
    assert "Traceback" not in output
    assert (data / "redis" / "appendonly.aof").exists()
    assert not (data / "redis" / "redis.sock").exists() or not _accepts(data / "redis" / "redis.sock")


def _accepts(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX) as sock:
        try:
            sock.connect(str(path))
            return True
        except OSError:
            return False


def test_serve_answers_before_its_start_up_checks_while_every_service_is_silent(tmp_path: Path):
    """The checks only log: Slack, the room and the dossier service taking connections and never
    answering (their clients wait 30 s and more) do not hold back /healthz. (A Slack request still
    waits for Slack: Bolt asks `auth.test` before dispatching the first one, as the bare app does.)"""
    with Silent() as slack, Silent() as meet, Silent() as ds:
        env = python_env(SLACK_BOT_TOKEN="xoxb-test", SLACK_SIGNING_SECRET=SIGNING_SECRET, SLACK_API_URL=f"{slack}/api/",
                         MEET_API_URL=f"{meet}/external-api/v1.0", MEET_CLIENT_ID="roombot", MEET_CLIENT_SECRET="secret",
                         DS_API_URL=f"{ds}/api/v2/graphql", DS_API_TOKEN="ds-token", DATA_DIR=str(tmp_path / "data"))
        process, base = start_server(["-m", "bot", "serve"], env, cwd=tmp_path)
        try:
            assert httpx.get(base + "/metrics", timeout=10).status_code == 200
        finally:
            process.send_signal(signal.SIGTERM)
            output = process.communicate(timeout=30)[0]
    assert process.returncode == 0, output
    assert "start-up check: ✗ Slack" not in output  # still waiting for Slack when it stopped, and serving all along


async def test_serve_logs_its_start_up_checks_once_it_serves(tmp_path: Path, meet: FakeMeet, slack: FakeSlack):
    """The checks start when the server listens (so they do not hold back /healthz), and still run."""
    slack.scopes.discard("links:write")
    output = tmp_path / "serve.log"
    with output.open("w") as out:
        process, _ = start_server(["-m", "bot", "serve"], python_env(**bot_env(meet, slack), DATA_DIR=str(tmp_path / "data")),
                                  cwd=tmp_path, stdout=out)
    try:
        await eventually(lambda: "start-up check" in output.read_text(), "the start-up check's line")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
    lines = [line for line in output.read_text().splitlines() if "start-up check" in line]
    assert len(lines) == 1 and "✗ Slack" in lines[0] and "links:write" in lines[0], lines
    first = json.loads(output.read_text().splitlines()[0])  # which notes of CHANGELOG.md apply
    assert first["message"] == f"roombot {VERSION}", first


#: What `serve` needs, set: the malformed values are what is left to name.
COMPLETE = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s", "MEET_API_URL": "https://meet.example/external-api/v1.0",
            "MEET_CLIENT_ID": "roombot", "MEET_CLIENT_SECRET": "secret"}


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({}, "SLACK_BOT_TOKEN"),
        ({"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_SIGNING_SECRET"),
        ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s"}, "MEET_API_URL"),
        ({**COMPLETE, "MEET_API_URL": "meet.example"}, "MEET_API_URL"),
        ({**COMPLETE, "PORT": "eighty"}, "PORT"),
        ({**COMPLETE, "DEFAULT_LANGUAGE": "de"}, "DEFAULT_LANGUAGE"),
    ],
)
def test_missing_or_malformed_configuration_stops_with_one_line(bare_env, capsys, env: dict, variable: str):
    for name, value in env.items():
        bare_env.setenv(name, value)
    assert main([]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and variable in lines[0], lines
    assert "xoxb-1" not in lines[0]


def test_every_missing_variable_is_named_at_once(bare_env, capsys):
    assert main([]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("roombot: configuration error: to serve, set SLACK_BOT_TOKEN (")
    assert all(name in line for name in ("SLACK_SIGNING_SECRET", "MEET_API_URL", "MEET_CLIENT_ID", "MEET_CLIENT_SECRET"))


def test_every_malformed_variable_is_named_at_once(bare_env, capsys):
    """Once nothing is missing (missing ones are named first, before the parser loads)."""
    for name, value in COMPLETE.items():
        bare_env.setenv(name, value)
    bare_env.setenv("PORT", "eighty")
    bare_env.setenv("DEFAULT_LANGUAGE", "de")
    assert main([]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "PORT is malformed" in line and "DEFAULT_LANGUAGE is malformed: Value error, no catalog for 'de'" in line


def test_the_example_environment_names_every_variable_and_works_as_a_start(bare_env, capsys):
    example = ROOT / ".env.example"
    named = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", example.read_text(), re.MULTILINE))
    assert named == {name.upper() for name in Settings.model_fields}
    (Path.cwd() / ".env").write_text(example.read_text())  # copied as it is: it parses, and says what to fill in
    assert main([]) == 2
    line = capsys.readouterr().err.strip()
    assert "SLACK_BOT_TOKEN (" in line and "MEET_CLIENT_SECRET (" in line and "MEET_API_URL" not in line


def test_dotenv_file_is_read(bare_env, capsys, tmp_path: Path):
    (tmp_path / ".env").write_text("SLACK_BOT_TOKEN=xoxb-from-dotenv\n")
    assert main([]) == 2 and "SLACK_SIGNING_SECRET" in capsys.readouterr().err  # got past the token


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0"])
def test_the_health_check_asks_where_serve_listens(served, host: str):
    """The container's HEALTHCHECK: HOST and PORT as serve has them; a wildcard host on loopback."""
    _, base, _ = served
    port = base.rsplit(":", 1)[1]
    env = python_env(HOST=host, PORT=port)
    assert subprocess.run([sys.executable, "-m", "bot.healthcheck"], env=env, timeout=30).returncode == 0
    elsewhere = subprocess.run([sys.executable, "-m", "bot.healthcheck"], env={**env, "HOST": "127.0.0.9"}, timeout=30,
                               capture_output=True, text=True)
    assert elsewhere.returncode == 1 and elsewhere.stderr.startswith("unhealthy: ")


def _running(pids: list[int]) -> list[int]:
    return [pid for pid in pids if Path(f"/proc/{pid}").exists()]


async def test_serve_processes_share_the_port_answer_every_command_and_stop_together(tmp_path: Path, meet: FakeMeet,
                                                                                    slack: FakeSlack):
    slack.add_user("U0ALICE", "alice@example.gouv.fr", locale="en-US")
    meet.add_user("alice@example.gouv.fr")
    env = python_env(**bot_env(meet, slack), DATA_DIR=str(tmp_path / "data"), SERVE_PROCESSES="3")
    process, base = start_server(["-m", "bot", "serve"], env, cwd=tmp_path)
    try:
        helpers = python_children(process.pid)
        assert len(helpers) == 2
        for index in range(30):  # a connection each: the kernel spreads them over the three
            body = command_body("help", "U0ALICE", slack.response_url(f"r{index}"))
            async with httpx.AsyncClient(timeout=10) as http:
                assert (await http.post(base + "/slack/events", content=body, headers=signed_headers(body))).status_code == 200
        await slack.wait_responses(30, timeout=30)
        assert _running(helpers) == helpers  # both bound the port and serve (a failed bind ends a process)
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=60)[0]
    assert process.returncode == 0, output
    assert _running(helpers) == []  # they stopped with it


NAMED_EARLY = """
import sys
from bot.cli import main
code = main(["serve"])
print(code, sorted(name for name in ("pydantic", "slack_bolt", "httpx", "redis") if name in sys.modules))
"""


def test_a_missing_variable_is_named_before_the_configuration_parser_loads(tmp_path: Path):
    """As Settings reads them: .env after the environment, any case, an empty value unset."""
    (tmp_path / ".env").write_text("slack_bot_token=xoxb-1\nSLACK_SIGNING_SECRET=s\nMEET_API_URL=\n")
    env = python_env(MEET_CLIENT_ID="roombot", MEET_API_URL="")
    shown = subprocess.run([sys.executable, "-c", NAMED_EARLY], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=60)
    assert shown.stdout.strip() == "2 []", shown.stderr
    assert shown.stderr.strip() == ("roombot: configuration error: to serve, set MEET_API_URL (the room service URL, "
                                    "ending in /external-api/v1.0), MEET_CLIENT_SECRET (the room service application's secret)")


@pytest.fixture
def bare_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, restore_logging: None) -> pytest.MonkeyPatch:
    """`python -m bot` as an operator starts it: in a folder of its own, no configuration set."""
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.chdir(tmp_path)
    return monkeypatch


async def test_socket_mode_receives_commands_over_the_websocket_and_acks_there(tmp_path: Path, meet: FakeMeet, slack: FakeSlack):
    slack.add_user("U0ALICE", "alice@example.gouv.fr", locale="en-US")
    meet.add_user("alice@example.gouv.fr")
    env = python_env(**bot_env(meet, slack), SLACK_APP_TOKEN="xapp-1-socket-test", DATA_DIR=str(tmp_path / "data"))
    del env["SLACK_SIGNING_SECRET"]  # not needed in Socket Mode
    process, base = start_server(["-m", "bot"], env, cwd=tmp_path)  # in Socket Mode HTTP serves /healthz only
    try:
        deadline = time.monotonic() + 20
        while slack.socket_connections == 0:
            assert process.poll() is None and time.monotonic() < deadline, "no Socket Mode connection"
            await asyncio.sleep(0.05)
        payload = dict(urllib.parse.parse_qsl(command_body("new", "U0ALICE", slack.response_url())))
        slack.socket_outbox.append({"envelope_id": "env-1", "type": "slash_commands", "payload": payload,
                                    "accepts_response_payload": True})
        await slack.wait_responses(1, timeout=10)
        # the ack went first, but the fake's socket may read it after the reply came by HTTP
        await eventually(lambda: slack.socket_acks, "the envelope's ack", timeout=10)
        assert [ack["envelope_id"] for ack in slack.socket_acks] == ["env-1"]
        assert len(meet.rooms) == 1
        async with httpx.AsyncClient() as http:
            health = await http.get(f"{base}/healthz")
            events = await http.post(f"{base}/slack/events", content="x")
        assert health.status_code == 200 and events.status_code == 404  # no HTTP events route in Socket Mode
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        output, _ = await asyncio.to_thread(process.communicate, timeout=15)
        assert process.returncode == 0, output
        assert time.monotonic() - started < 10
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def redis_servers_of(folder: Path) -> list[int]:
    """The pids of the redis-server processes (by executable) whose data is under `folder`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdecimal():
            try:
                executable = Path(os.readlink(entry / "exe")).name
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if executable == "redis-server" and str(folder) in line:
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_the_embedded_redis_ends_with_serve_however_serve_ends(tmp_path: Path, meet: FakeMeet, slack: FakeSlack,
                                                               how: signal.Signals) -> None:
    env = python_env(**bot_env(meet, slack), DATA_DIR=str(tmp_path / "data"))
    process, _ = start_server(["-m", "bot", "serve"], env, cwd=tmp_path)
    try:
        [server] = redis_servers_of(tmp_path)
        process.send_signal(how)
        process.wait(30)
        deadline = time.monotonic() + 30
        while redis_servers_of(tmp_path) and time.monotonic() < deadline:  # it saves its data, then exits
            time.sleep(0.05)
        assert redis_servers_of(tmp_path) == [], f"redis-server {server} outlived serve ({how.name})"
        assert (tmp_path / "data" / "redis" / "appendonly.aof").exists() or (tmp_path / "data" / "redis" / "appendonlydir").exists()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_socket_mode_with_slack_unreachable_serves_health_and_stops(tmp_path: Path, meet: FakeMeet, how: signal.Signals) -> None:
    """Slack takes the connection and never answers: /healthz and /metrics answer, the start-up
    line says what to check, and a signal stops the bot cleanly within seconds."""
    with Silent() as silent:
        env = python_env(SLACK_BOT_TOKEN="xoxb-test", SLACK_APP_TOKEN="xapp-1-test", SLACK_API_URL=f"{silent}/api/",
                         MEET_API_URL=f"{meet.base}/external-api/v1.0", MEET_CLIENT_ID=meet.app_config.client_id,
                         MEET_CLIENT_SECRET=meet.app_config.client_secret, DATA_DIR=str(tmp_path / "data"))
        process, base = start_server(["-m", "bot", "serve"], env, cwd=tmp_path, ready="/healthz")  # never ready: no Slack
        try:
            assert httpx.get(base + "/healthz", timeout=10).status_code == 200
            assert httpx.get(base + "/metrics", timeout=10).status_code == 200
            started = time.monotonic()
            process.send_signal(how)
            output, _ = process.communicate(timeout=30)
            assert process.returncode == 0, output
            assert time.monotonic() - started < 15 and "Traceback" not in output
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGSTOP], ids=["killed", "frozen"])
def test_a_helper_that_dies_or_freezes_is_logged_and_replaced(tmp_path: Path, meet: FakeMeet, slack: FakeSlack,
                                                             how: signal.Signals) -> None:
    env = python_env(**bot_env(meet, slack), DATA_DIR=str(tmp_path / "data"), SERVE_PROCESSES="2")
    process, base = start_server(["-m", "bot", "serve"], env, cwd=tmp_path)
    try:
        [helper] = python_children(process.pid)
        os.kill(helper, how)
        deadline = time.monotonic() + 40
        while True:
            now = [pid for pid in python_children(process.pid) if pid != helper]
            if now and helper not in _running([helper]):
                break
            assert time.monotonic() < deadline, f"helper {helper} not replaced"
            time.sleep(0.1)
        [replacement] = now
        assert all(httpx.get(base + "/metrics", timeout=10).status_code == 200 for _ in range(20))  # none hangs
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=60)[0]
    assert process.returncode == 0, output
    said = "gave no sign of life" if how is signal.SIGSTOP else "ended (killed by SIGKILL)"
    assert f"serve helper 1 (pid {helper}) {said}" in output and "replaced" in output
    assert _running([helper, replacement]) == []


def test_metrics_on_a_port_of_their_own_leave_slacks_port(tmp_path: Path, meet: FakeMeet, slack: FakeSlack) -> None:
    """With METRICS_PORT (the chart's 9100), an ingress exposing Slack's port exposes no metrics;
    probes read /healthz on either, and one SIGTERM stops both servers."""
    port = free_port()
    env = python_env(**bot_env(meet, slack), DATA_DIR=str(tmp_path / "data"), METRICS_PORT=str(port))
    process, base = start_server(["-m", "bot", "serve"], env, cwd=tmp_path)
    try:
        apart = f"http://127.0.0.1:{port}"
        assert "roombot_slack_installations" in httpx.get(apart + "/metrics", timeout=10).text
        assert httpx.get(apart + "/healthz", timeout=10).status_code == 200
        assert httpx.get(base + "/metrics", timeout=10).status_code == 404
        assert httpx.get(base + "/healthz", timeout=10).status_code == 200
        assert httpx.post(apart + "/slack/events", timeout=10).status_code == 404  # Slack's route only on PORT
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=30)[0]
    assert process.returncode == 0 and "Traceback" not in output, output
    with socket.socket() as sock:  # the metrics port was let go too (a listener would still refuse this bind)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))


def test_a_data_dir_it_cannot_write_stops_serve_with_one_line(tmp_path: Path, meet: FakeMeet, slack: FakeSlack) -> None:
    """As in a container run with a read-only root and no volume at /data."""
    taken = tmp_path / "data"
    taken.write_text("not a folder")
    env = python_env(**bot_env(meet, slack), DATA_DIR=str(taken), HOST="127.0.0.1", PORT=str(free_port()))
    done = subprocess.run([sys.executable, "-m", "bot", "serve"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    version, *said = done.stderr.strip().splitlines()  # the log's first line, which names the version, then the error
    assert json.loads(version)["message"] == f"roombot {VERSION}"
    assert len(said) == 1 and "Traceback" not in done.stderr, done.stderr
    assert said[0].startswith(f"roombot: configuration error: cannot write the embedded Redis's data in {taken}/redis")
    assert "mount a writable volume at DATA_DIR, or set REDIS_URL" in said[0]


PARENT = """
import subprocess, sys, time
subprocess.Popen([sys.argv[1], "60"])  # a redis-server of a clone in a folder named roombot
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # a helper
time.sleep(60)
"""


def test_serves_helpers_are_found_by_executable_whatever_folder_the_clone_is_in(tmp_path: Path) -> None:
    """The README's test command, run in a clone at …/roombot/: the embedded redis-server's path
    holds "bot", and it is not a helper (three tests counted it as one)."""
    fake_redis = tmp_path / "roombot" / ".venv" / "bin" / "redis-server"
    fake_redis.parent.mkdir(parents=True)
    shutil.copy("/bin/sleep", fake_redis)
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(fake_redis)], start_new_session=True)
    try:
        children = Path(f"/proc/{parent.pid}/task/{parent.pid}/children")
        deadline = time.monotonic() + 30
        while len(children.read_text().split()) < 2:
            assert time.monotonic() < deadline, "the parent did not start its children"
            time.sleep(0.05)
        [helper] = python_children(parent.pid)
        assert str(fake_redis) not in Path(f"/proc/{helper}/cmdline").read_text()
    finally:
        os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()


async def test_redis_down_is_said_in_one_line_naming_the_setting(tmp_path: Path, meet: FakeMeet, slack: FakeSlack) -> None:
    """Redis unreachable under a running serve: its scheduled jobs say so in words naming REDIS_URL,
    with no traceback (each loop wrote one every 30 s before)."""
    output = tmp_path / "serve.log"
    env = python_env(**bot_env(meet, slack), DATA_DIR=str(tmp_path / "data"), REDIS_URL=f"redis://127.0.0.1:{free_port()}")
    with output.open("w") as out:
        process, _ = start_server(["-m", "bot", "serve"], env, cwd=tmp_path, stdout=out, ready=None)
    try:
        await eventually(lambda: "scheduled jobs wait" in output.read_text() and "start-up check" in output.read_text(),
                         "the scheduler's and the start-up check's lines")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
    said = [json.loads(line) for line in output.read_text().splitlines() if "scheduled jobs" in line]
    assert said and all("cannot connect to Redis: check REDIS_URL" in line["message"] for line in said), said
    assert all(line["level"] == "WARNING" and "exception" not in line for line in said), said
    assert "Traceback" not in output.read_text()
