"""What needs doing, over a simulated week with the clock frozen: dossiers waiting too long,
decisions since the last digest, and "silence vaut accord / rejet" dates — read by the walks the
digest makes anyway (no request per dossier), shown in Slack and by `--dry-run` alike."""

from __future__ import annotations

import datetime as dt

from freezegun import freeze_time

from bot.demo.ds import FakeDS
from clients.dossiers.digest_store import Outcome
from tests.conftest import text_of
from tests.digest.conftest import CHANNEL
from tests.fakes.slack import FakeSlack

MONDAY = dt.datetime(2026, 3, 2, 8, 0, tzinfo=dt.UTC)


def deposit(ds: FakeDS, at: dt.datetime, state: str = "en_construction", **extra) -> int:
    ds.now = at - dt.timedelta(seconds=1)  # the fake's clock moves a second per deposit
    return ds.deposit(101, state, **extra).number


async def run_at(job, ds: FakeDS, when: dt.datetime) -> Outcome:
    """The digest of `when`'s day, counted at `when` (the dossier fake's clock is the counter's)."""
    ds.now = when
    return await job.run(when.date())


def to_do(slack: FakeSlack) -> str:
    [line] = [line for line in text_of(slack.posted(CHANNEL)[-1]).splitlines() if line.startswith("⏳")]
    return line


async def test_lateness_decisions_and_deadlines_over_a_week(jobs, ds: FakeDS, slack: FakeSlack):
    ds.add_demarche(101, "Aides")
    ds.add_demarche(102, "Autre", dossiers=0)
    for days_ago in (10, 12, 30):  # waiting too long, the oldest for 30 days
        deposit(ds, MONDAY - dt.timedelta(days=days_ago))
    recent = [deposit(ds, MONDAY - dt.timedelta(days=2)) for _ in range(2)]
    reviewed = deposit(ds, MONDAY - dt.timedelta(days=40))
    ds.now = MONDAY - dt.timedelta(days=20)
    ds.change(101, reviewed, "en_instruction")  # in review for 20 days
    deposit(ds, MONDAY - dt.timedelta(days=1), "en_instruction", sva=MONDAY.date() + dt.timedelta(days=3))  # due soon
    deposit(ds, MONDAY - dt.timedelta(days=1), "en_instruction", sva=MONDAY.date() - dt.timedelta(days=1))  # past due
    job = jobs()
    with freeze_time(MONDAY, real_asyncio=True) as clock:
        assert await run_at(job, ds, MONDAY) is Outcome.POSTED
        first = to_do(slack)
        assert "3 under construction for over 7 days (oldest: 30 days)" in first
        assert "1 under review for over 7 days (oldest: 20 days)" in first
        assert "silence-means-consent decisions: 1 due within 7 days, 1 past due" in first
        assert "decided" not in first  # no digest before this one

        clock.tick(dt.timedelta(days=1))  # Tuesday: two accepted, one refused during the day
        for number, decision in ((recent[0], "accepte"), (recent[1], "accepte"), (reviewed, "refuse")):
            ds.now = MONDAY + dt.timedelta(hours=20)
            ds.change(101, number, decision)
        requests_before = len(ds.queries)
        assert await run_at(job, ds, MONDAY + dt.timedelta(days=1)) is Outcome.POSTED
        second = to_do(slack)
        assert "decided since the last digest: 2 accepted, 1 refused" in second
        assert "under review for over" not in second  # the one late in review was decided
        ds_requests = len(ds.queries) - requests_before
        assert ds_requests <= 8  # the incremental walks only, nothing per dossier

        clock.tick(dt.timedelta(days=1))  # Wednesday: nothing decided since Tuesday's digest
        await run_at(job, ds, MONDAY + dt.timedelta(days=2))
        assert "decided" not in to_do(slack)

    with freeze_time(MONDAY + dt.timedelta(days=7), real_asyncio=True):  # a week on, past the SVA date too
        await run_at(job, ds, MONDAY + dt.timedelta(days=7))
        week = to_do(slack)
        assert "3 under construction for over 7 days (oldest: 37 days)" in week
        assert "silence-means-consent decisions: 0 due within 7 days, 2 past due" in week
    assert "⏳" not in text_of(slack.posted(CHANNEL)[-1]).split("Autre")[1]  # an empty démarche has nothing to do
