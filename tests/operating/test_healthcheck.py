"""`python -m bot.healthcheck`, the image's HEALTHCHECK, as the container engine runs it: with the
container's environment, proxies included."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.demo.meet import FakeMeet
from tests.conftest import bot_env
from tests.fakes.slack import FakeSlack
from tests.processes import free_port, python_env, start_server


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy"])
def test_the_health_check_asks_serve_directly_whatever_proxy_is_set(tmp_path: Path, meet: FakeMeet, slack: FakeSlack,
                                                                    variable: str) -> None:
    """A deployment that reaches Slack through a proxy sets HTTP_PROXY for the whole container,
    often without NO_PROXY: loopback never goes through it (the proxy here refuses every
    connection, as one that cannot reach a container's loopback would fail)."""
    process, base = start_server(["-m", "bot", "serve"], python_env(**bot_env(meet, slack), DATA_DIR=str(tmp_path / "data")),
                                 cwd=tmp_path)
    try:
        proxy = f"http://127.0.0.1:{free_port()}"
        env = python_env(HOST="0.0.0.0", PORT=base.rsplit(":", 1)[1], **{variable: proxy})
        done = subprocess.run([sys.executable, "-m", "bot.healthcheck"], env=env, timeout=30, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    finally:
        process.kill()
        process.communicate()
