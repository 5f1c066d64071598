"""A new language is one catalog folder, nothing else (docs/architecture.md, "A new language").

Proved on a copy of the bot's code with a German catalog added beside the others: nothing else
is touched, and the bot speaks it everywhere a language is chosen."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from babel.messages.pofile import read_po, write_po

from bot.demo.meet import FakeMeet
from tests.conftest import ROOT, bot_env
from tests.fakes.slack import FakeSlack


def german_copy(tmp_path: Path) -> Path:
    """The bot's packages, plus handlers/locales/de: the English catalog with every text marked
    `[de]`, and the one word people type (`/digest subscribe … um 08:30`)."""
    copy = tmp_path / "roombot"
    for package in ("bot", "handlers", "clients"):
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    with open(copy / "handlers" / "locales" / "en" / "LC_MESSAGES" / "messages.po", "rb") as english:
        catalog = read_po(english, locale="en")
    for message in catalog:
        if message.id:
            message.string = "um" if message.id == "digest_cmd.at_word" else f"[de] {message.string}"
    german = copy / "handlers" / "locales" / "de" / "LC_MESSAGES"
    german.mkdir(parents=True)
    with open(german / "messages.po", "wb") as out:
        write_po(out, catalog)
    return copy


def test_a_new_language_is_one_catalog_folder(tmp_path: Path, redis_url: str, redis, meet: FakeMeet, slack: FakeSlack):
    copy = german_copy(tmp_path)
    env = {**os.environ, **bot_env(meet, slack), "PYTHONPATH": str(copy), "REDIS_URL": redis_url, "DATA_DIR": str(tmp_path / "data")}
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "LOG_LEVEL"):
        env.pop(name, None)
    probe = subprocess.run([sys.executable, "-c", "\n".join([
        "from bot.config import Settings",
        "from bot.console_slack import slack_locale",
        "from handlers.digest.command import parse",
        "from handlers.i18n import LANGUAGES, language_for, text",
        "print(sorted(LANGUAGES), Settings(_env_file=None, default_language='de').default_language)",
        "print(language_for(slack_locale('de'), 'en'), parse('subscribe 101 um 08:30').at)",
        "print(text('de', 'list.title'))",
    ])], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.splitlines() == ["['de', 'en', 'fr'] de", "de 08:30:00", "[de] Your video rooms"]
    meet.add_user("alice@example.gouv.fr")
    shell = subprocess.run([sys.executable, "-m", "bot", "shell", "--as", "alice@example.gouv.fr", "--lang", "de"],
                           input="/room help\n/room list\n", env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert shell.returncode == 0, shell.stderr
    lines = shell.stdout.splitlines()
    assert lines[0].startswith("[de] You are alice@example.gouv.fr")  # the shell's own words
    assert "== [de] Video rooms from Slack ==" in shell.stdout and "[de] You have no video room yet" in shell.stdout
