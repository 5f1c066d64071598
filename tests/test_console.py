"""`python -m bot shell`: the bot's own listeners driven from a console, buttons clicked by number."""

from __future__ import annotations

import io

import pytest

from bot.cli import main
from tests.conftest import bot_env
from tests.fakes.meet import FakeMeet
from tests.fakes.slack import FakeSlack


@pytest.fixture
def operator_env(monkeypatch, tmp_path, redis_url, meet: FakeMeet, slack: FakeSlack, restore_logging):
    for name, value in {**bot_env(meet, slack), "REDIS_URL": redis_url, "DATA_DIR": str(tmp_path), "LOG_LEVEL": "WARNING"}.items():
        monkeypatch.setenv(name, value)
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL"):  # no Slack app yet
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def shell(monkeypatch, capsys, typed: str, *args: str) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    assert main(["shell", *args]) == 0
    return capsys.readouterr().out


def test_the_main_job_works_from_a_console(operator_env, monkeypatch, capsys, meet: FakeMeet, redis):
    meet.add_user("alice@example.gouv.fr")
    out = shell(monkeypatch, capsys, "/room new restricted\n1\n3\n/room list\nhello\n", "--as", "alice@example.gouv.fr",
                "--lang", "en")
    [room] = meet.rooms.values()
    assert "== Your video room is ready ==" in out and room["url"] in out
    assert "[1] Share in channel" in out and "[2] Send by direct message" in out and "[3] Join" in out
    assert "--- #C0CONSOLE" in out and "invites you to a video room" in out  # button 1: shared in the channel
    assert f"open {room['url']}" in out  # button 3: the link
    assert "== Your video rooms ==" in out and "type /room" in out


def test_the_console_speaks_the_chosen_language_and_explains_failures(operator_env, monkeypatch, capsys, meet: FakeMeet):
    meet.add_user("alice@example.gouv.fr")
    assert "no video room yet" in shell(monkeypatch, capsys, "/room list\n", "--as", "alice@example.gouv.fr", "--lang", "en")
    # right after, as someone else: not answered as Alice (profiles are cached per Slack user)
    out = shell(monkeypatch, capsys, "/room list\n", "--as", "nobody@example.gouv.fr", "--lang", "fr")
    assert "n'a pas encore de compte pour nobody@example.gouv.fr" in out
