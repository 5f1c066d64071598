"""The command line as an operator meets it: each command says what it does, refuses what the
service would (before asking it), answers in one line when a service is away, and keeps its log
out of its answer unless LOG_LEVEL asks for it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.demo.ds import FakeDS
from bot.demo.meet import FakeMeet
from tests.conftest import VERSION, bot_env
from tests.fakes.slack import FakeSlack
from tests.processes import ROOT, free_port


def run(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT),
                          "PATH": "/usr/bin:/bin", "DATA_DIR": str(tmp_path / "data")}, capture_output=True, text=True, timeout=120)


def test_version_is_the_packages_and_the_changelog_says_what_it_brings(tmp_path: Path) -> None:
    done = run(tmp_path, {}, "--version")
    assert done.returncode == 0 and done.stdout == f"roombot {VERSION}\n", done
    newest = re.search(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert newest is not None and newest[1] == VERSION  # an operator upgrading finds its notes


@pytest.mark.parametrize("command", ["serve", "digest", "check", "shell", "keys"])
def test_each_command_says_what_it_does(capsys: pytest.CaptureFixture[str], command: str) -> None:
    with pytest.raises(SystemExit) as ended:
        main([command, "--help"])
    shown = capsys.readouterr().out
    assert ended.value.code == 0
    description = shown.split("\n\n")[1]  # after the usage line
    assert not description.startswith(("options", "positional")) and len(description.split()) >= 8, shown


def test_keys_alone_and_a_negative_lifetime_are_refused_before_any_call(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as alone:
        main(["keys"])
    said = capsys.readouterr().err
    assert alone.value.code == 2 and "`keys list` shows them, `keys rotate` gives the bot a fresh one" in said
    assert "required: action" not in said
    for days in ("-5", "ten", "99999"):
        with pytest.raises(SystemExit) as refused:
            main(["keys", "rotate", "--expires-in-days", days])
        assert refused.value.code == 2 and "--expires-in-days" in capsys.readouterr().err


def test_a_digest_posted_while_slack_is_away_says_so_in_one_line(tmp_path: Path, ds: FakeDS, meet: FakeMeet,
                                                                 slack: FakeSlack) -> None:
    ds.add_demarche(101, "Subvention", dossiers=3)
    env = {**bot_env(meet, slack), "SLACK_API_URL": f"http://127.0.0.1:{free_port()}/api/", "DS_API_URL": ds.url,
           "DS_API_TOKEN": ds.token, "DIGEST_CHANNEL": "C0DIGEST", "DIGEST_DEMARCHES": "101"}
    done = run(tmp_path, env, "digest")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    [line] = [line for line in done.stderr.splitlines() if line.startswith("roombot:")]
    assert "not posted: cannot reach Slack at 127.0.0.1" in line and "check SLACK_API_URL" in line


def test_commands_keep_their_log_out_of_their_answer_unless_log_level_asks(tmp_path: Path, ds: FakeDS, meet: FakeMeet,
                                                                           slack: FakeSlack) -> None:
    ds.add_demarche(101, "Subvention", dossiers=3)
    env = {"DS_API_URL": ds.url, "DS_API_TOKEN": ds.token, "DIGEST_DEMARCHES": "101", "DEFAULT_LANGUAGE": "en"}
    quiet = run(tmp_path, env, "digest", "--dry-run")
    assert quiet.returncode == 0 and "embedded redis started" not in quiet.stderr and "INFO" not in quiet.stderr
    told = run(tmp_path, {**env, "LOG_LEVEL": "INFO"}, "digest", "--dry-run")
    assert told.returncode == 0 and "embedded redis started" in told.stderr
    assert "Subvention" in quiet.stdout and "Subvention" in told.stdout  # the answer on stdout either way
