"""`python -m bot shell`: the bot's own listeners driven from a console, read as a person reads Slack."""

from __future__ import annotations

import contextlib
import io
import os
import pty
import re
import signal
import subprocess
import sys
import time

import pytest

from bot.cli import main
from bot.commands.console_directory import Directory, Person, slack_locale
from bot.commands.console_screen import readable
from bot.demo.ds import FakeDS
from bot.demo.meet import FakeMeet
from handlers.i18n import LANGUAGES, language_for
from tests.conftest import ROOT, bot_env
from tests.fakes.slack import FakeSlack


@pytest.fixture
def operator_env(monkeypatch, tmp_path, redis_url, redis, meet: FakeMeet, slack: FakeSlack, restore_logging):
    """An operator's environment, on the tests' Redis (flushed: what one test kept is not another's)."""
    for name, value in {**bot_env(meet, slack), "REDIS_URL": redis_url, "DATA_DIR": str(tmp_path)}.items():
        monkeypatch.setenv(name, value)
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL", "LOG_LEVEL"):  # no Slack app yet
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    meet.add_user("alice@example.gouv.fr")


def shell(monkeypatch, capsys, typed: str, *args: str) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    assert main(["shell", "--as", "alice@example.gouv.fr", *args]) == 0
    return capsys.readouterr().out


def test_the_main_job_works_from_a_console(operator_env, monkeypatch, capsys, meet: FakeMeet):
    out = shell(monkeypatch, capsys, "/room new restricted\n1\n3\n/room list\nhello\n", "--lang", "en")
    [room] = meet.rooms.values()
    assert "== Your video room is ready ==" in out and f"Link: {room['url']}" in out
    assert "[1] Share in channel   [2] Send by direct message   [3] Join" in out
    assert "--- #console\n@alice invites you to a video room" in out  # button 1: shared in the channel
    assert f"open {room['url']}" in out  # button 3: the link
    assert f"{room['slug']} ({room['url']}) · restricted" in out  # the list's linked slug, as Slack shows it
    assert "Type /room …, /digest …, home, the number of a button, or quit." in out


def test_a_command_with_the_word_payload_in_it_is_answered_in_the_shell(operator_env, monkeypatch, capsys):
    """As over HTTP (tests/robustness/test_attacks.py): Bolt took the form for an interaction's."""
    out = shell(monkeypatch, capsys, "/room payload\n", "--lang", "en")
    assert "/room show <room id or link>" in out and "Unhandled request" not in out


def test_the_console_speaks_the_chosen_language_and_explains_failures(operator_env, monkeypatch, capsys):
    assert "no video room yet" in shell(monkeypatch, capsys, "/room list\n", "--lang", "en")
    # right after, as someone else: not answered as Alice (profiles are cached per Slack user)
    monkeypatch.setattr("sys.stdin", io.StringIO("/room list\n"))
    assert main(["shell", "--as", "nobody@example.gouv.fr", "--lang", "fr"]) == 0
    assert "n'a pas encore de compte pour nobody@example.gouv.fr" in capsys.readouterr().out


def test_a_banner_says_who_you_are_quit_leaves_and_logs_stay_out_of_the_conversation(operator_env, monkeypatch, capsys,
                                                                                     meet: FakeMeet):
    monkeypatch.setattr("sys.stdin", io.StringIO("/room list\nquit\n/room new\n"))
    assert main(["shell", "--as", "alice@example.gouv.fr", "--lang", "en"]) == 0
    said = capsys.readouterr()
    first = said.out.splitlines()[0]
    assert first.startswith("You are alice@example.gouv.fr in #console") and "quit (or Ctrl-D) leaves" in first
    assert meet.rooms == {}  # nothing after `quit` was read
    assert said.err == ""  # not a log line at the default level
    monkeypatch.setenv("LOG_LEVEL", "INFO")  # unless the operator asks for them
    monkeypatch.setattr("sys.stdin", io.StringIO("/room list\nexit\n"))
    assert main(["shell", "--as", "alice@example.gouv.fr", "--lang", "en"]) == 0
    assert "rooms answered 200" in capsys.readouterr().err


def test_slack_markup_reads_as_a_person_sees_it():
    me = Person("UC1", "alice", "alice@example.gouv.fr", "en-US")
    names = Directory(me)
    general = names.channel("general")
    said = "*Ready* <https://visio.example/abc|abc> for <@UC1> in <#" + general + "> &lt;b&gt; &amp; <!here> `▁▂`"
    assert readable(said, names, styled=False) == "Ready abc (https://visio.example/abc) for @alice in #general <b> & @here ▁▂"
    assert readable("<https://visio.example/abc>", names, styled=False) == "https://visio.example/abc"
    assert readable("*Ready*", names, styled=True) == "\033[1mReady\033[0m"
    assert readable("Aides \x1b]0;pwned\x07\x1b[2J *2026*", names, styled=True) == "Aides ]0;pwned[2J \033[1m2026\033[0m"
    assert names.escape("/room new @bob #general alice@example.gouv.fr") == (
        f"/room new <@{names.person('bob').id}|bob> <#{general}|general> alice@example.gouv.fr")


def test_the_persons_locale_comes_from_the_language_chosen():
    assert slack_locale("fr") == "fr-FR" and slack_locale("en") == "en-US" and slack_locale("de") == "de-DE"
    assert all(language_for(slack_locale(lang), "none") == lang for lang in LANGUAGES)


def test_names_typed_plainly_and_a_modal_asked_field_by_field(operator_env, monkeypatch, capsys):
    out = shell(monkeypatch, capsys, "/room new @bob #general\n4\n@carol @dave\nSee you there\n", "--lang", "en")
    assert "--- direct message to @bob\n@alice invites you to a video room" in out  # with [1] Join
    assert "--- #general\n@alice invites you to a video room" in out  # with [2] Join
    assert "[3] Share in channel   [4] Send by direct message   [5] Join" in out
    assert "People (up to 20) (type @names)" in out and "Message (optional) (type the text) — Enter skips it" in out
    for person in ("carol", "dave"):
        assert f"--- direct message to @{person}\n@alice invites you to a video room" in out
    assert "> See you there" in out and "Sent to @carol, @dave." in out


def test_a_new_room_with_options_from_home(operator_env, monkeypatch, capsys, meet: FakeMeet):
    out = shell(monkeypatch, capsys, "home\n2\n2\n1 2\n1\n#general\n\n\n\n", "--lang", "en")  # no start, topic, weekly
    assert "--- Home\n== Your video rooms ==\n[1] New room ▾" in out and "[2] More options…" in out
    [room] = meet.rooms.values()
    assert room["access_level"] == "restricted"
    assert room["configuration"] == {"can_publish_sources": ["camera", "microphone"], "everyone_can_mute": True}
    assert "--- direct message to you\n== Your video room is ready ==" in out and "Invitation posted in #general." in out


def test_digest_now_posts_its_text_and_chart_in_the_console(operator_env, monkeypatch, capsys, ds: FakeDS):
    ds.add_demarche(101, "Subvention vélo", dossiers=30, admins=("alice@example.gouv.fr",))
    monkeypatch.setenv("DS_API_URL", ds.url)
    monkeypatch.setenv("DS_API_TOKEN", ds.token)
    out = shell(monkeypatch, capsys, "/digest subscribe 101\n/digest now\n", "--lang", "en")
    assert "--- #console\n== Dossiers on" in out and "Subvention vélo · n° 101" in out
    assert "[chart: Dossiers by state, last 14 days, " in out and " kB]" in out
    assert "went wrong" not in out


class Terminal:
    """The shell in a real pseudo-terminal, read as a person reads the screen."""

    def __init__(self, args: list[str], env: dict[str, str], cwd) -> None:
        self.leader, follower = pty.openpty()
        self.process = subprocess.Popen([sys.executable, "-m", "bot", "shell", *args],
                                        stdin=follower, stdout=follower, stderr=follower, cwd=cwd, env=env)
        os.close(follower)
        self.seen = b""

    def read_until(self, wanted: bytes) -> None:
        deadline = time.monotonic() + 30
        while wanted not in self.seen:
            assert time.monotonic() < deadline and self.process.poll() is None, self.seen.decode(errors="replace")
            self.seen += os.read(self.leader, 4096)

    def type(self, line: bytes) -> None:
        os.write(self.leader, line)

    def read_to_the_end(self) -> bytes:
        with contextlib.suppress(OSError):  # what is left to read, until the terminal closes
            while chunk := os.read(self.leader, 4096):
                self.seen += chunk
        return self.seen

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.leader)


def test_at_a_terminal_the_shell_prompts(operator_env, tmp_path):
    """A real pseudo-terminal: the prompt shows, bold is bold, and `quit` ends the session."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    terminal = Terminal(["--as", "alice@example.gouv.fr", "--lang", "en"], env, tmp_path)
    try:
        terminal.read_until(b"\r\n> ")
        terminal.type(b"/room help\n")
        terminal.read_until(b"\x1b[1mNew video room\x1b[0m")
        terminal.read_until(b"\r\n> ")
        terminal.type(b"quit\n")
        assert terminal.process.wait(timeout=30) == 0
    finally:
        terminal.close()


def test_a_meeting_planned_from_the_console_shows_its_time_file_and_reminders(operator_env, monkeypatch, capsys, meet: FakeMeet):
    out = shell(monkeypatch, capsys, '/room new at 14:30 tomorrow "Budget" @bob\nhome\n', "--lang", "en")
    [room] = meet.rooms.values()
    assert "*Budget*" not in out and "Budget" in out and "14:30" in out
    assert "[calendar file: Budget" in out and "Slack will post in" in out
    assert "Upcoming" in out and room["url"] in out


def test_emoji_and_italics_read_as_slack_shows_them():
    names = Directory(Person("UC1", "alice", "alice@example.gouv.fr", "en-US"))
    assert readable(":sparkles: _written by AI_ :white_check_mark: :unknown_one:", names, styled=False) == (
        "✨ written by AI ✅ :unknown_one:")
    assert readable("_x_", names, styled=True) == "\033[3mx\033[0m"
    assert readable("snake_case_name", names, styled=False) == "snake_case_name"


async def test_two_shells_on_one_redis_and_a_time_typed_in_a_window(operator_env, monkeypatch, capsys, meet: FakeMeet, redis):
    import asyncio
    import datetime as dt
    import json
    from zoneinfo import ZoneInfo

    tomorrow = (dt.datetime.now(ZoneInfo("Europe/Paris")) + dt.timedelta(days=1)).date()
    typed = f"home\n2\n1\n\n\n\n{tomorrow} 10:00\nBudget\n\n"  # More options…, trusted, …, a start at 10:00
    for _ in range(2):  # a second session on the same Redis: its window is its own, not a repeat of the first's
        await asyncio.to_thread(shell, monkeypatch, capsys, typed, "--lang", "en")
    assert len(meet.rooms) == 2
    from clients.redis_keys import key

    starts = [json.loads(await redis.get(name))["starts_at"] for name in await redis.keys(key("meeting", "*"))]
    expected = int(dt.datetime.combine(tomorrow, dt.time(10), ZoneInfo("Europe/Paris")).timestamp())
    assert starts == [expected, expected]  # 10:00 in the person's zone, not the machine's


def test_the_demo_runs_every_readme_example_with_nothing_set(tmp_path):
    """`shell --demo` on a machine with nothing configured, as a new operator tries it first."""
    typed = "\n".join(["/room new restricted @bob #projet", "/digest subscribe 12345 at 08:30", "/digest now", "/dossier 24680",
                       "7", "C'est accepté.", "/dossier watch 678", "/dossier team 12345",
                       "/dossier team 12345", "/dossier team 12345 check", "home", "quit"]) + "\n"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "bot", "shell", "--demo", "--lang", "en"], input=typed, cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    out = done.stdout
    assert done.returncode == 0 and "Traceback" not in out + done.stderr, done.stderr
    assert out.startswith("DEMO — ") and "nothing is real" in out
    assert "== Your video room is ready ==" in out and "Sent to @bob." in out and "Invitation posted in #projet." in out
    assert "Aides aux associations (démo) · n° 12345" in out
    assert "Today's digest is posted here." in out
    assert "Dossier n° 24680 · Aides aux associations (démo) (n° 12345)" in out and "You accepted dossier n° 24680" in out
    assert "You are watching n° 678" in out and "My dossiers" in out
    assert "Team space of n° 12345 · Aides aux associations (démo): ready." in out and "Call the team now" in out
    assert out.count("[conversations.invite: #dn-12345-aides-aux-associations-demo ← @you]") == 1  # once: run again, nobody
    assert "Everyone with an account here was already in the channel: nobody to invite." in out
    assert "The channel has every instructeur who has an account here" in out  # the check sees who was invited
    assert not (tmp_path / "var").exists()  # nothing kept: the demo's Redis lived in a folder of its own


def test_a_buttons_confirm_dialog_is_asked_before_it_acts(operator_env, monkeypatch, capsys, redis_url, meet: FakeMeet):
    """As Slack does: the dialog's title and text, then its two buttons as y or n; n does nothing."""
    out = shell(monkeypatch, capsys, "/room new\n/room forget me\n4\nn\n/room forget me\n5\ny\n", "--lang", "en")
    asked = out.index("--- Erase what the bot keeps?\nYour profile's copy, your token")
    assert "Type y for “Erase”, n (or Enter) for “Keep”." in out[asked:]
    refused, erased = out.index("Not done.", asked), out.index("Erased.", asked)
    assert refused < out.index("A room-service token in your name", refused) < erased  # n kept it all
    assert out.count("--- Erase what the bot keeps?") == 2


def test_a_windows_text_is_shown_before_its_fields(monkeypatch, capsys, restore_logging):
    monkeypatch.setattr("sys.stdin", io.StringIO("/dossier 24680\n1\n\n"))
    assert main(["shell", "--demo", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    window = out.index("--- Accept the dossier\n")
    assert out.index("will be accepted, in your name.", window) < out.index("Motivation (type the text)", window)
    assert "The applicant will be e-mailed with this decision" in out[window:]
    assert "(Ctrl-D or Ctrl-C cancels this window)" in out[window:]


def test_ctrl_c_cancels_a_window_then_leaves_the_shell_in_one_line(tmp_path):
    """At a terminal, as a person presses Ctrl-C (the terminal sends SIGINT): at a window's field the
    window goes, nothing sent; at the prompt the shell ends, without a traceback."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    terminal = Terminal(["--demo", "--lang", "en"], env, tmp_path)
    try:
        terminal.read_until(b"\r\n> ")
        terminal.type(b"/room new\n")
        terminal.read_until(b"[2] Send by direct message")
        terminal.type(b"2\n")
        terminal.read_until(b"cancels this window)")
        terminal.read_until(b"  > ")
        terminal.process.send_signal(signal.SIGINT)
        terminal.read_until(b"Cancelled: nothing was sent.")
        terminal.read_until(b"\r\n> ")
        terminal.process.send_signal(signal.SIGINT)
        terminal.read_until(b"Left (Ctrl-C).")
        assert terminal.process.wait(timeout=30) == 0
        seen = terminal.read_to_the_end()
        assert b"Traceback" not in seen and b"direct message to" not in seen, seen.decode(errors="replace")
    finally:
        terminal.close()


def test_the_demo_tells_one_set_of_numbers_everywhere(monkeypatch, capsys, restore_logging):
    """Démarche and dossier numbers apart; `/dossier watch` alone knows what is watched; Home, the
    digest and its to-do list count the same late dossiers, before and after an act."""
    typed = ["/dossier watch 12345", "/dossier watch", "home",  # Home: [1] [2] [3] Stop watching [4] Choose [5] [6] Snooze
             # [7] privacy [8] Team space
             "/digest subscribe 12345", "/digest now", "9",  # [9] Show them: the list's 25 buttons are [10]–[34]
             "/dossier 20007", "35", "",  # a late dossier under review: [35] Accept, no motivation
             "9", "home"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(typed) + "\n"))
    assert main(["shell", "--demo", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert out.count("You are watching n° 12345") == 2 and "I know no démarche" not in out
    first_home = out[out.index("== My dossiers =="):out.index("/digest subscribe 12345 in a channel")]
    assert "not counted yet" in first_home and "Nothing needs doing" not in out
    digest = re.search(r"To do: (\d+) under construction for over 7 days .* · (\d+) under review for over 7 days", out)
    assert digest is not None
    late = int(digest[1]) + int(digest[2])
    lists = re.findall(r"Waiting too long \((\d+)\)", out)
    assert lists == [str(late), str(late - 1)], lists  # the act counted at once
    assert "Dossier n° 20007 · Aides aux associations (démo) (n° 12345)" in out and "You accepted dossier n° 20007" in out
    assert f"{late - 1} waiting too long" in out[out.rindex("== My dossiers =="):]
    assert "Dossier n° 12345" not in out


def test_a_cards_overflow_menu_shows_its_links(monkeypatch, capsys, restore_logging):
    """The card's ⋯ menu only links to the service's pages: the shell shows each, as Slack would list them."""
    monkeypatch.setattr("sys.stdin", io.StringIO("/dossier 24680\n"))
    assert main(["shell", "--demo", "--lang", "fr"]) == 0
    out = capsys.readouterr().out
    assert "[overflow]" not in out
    assert re.search(r"⋯ Demander un avis à un expert \(sur le service\) \(http://127\.0\.0\.1:\d+/procedures/12345/dossiers/24680/avis\)",
                     out), out
