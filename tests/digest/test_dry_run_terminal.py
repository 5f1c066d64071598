"""`digest --dry-run` shows the digest's Slack text as a terminal should: emoji, no mrkdwn marks."""

from __future__ import annotations

import subprocess
import sys

from bot.commands.digest import for_terminal
from bot.demo.albert import BOOTSTRAP, FakeAlbert
from bot.demo.ds import FakeDS
from tests.conftest import ROOT, bot_env


def test_mrkdwn_is_rendered_for_a_terminal() -> None:
    assert for_terminal(":sparkles: 12 *new* deposits &amp; a_snake_case _(written by Albert)_ :unknown_code:") == \
        "✨ 12 new deposits & a_snake_case (written by Albert) :unknown_code:"


def test_the_dry_runs_ai_line_reads_as_in_slack(tmp_path, ds: FakeDS, meet, slack, albert: FakeAlbert) -> None:
    ds.add_demarche(101, "Subvention", dossiers=12)
    env = {**bot_env(meet, slack), "DS_API_URL": ds.url, "DS_API_TOKEN": ds.token, "DIGEST_CHANNEL": "C0DIGEST",
           "DIGEST_DEMARCHES": "101", "DATA_DIR": str(tmp_path), "DEFAULT_LANGUAGE": "en", "PATH": "/usr/bin:/bin",
           "PYTHONPATH": str(ROOT), "COLUMNS": "200", "ALBERT_API_URL": albert.url, "ALBERT_API_KEY": BOOTSTRAP}
    albert.reply = "Les dossiers progressent & 12 *nouveaux* dépôts."
    shown = subprocess.run([sys.executable, "-m", "bot", "digest", "--dry-run"], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert "✨ Les dossiers progressent & 12 nouveaux dépôts. (written by Albert from the counts)" in shown.stdout, shown.stdout
    assert ":sparkles:" not in shown.stdout and "_(" not in shown.stdout and "&amp;" not in shown.stdout
