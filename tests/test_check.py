"""`python -m bot check`: one line per configured service, ✓ or ✗ with what to do; exit 1 on any ✗."""

from __future__ import annotations

import logging

import pytest

from bot.check import REQUIRED_SCOPES, log_failures
from bot.cli import main
from bot.config import load_settings
from tests.conftest import bot_env
from tests.fakes.albert import BOOTSTRAP, FakeAlbert
from tests.fakes.ds import FakeDS
from tests.fakes.meet import FakeMeet
from tests.fakes.slack import FakeSlack


@pytest.fixture
def configured(monkeypatch, tmp_path, redis_url, redis, meet: FakeMeet, slack: FakeSlack, ds: FakeDS, albert: FakeAlbert,
               restore_logging):
    """The environment of an operator who configured every service."""
    slack.scopes |= REQUIRED_SCOPES
    env = {**bot_env(meet, slack), "REDIS_URL": redis_url, "DATA_DIR": str(tmp_path), "DS_API_URL": ds.url,
           "DS_API_TOKEN": ds.token, "DIGEST_CHANNEL": "C0DIGEST", "DIGEST_DEMARCHES": "101,102",
           "ALBERT_API_URL": albert.url, "ALBERT_API_KEY": BOOTSTRAP}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    ds.add_demarche(101, "Un", dossiers=1)
    ds.add_demarche(102, "Deux", dossiers=1)
    meet.add_user("alice@example.gouv.fr")
    return env


def check(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["check", *args])
    return code, capsys.readouterr().out.strip().splitlines()


def test_every_part_passes_when_the_configuration_works(configured, capsys):
    code, lines = check(capsys, "--as", "alice@example.gouv.fr")
    assert code == 0, lines
    assert [line.split(":")[0] for line in lines] == ["✓ Redis", "✓ Slack", "✓ room service", "✓ dossier service",
                                                     "✓ inference service"]
    assert "persistence: AOF" in lines[0] and "their 0 room(s)" in lines[2] and "2 configured démarche(s)" in lines[3]


def test_each_failure_is_one_line_with_what_to_do(configured, capsys, slack: FakeSlack, ds: FakeDS, albert: FakeAlbert,
                                                  monkeypatch):
    slack.scopes.discard("files:write")
    ds.out_of_scope.add(102)
    monkeypatch.setenv("ALBERT_MODEL", "no-such-model")
    code, lines = check(capsys, "--as", "nobody@example.gouv.fr")
    assert code == 1
    failed = {line.split(":")[0]: line for line in lines if line.startswith("✗")}
    assert set(failed) == {"✗ Slack", "✗ room service", "✗ dossier service", "✗ inference service"}
    assert "files:write" in failed["✗ Slack"] and "reinstall" in failed["✗ Slack"]
    assert "AccountNotFound" in failed["✗ room service"]
    assert "n° 102: forbidden" in failed["✗ dossier service"]
    assert "set ALBERT_MODEL" in failed["✗ inference service"]
    assert not any(secret in "\n".join(lines) for secret in (BOOTSTRAP, ds.token, "xoxb-test-bot-token"))


async def test_serve_logs_each_failure_in_one_line_and_goes_on(configured, redis, slack: FakeSlack, caplog):
    slack.scopes.discard("links:write")
    with caplog.at_level(logging.WARNING):
        await log_failures(load_settings(_env_file=None), redis)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("start-up check")]
    assert len(lines) == 1 and "links:write" in lines[0]


def test_a_redis_that_keeps_nothing_is_a_failure_even_though_info_shows_a_save_time(configured, capsys, monkeypatch, tmp_path):
    from tests.processes import free_port
    from tests.redis_topologies import Servers

    port = free_port()
    with Servers(tmp_path / "bare") as servers:  # --save "" --appendonly no
        servers.start(port)
        monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{port}/0")
        code, lines = check(capsys)
    assert code == 1 and lines[0].startswith("✗ Redis") and "no persistence: enable AOF" in lines[0], lines
