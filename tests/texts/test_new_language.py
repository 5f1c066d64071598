"""A new language is one catalog folder, nothing else (docs/architecture.md, "A new language").

Proved on a copy of the bot's code with a catalog added beside the others (German, or the first
of a few the bot does not speak yet): nothing else is touched, the bot speaks it everywhere a
language is chosen, and understands the words its catalog says people type."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from babel.messages.pofile import read_po, write_po

from bot.demo.meet import FakeMeet
from handlers.i18n import LANGUAGES
from tests.conftest import ROOT, bot_env
from tests.fakes.slack import FakeSlack

#: a language the bot does not speak yet
NEW = next(code for code in ("de", "it", "es", "nl") if code not in LANGUAGES)
#: the words its speakers type (`/digest subscribe … um 08:30`, `/room new um 14:30 morgen`)
TYPED = {"typed.at": "um", "typed.tomorrow": "morgen"}


def new_language_copy(tmp_path: Path) -> Path:
    """The bot's packages, plus handlers/locales/NEW: the English catalog with every text marked
    `[NEW]`, and the words people type in it."""
    copy = tmp_path / "roombot"
    for package in ("bot", "handlers", "clients"):
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    with open(copy / "handlers" / "locales" / "en" / "LC_MESSAGES" / "messages.po", "rb") as english:
        catalog = read_po(english, locale="en")
    for message in catalog:
        if message.id:
            message.string = TYPED.get(str(message.id), f"[{NEW}] {message.string}")
    folder = copy / "handlers" / "locales" / NEW / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with open(folder / "messages.po", "wb") as out:
        write_po(out, catalog)
    return copy


def test_a_new_language_is_one_catalog_folder(tmp_path: Path, redis_url: str, redis, meet: FakeMeet, slack: FakeSlack):
    copy = new_language_copy(tmp_path)
    env = {**os.environ, **bot_env(meet, slack), "PYTHONPATH": str(copy), "REDIS_URL": redis_url, "DATA_DIR": str(tmp_path / "data")}
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "LOG_LEVEL"):
        env.pop(name, None)
    probe = subprocess.run([sys.executable, "-c", "\n".join([
        "from bot.config import Settings",
        "from bot.commands.console_directory import slack_locale",
        "from handlers.core.when import read",
        "from handlers.digest.request import parse",
        "from handlers.i18n import LANGUAGES, language_for, text",
        f"print(sorted(LANGUAGES), Settings(_env_file=None, default_language='{NEW}').default_language)",
        f"print(language_for(slack_locale('{NEW}'), 'en'), parse('subscribe 101 um 08:30').at)",
        "plan = read('um 14:30 morgen').plan",
        "print(plan.at, plan.day.offset)",
        f"print(text('{NEW}', 'list.title'))",
    ])], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.splitlines() == [f"{sorted([*LANGUAGES, NEW])} {NEW}", f"{NEW} 08:30:00", "14:30:00 1",
                                         f"[{NEW}] Your video rooms"]
    meet.add_user("alice@example.gouv.fr")
    shell = subprocess.run([sys.executable, "-m", "bot", "shell", "--as", "alice@example.gouv.fr", "--lang", NEW],
                           input="/room help\n/room list\n", env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert shell.returncode == 0, shell.stderr
    lines = shell.stdout.splitlines()
    assert lines[0].startswith(f"[{NEW}] You are alice@example.gouv.fr")  # the shell's own words
    assert f"== [{NEW}] Video rooms from Slack ==" in shell.stdout and f"[{NEW}] You have no video room yet" in shell.stdout
