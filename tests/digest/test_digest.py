"""The daily digest end to end: the GraphQL fake behind, the Slack fake in front, real Redis."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import re
import subprocess
import sys
from dataclasses import replace
from zoneinfo import ZoneInfo

import pytest
from freezegun import freeze_time
from pydantic import SecretStr

from bot.demo.ds import FakeDS
from bot.serving.scheduler import run_daily
from clients.dossiers.counts import DemarcheCounts
from clients.dossiers.digest_store import DigestStore, Outcome
from clients.inference.service import InferenceService
from clients.redis_keys import key as redis_key
from clients.retry import RetryPolicy
from domain.dossiers.lines import DigestFailure, DigestLine
from domain.dossiers.schedule import due_at, due_day
from handlers.digest.job import DigestJob
from handlers.digest.messages import digest_messages, sparkline
from tests.conftest import ROOT, bot_env, eventually, text_of
from tests.fakes.slack import FakeSlack

PARIS = ZoneInfo("Europe/Paris")
CHANNEL = "C0DIGEST"
OPERATORS = f"{CHANNEL}:operator"  # where the operator's digest keeps its marks (apart from a channel's own)


def digest_posts(slack: FakeSlack) -> list[dict]:
    return slack.posted(CHANNEL)


async def test_digest_posts_counts_per_demarche_and_lists_failures(jobs, ds: FakeDS, slack: FakeSlack):
    ds.add_demarche(101, "Subvention <vélo> & co", dossiers=250)
    # 102 does not exist: reported, the others still go out
    assert await jobs().run(dt.date(2026, 1, 5)) is Outcome.POSTED
    [post] = digest_posts(slack)
    words = text_of(post)
    assert "Dossiers on January 5, 2026" in words
    assert "*Subvention &lt;vélo&gt; &amp; co* · n° 101" in words and "*250* dossiers" in words
    states = ds.states(101)
    assert f"under construction {states['en_construction']}" in words and f"accepted {states['accepte']}" in words
    assert "*Démarche n° 102*: not included, there is no démarche with this number." in words


async def test_second_digest_shows_changes_new_deposits_and_a_trend(jobs, ds: FakeDS, slack: FakeSlack, redis):
    ds.add_demarche(101, "Un", dossiers=120)
    ds.add_demarche(102, "Deux", dossiers=10)
    job = jobs()
    day = dt.date(2026, 1, 5)
    await job.run(day)
    for offset in range(1, 4):
        ds.now += dt.timedelta(days=1)
        for _ in range(offset * 3):
            ds.deposit(101)
        await job.run(day + dt.timedelta(days=offset))
    last = text_of(digest_posts(slack)[-1])
    assert "*138* dossiers (+9 since the last digest, 9 deposited)" in last
    assert "14 days: `" in last and last.split("14 days: `")[1].startswith(" " * 10 + "▁")
    assert "under construction" in last and "(+9)" in last
    assert "*10* dossiers (±0 since the last digest, 0 deposited)" in last


async def test_one_digest_per_day_and_force_posts_again(jobs, ds: FakeDS, slack: FakeSlack):
    ds.add_demarche(101, "Un", dossiers=5)
    ds.add_demarche(102, "Deux", dossiers=5)
    job = jobs()
    day = dt.date(2026, 1, 5)
    assert await job.run(day) is Outcome.POSTED
    assert await job.run(day) is Outcome.ALREADY_POSTED
    assert len(digest_posts(slack)) == 1
    assert await job.run(day, force=True) is Outcome.POSTED
    assert len(digest_posts(slack)) == 2


class PolledClock:
    """A scheduler's clock that counts how often it was read: each read is one poll, so a test
    waits for polls (conditions), never for a guessed delay."""

    def __init__(self, at: dt.datetime) -> None:
        self.at, self.reads = at, 0

    def __call__(self) -> dt.datetime:
        self.reads += 1
        return self.at

    async def polled(self, times: int) -> None:
        """Returns once the scheduler has read the clock `times` more times."""
        target = self.reads + times
        await eventually(lambda: self.reads >= target, f"{times} polls")


async def test_two_schedulers_post_exactly_one_digest(jobs, ds: FakeDS, slack: FakeSlack):
    ds.add_demarche(101, "Un", dossiers=300)
    ds.add_demarche(102, "Deux", dossiers=300)
    stop = asyncio.Event()
    clocks = [PolledClock(dt.datetime(2026, 1, 5, 8, 0, 5, tzinfo=dt.UTC)) for _ in range(2)]  # 09:00:05 in Paris
    loops = [asyncio.create_task(run_daily(jobs().run, dt.time(9, 0), PARIS, stop, now=clock, poll=0.02)) for clock in clocks]
    await eventually(lambda: digest_posts(slack), "a digest posted")
    for clock in clocks:  # both went on polling after it: neither posts a second one
        await clock.polled(5)
    stop.set()
    await asyncio.gather(*loops)
    assert len(digest_posts(slack)) == 1


async def test_a_bot_started_after_the_hour_catches_up_once(jobs, ds: FakeDS, slack: FakeSlack):
    ds.add_demarche(101, "Un", dossiers=5)
    ds.add_demarche(102, "Deux", dossiers=5)
    stop = asyncio.Event()
    clock = PolledClock(dt.datetime(2026, 1, 5, 6, 0, tzinfo=dt.UTC))  # 07:00 Paris: not yet
    loop = asyncio.create_task(run_daily(jobs().run, dt.time(9, 0), PARIS, stop, now=clock, poll=0.02))
    await clock.polled(5)
    assert digest_posts(slack) == []
    clock.at = dt.datetime(2026, 1, 5, 10, 30, tzinfo=dt.UTC)  # restarted at 11:30, the digest was missed
    await eventually(lambda: digest_posts(slack), "the missed digest posted")
    clock.at = dt.datetime(2026, 1, 5, 22, 0, tzinfo=dt.UTC)
    await clock.polled(5)
    stop.set()
    await loop
    assert len(digest_posts(slack)) == 1


@pytest.mark.parametrize(
    ("day", "at", "utc"),
    [
        (dt.date(2026, 1, 15), dt.time(9, 0), dt.datetime(2026, 1, 15, 8, 0, tzinfo=dt.UTC)),  # winter, UTC+1
        (dt.date(2026, 7, 15), dt.time(9, 0), dt.datetime(2026, 7, 15, 7, 0, tzinfo=dt.UTC)),  # summer, UTC+2
        (dt.date(2026, 3, 29), dt.time(9, 0), dt.datetime(2026, 3, 29, 7, 0, tzinfo=dt.UTC)),  # spring-forward day
        (dt.date(2026, 10, 25), dt.time(9, 0), dt.datetime(2026, 10, 25, 8, 0, tzinfo=dt.UTC)),  # fall-back day
        (dt.date(2026, 3, 29), dt.time(2, 30), dt.datetime(2026, 3, 29, 1, 30, tzinfo=dt.UTC)),  # 02:30 does not exist
        (dt.date(2026, 10, 25), dt.time(2, 30), dt.datetime(2026, 10, 25, 0, 30, tzinfo=dt.UTC)),  # 02:30 twice: first
    ],
)
def test_run_time_follows_the_local_clock_across_daylight_saving(day, at, utc):
    assert due_at(day, at, PARIS) == utc


@pytest.mark.parametrize("days", [("2026-03-28", "2026-03-29", "2026-03-30"), ("2026-10-24", "2026-10-25", "2026-10-26")])
async def test_one_digest_each_day_across_a_daylight_saving_change(jobs, ds: FakeDS, slack: FakeSlack, days):
    ds.add_demarche(101, "Un", dossiers=5)
    ds.add_demarche(102, "Deux", dossiers=5)
    job = jobs()
    first = dt.datetime.fromisoformat(days[0] + "T00:00:00+00:00")
    posted_at = []
    with freeze_time(first, real_asyncio=True) as frozen:
        for _ in range(3 * 24 * 4):  # every 15 minutes over three days
            day = due_day(dt.datetime.now(dt.UTC), dt.time(9, 0), PARIS)
            if day is not None and await job.run(day) is Outcome.POSTED:
                posted_at.append(dt.datetime.now(dt.UTC).astimezone(PARIS))
            frozen.tick(dt.timedelta(minutes=15))
    assert [moment.date().isoformat() for moment in posted_at] == list(days)
    assert all(moment.hour == 9 and moment.minute == 0 for moment in posted_at)


async def test_bot_not_in_the_channel_gets_a_clear_log_line_with_a_fix(jobs, ds: FakeDS, slack: FakeSlack, caplog):
    ds.add_demarche(101, "Un", dossiers=5)
    slack.channels[CHANNEL] = {"private": False, "member": False}
    slack.scopes -= {"chat:write.public", "channels:join"}  # it can neither post there unasked nor join
    with caplog.at_level(logging.ERROR):
        assert await jobs().run(dt.date(2026, 1, 5)) is Outcome.PAUSED  # not retried all day: the channel refuses it
    assert f"the operator's digest cannot go to {CHANNEL}: Slack said not_in_channel (invite the bot" in caplog.text
    slack.channels[CHANNEL]["member"] = True  # fixed: the next run posts it
    assert await jobs().run(dt.date(2026, 1, 5)) is Outcome.POSTED


def test_many_demarches_are_split_under_slacks_block_limit():
    lines = [DigestLine(DemarcheCounts(n, f"Démarche {n}", {"accepte": n}, 0, True), None, [n]) for n in range(120)]
    messages = digest_messages("fr", dt.date(2026, 1, 5), lines, [DigestFailure(999, "not_found")])
    assert len(messages) == 3
    assert all(len(m.payload()["blocks"]) <= 50 for m in messages)
    assert "Partie 3 sur 3" in text_of(messages[2].payload()) and "n° 999" in text_of(messages[2].payload())


def test_sparkline():
    assert sparkline([1, 2, 3, 4, 5, 6, 7, 8]) == "▁▂▃▄▅▆▇█"
    assert sparkline([None, 5, 5]) == " ▁▁"
    assert sparkline([None, None]) == ""


def test_digest_command_dry_run_post_once_and_force(tmp_path, ds: FakeDS, meet, slack: FakeSlack):
    ds.add_demarche(101, "Subvention", dossiers=42)
    env = {**bot_env(meet, slack), "DS_API_URL": ds.url, "DS_API_TOKEN": ds.token, "DIGEST_CHANNEL": CHANNEL,
           "DIGEST_DEMARCHES": "101", "DATA_DIR": str(tmp_path), "DEFAULT_LANGUAGE": "en", "PATH": "/usr/bin:/bin",
           "PYTHONPATH": str(ROOT)}

    def digest(*flags: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "bot", "digest", *flags], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=60)

    dry = digest("--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "Subvention" in dry.stdout and "42" in dry.stdout and digest_posts(slack) == []
    first, second, forced = digest(), digest(), digest("--force")
    assert [r.returncode for r in (first, second, forced)] == [0, 0, 0], first.stderr
    assert "posted" in first.stdout and "already posted today" in second.stdout and "posted" in forced.stdout
    assert len(digest_posts(slack)) == 2
    missing = subprocess.run([sys.executable, "-m", "bot", "digest"], cwd=tmp_path,
                             env={k: v for k, v in env.items() if k != "DIGEST_DEMARCHES"}, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "DIGEST_DEMARCHES" in missing.stderr


def test_dry_run_shows_the_ai_line_that_would_be_posted_unless_no_ai(tmp_path, ds: FakeDS, meet, slack: FakeSlack, albert):
    from bot.demo.albert import BOOTSTRAP

    ds.add_demarche(101, "Subvention", dossiers=42)
    env = {**bot_env(meet, slack), "DS_API_URL": ds.url, "DS_API_TOKEN": ds.token, "DIGEST_CHANNEL": CHANNEL,
           "DIGEST_DEMARCHES": "101", "DATA_DIR": str(tmp_path), "DEFAULT_LANGUAGE": "en", "PATH": "/usr/bin:/bin",
           "PYTHONPATH": str(ROOT), "COLUMNS": "200",
           "ALBERT_API_URL": albert.url, "ALBERT_API_KEY": BOOTSTRAP}

    def dry_run(*flags: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "bot", "digest", "--dry-run", *flags], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=60)

    albert.reply += " \x1b]0;pwned\x07\x1b[2J"  # a model's answer may hold anything: the terminal gets none of it
    shown = dry_run("--chart", str(tmp_path / "chart.png"))
    assert shown.returncode == 0, shown.stderr
    assert (tmp_path / "chart.png").read_bytes().startswith(b"\x89PNG")
    assert "Subvention" in shown.stdout and len(albert.chats) == 1
    assert albert.reply.split(" \x1b")[0] in shown.stdout and "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    skipped = dry_run("--no-ai")
    assert skipped.returncode == 0 and "Les dossiers progressent" not in skipped.stdout and len(albert.chats) == 1
    assert digest_posts(slack) == []


@pytest.fixture
async def ai_service(albert):
    from bot.demo.albert import BOOTSTRAP

    async def key() -> SecretStr:
        return SecretStr(BOOTSTRAP)

    async def no_wait(seconds: float) -> None:
        return None

    service = InferenceService(albert.url, key, model="albert-small", policy=RetryPolicy(attempts=3, sleep=no_wait))
    yield service
    await service.aclose()


async def test_ai_line_summarises_the_counts_without_sending_titles(jobs, ds: FakeDS, slack: FakeSlack, albert, ai_service):
    ds.add_demarche(101, "Subvention pour Mme Dupont", dossiers=30)
    ds.add_demarche(102, "Deux", dossiers=3)
    job = jobs()
    job.inference = ai_service
    await job.run(dt.date(2026, 1, 5))
    words = text_of(digest_posts(slack)[0])
    assert f":sparkles: {albert.reply} _(written by Albert from the counts)_" in words
    [chat] = albert.chats
    sent = json.dumps(chat["messages"], ensure_ascii=False)
    assert "Dupont" not in sent and "Subvention" not in sent
    assert json.loads(chat["messages"][1]["content"])[0] == {
        "demarche": 101, "total": 30, "by_state": ds.states(101), "change_since_previous": None, "deposited_since_previous": None,
        "waiting_longer_than_days": {"days": 7}, "decided_since_previous": {}, "sva_svr_due_within_7_days": 0,
        "sva_svr_past_due": 0}  # numbers only: what needs doing too, never a person or a title
    assert "in English" in chat["messages"][0]["content"]


@pytest.mark.parametrize("fault", ["503", "504html", "429day"])
async def test_digest_goes_out_without_the_ai_line_when_the_service_fails(jobs, ds: FakeDS, slack: FakeSlack, albert, ai_service, fault):
    ds.add_demarche(101, "Un", dossiers=3)
    ds.add_demarche(102, "Deux", dossiers=3)
    albert.faults = [fault] * 5
    job = jobs()
    job.inference = ai_service
    assert await job.run(dt.date(2026, 1, 5)) is Outcome.POSTED
    words = text_of(digest_posts(slack)[0])
    assert "*3* dossiers" in words and "Albert" not in words


async def test_digest_goes_out_without_the_ai_line_after_the_time_limit(jobs, ds: FakeDS, slack: FakeSlack, albert, ai_service,
                                                                        monkeypatch):
    import domain.dossiers.summary

    monkeypatch.setattr(domain.dossiers.summary, "TIME_LIMIT", 0.2)
    ds.add_demarche(101, "Un", dossiers=3)
    ds.add_demarche(102, "Deux", dossiers=3)
    albert.delay = 600.0  # a digest that waited for this answer would never go out
    job = jobs()
    job.inference = ai_service
    assert await asyncio.wait_for(job.run(dt.date(2026, 1, 5)), 60) is Outcome.POSTED
    assert "Albert" not in text_of(digest_posts(slack)[0])


async def many_demarches_job(jobs, ds: FakeDS, redis, count: int = 48, lease: float = 30.0) -> DigestJob:
    """A digest of `count` démarches: more than one message (47 sections each)."""
    for index in range(count):
        ds.add_demarche(1000 + index, f"D{index}", dossiers=1, seed=index)
    job = jobs()
    job.config = replace(job.config, demarches=tuple(1000 + i for i in range(count)))
    job.store = DigestStore(redis, lease=lease)
    return job


async def renewal(redis, lock: str) -> None:
    """Returns once the lease's time left goes up: it only goes down between renewals."""
    lowest = await redis.pttl(lock)

    async def renewed() -> bool:
        nonlocal lowest
        left = await redis.pttl(lock)
        if left > lowest:
            return True
        lowest = left
        return False

    await eventually(renewed, "the lease renewed")


async def test_a_live_run_keeps_its_lease_and_a_dead_one_frees_the_day_within_it(jobs, ds: FakeDS, redis):
    store = DigestStore(redis, lease=0.3)
    day = dt.date(2026, 1, 5)
    lock = redis_key(f"digest:{day}:{CHANNEL}:lock")
    async with store.day_lease(day, CHANNEL) as held:
        assert held
        first = await redis.pttl(lock)
        for _ in range(6):  # renewed six times, well past the lease, while the holder lives
            await renewal(redis, lock)
            async with DigestStore(redis, lease=0.3).day_lease(day, CHANNEL) as other:
                assert not other
            assert 0 < await redis.pttl(lock) <= 300  # a holder killed now frees the day within 0.3 s
        assert first <= 300
    assert await redis.exists(lock) == 0


async def test_a_run_after_a_crash_posts_exactly_the_missing_parts(jobs, ds: FakeDS, slack: FakeSlack, redis):
    job = await many_demarches_job(jobs, ds, redis, lease=0.5)
    day = dt.date(2026, 1, 5)
    # what a run killed after posting part 0 leaves: its mark, and its lease running out
    await job.store.mark_posted(day, OPERATORS, "daily-0")
    await redis.set(redis_key(f"digest:{day}:{OPERATORS}:lock"), "killed-holder", px=500)
    assert await job.run(day) is Outcome.BUSY  # its lease has not run out yet
    outcomes: list[Outcome] = []

    async def ran() -> bool:
        outcomes.append(await job.run(day))
        return outcomes[-1] is not Outcome.BUSY

    await eventually(ran, "the day freed once the killed holder's lease ran out")
    assert outcomes[-1] is Outcome.POSTED
    [part] = digest_posts(slack)  # part 1 only
    assert "n° 1047" in text_of(part) and "n° 1000" not in text_of(part)


async def test_a_killed_forced_run_retried_posts_only_its_missing_parts(jobs, ds: FakeDS, slack: FakeSlack, redis):
    job = await many_demarches_job(jobs, ds, redis)
    day = dt.date(2026, 1, 5)
    killed = await job.store.forced_run(day, OPERATORS)
    await job.store.mark_posted(day, OPERATORS, f"{killed}-0")  # the killed `--force` run had posted part 0
    assert await job.run(day, force=True) is Outcome.POSTED
    assert len(digest_posts(slack)) == 1
    assert await job.run(day, force=True) is Outcome.POSTED  # a new forced run posts it all again
    assert len(digest_posts(slack)) == 3


async def test_the_digest_carries_a_chart_of_the_trend_by_state(jobs, ds: FakeDS, slack: FakeSlack):
    ds.add_demarche(101, "Un", dossiers=40)
    ds.add_demarche(102, "Deux", dossiers=20)
    job = jobs()
    for offset in range(3):  # three days of digests
        ds.now += dt.timedelta(days=1)
        ds.deposit(101, "en_instruction")
        assert await job.run(dt.date(2026, 1, 5) + dt.timedelta(days=offset)) is Outcome.POSTED
    assert len(slack.uploads) == 3
    chart = list(slack.uploads.values())[-1]
    assert chart["channel"] == CHANNEL and chart["data"].startswith(b"\x89PNG") and chart["length"] == len(chart["data"])
    assert "under review from 11 to 13" in chart["alt_txt"] and "by state since 5 January" in chart["alt_txt"]


@pytest.mark.parametrize(("failure", "logged"), [
    ("broken", "Slack said internal_error"),  # Slack refuses the upload: its own reason is logged
    ("hollow", "the text trend stays"),  # an answer the upload cannot use: not a Slack refusal, same outcome
])
async def test_whatever_stops_the_chart_the_digest_goes_out_with_its_text_trend(jobs, ds: FakeDS, slack: FakeSlack, caplog,
                                                                               failure, logged):
    ds.add_demarche(101, "Un", dossiers=10)
    ds.add_demarche(102, "Deux", dossiers=10)
    getattr(slack, failure).add("files.getUploadURLExternal")
    with caplog.at_level(logging.WARNING):
        assert await jobs().run(dt.date(2026, 1, 5)) is Outcome.POSTED
    assert len(digest_posts(slack)) == 1 and slack.uploads == {}
    [line] = [r for r in caplog.records if "chart" in r.getMessage()]
    assert line.getMessage().startswith(f"digest chart not posted to {CHANNEL}") and logged in line.getMessage()
    assert line.exc_info is None


def _dry_run_env(tmp_path, ds: FakeDS, demarches: str) -> dict[str, str]:
    return {"DS_API_URL": ds.url, "DS_API_TOKEN": ds.token, "DIGEST_DEMARCHES": demarches, "DATA_DIR": str(tmp_path),
            "DEFAULT_LANGUAGE": "en", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}


def _dry_run(tmp_path, env: dict[str, str], *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot", "digest", "--dry-run", *flags], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)


def test_a_piped_dry_run_prints_whole_rows_and_the_failures_below(tmp_path, ds: FakeDS):
    title = "Aides 2026 [/] formulaire [link=https://evil.example]clic[/link] \x1b[31mrouge\x1b[0m " + "très long titre " * 6
    ds.add_demarche(101, title, dossiers=42)
    shown = _dry_run(tmp_path, _dry_run_env(tmp_path, ds, "101,102"))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[1].split("\t")[:3] == ["no.", "procedure", "total"]
    row = lines[2].split("\t")
    assert row[:3] == ["101", title.replace("\x1b", ""), "42"]  # whole, markup kept as text, no escape sequence
    assert "\x1b" not in shown.stdout
    assert lines[3].startswith("n° 101 · ⏳ To do: ")  # what needs doing, as the Slack digest says it
    assert lines[4] == "n° 102: there is no démarche with this number"  # below the table, in words


def test_a_table_on_a_narrow_terminal_breaks_no_cell(monkeypatch):
    import io

    from bot.commands.tables import print_table

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    long = "Demande de subvention pour les associations sportives"
    rows = [[101, long, "1234"], [102, "[bold]x[/bold]", "7"]]
    for width, kind in (("200", "table"), ("40", "blocks")):
        monkeypatch.setenv("COLUMNS", width)
        out = Terminal()
        print_table("Dossiers", ["no.", "procedure", "total"], rows, out=out)
        drawn = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())  # as the terminal shows it, without its styles
        assert long in drawn and "1234" in drawn, kind  # every cell whole on one line, never `1234/5`
        assert "[bold]x[/bold]" in drawn  # shown as it came, not read as markup
        if kind == "blocks":
            assert "procedure: " + long in drawn and "total: 1234" in drawn


def test_a_dry_run_within_the_run_window_says_it_reused_counts_and_fresh_counts_again(tmp_path, ds: FakeDS):
    ds.add_demarche(101, "Subvention", dossiers=42)
    env = _dry_run_env(tmp_path, ds, "101")
    first = _dry_run(tmp_path, env)
    asked = len(ds.queries)
    ds.token = "revoked-meanwhile"  # the reused counts need no request at all
    second = _dry_run(tmp_path, env)
    assert second.returncode == 0 and len(ds.queries) == asked
    assert first.stdout.splitlines()[2].split("\t")[2] == second.stdout.splitlines()[2].split("\t")[2] == "42"
    assert not first.stdout.splitlines()[2].endswith(" *") and second.stdout.splitlines()[2].endswith(" *")
    assert "* counts made by another run less than 30 minutes ago, reused rather than made again; --fresh counts afresh." in second.stdout
    fresh = _dry_run(tmp_path, env, "--fresh")
    assert "n° 101: the dossier service does not know the token" in fresh.stdout  # --fresh asked the service: it refused
    ds.token = env["DS_API_TOKEN"]
    again = _dry_run(tmp_path, env, "--fresh")
    assert again.returncode == 0 and "reused" not in again.stdout
    assert len(ds.queries) - asked == 3  # an incremental walk: updated, deleted, pending deleted


def test_the_help_names_every_command_and_chart_goes_with_a_dry_run(capsys):
    from bot.cli import main

    with pytest.raises(SystemExit) as ended:
        main(["--help"])
    assert ended.value.code == 0
    shown = capsys.readouterr().out
    assert "Without a command it serves, as `serve` does" in " ".join(shown.split())
    for command in ("serve", "digest", "check", "shell", "keys"):
        assert f"    {command} " in shown
    with pytest.raises(SystemExit) as refused:
        main(["digest", "--chart", "chart.png"])
    assert refused.value.code == 2 and "--chart and --fresh go with --dry-run" in capsys.readouterr().err


def _series(known_days: int) -> dict[str, list[int | None]]:
    return {state: [None] * (14 - known_days) + [10 * (index + 1) + day for day in range(known_days)]
            for index, state in enumerate(("en_construction", "en_instruction", "accepte", "refuse", "sans_suite"))}


@pytest.mark.parametrize(("known_days", "title"), [(14, "Dossiers by state, last 14 days"), (3, "Dossiers by state since 21 November")])
async def test_the_chart_counts_from_zero_with_its_legend_beside_and_only_the_days_counted(known_days, title):
    from handlers.digest.chart import alt_text, render
    from handlers.digest.plot import figure

    drawn = figure("en", dt.date(2026, 11, 23), _series(known_days))
    drawn.canvas.draw()
    axes = drawn.axes[0]
    assert axes.get_ylim()[0] == 0 and axes.get_ylabel() == "dossiers" and axes.get_title() == title
    assert len(axes.get_xticks()) == known_days and axes.get_xticklabels()[0].get_text() == f"{24 - known_days} Nov"
    legend, plot = axes.get_legend().get_window_extent(), axes.get_window_extent()
    assert legend.x0 >= plot.x1  # beside the plot, never over its lines
    assert (await render("en", dt.date(2026, 11, 23), _series(known_days))).startswith(b"\x89PNG")
    said = alt_text("en", dt.date(2026, 11, 23), _series(known_days))
    assert ("since 21 November" in said) is (known_days == 3) and "under construction from 10 to" in said


async def test_a_forced_run_counts_afresh_within_the_run_window(jobs, ds: FakeDS, slack: FakeSlack):
    ds.add_demarche(101, "Un", dossiers=10)
    ds.add_demarche(102, "Deux", dossiers=5)
    job = jobs()
    day = dt.date(2026, 1, 5)
    await job.run(day)
    ds.deposit(101)  # a minute later: the shared count of the day would still say 10
    assert await job.run(day, force=True) is Outcome.POSTED
    first, forced = (text_of(post) for post in digest_posts(slack))
    assert "*10* dossiers" in first and "*11* dossiers" in forced


async def test_a_public_channel_the_bot_is_not_in_gets_the_chart_too(jobs, ds: FakeDS, slack: FakeSlack):
    """chat:write.public posts the text anywhere public; the chart needs the bot in the channel."""
    ds.add_demarche(101, "Un", dossiers=5)
    ds.add_demarche(102, "Deux", dossiers=5)
    slack.channels[CHANNEL] = {"private": False, "member": False}
    assert await jobs().run(dt.date(2026, 1, 5)) is Outcome.POSTED
    assert slack.joined == [CHANNEL] and [u["channel"] for u in slack.uploads.values()] == [CHANNEL]


async def test_without_the_join_scope_the_text_goes_out_and_the_log_says_why_there_is_no_chart(jobs, ds: FakeDS,
                                                                                              slack: FakeSlack, caplog):
    ds.add_demarche(101, "Un", dossiers=5)
    ds.add_demarche(102, "Deux", dossiers=5)
    slack.channels[CHANNEL] = {"private": False, "member": False}
    slack.scopes.discard("channels:join")  # an app installed before it was asked for
    with caplog.at_level(logging.WARNING):
        assert await jobs().run(dt.date(2026, 1, 5)) is Outcome.POSTED
    assert len(digest_posts(slack)) == 1
    said = [r.getMessage() for r in caplog.records]
    assert f"could not join {CHANNEL} for the digest's chart (Slack said missing_scope)" in said[0]
    assert f"digest chart not posted to {CHANNEL}: Slack said not_in_channel; the text trend stays" in said
