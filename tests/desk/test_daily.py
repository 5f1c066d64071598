"""`/dossier daily 08:30`: each morning at the person's hour, in their zone, what awaits them in the
démarches they watch, with the cards' buttons; nothing on a day with nothing; `off`; one DM a day a
person when two processes run the scheduler."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from zoneinfo import ZoneInfo

import pytest

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from clients.redis_keys import key as redis_key
from handlers.desk.daily import DailyDMs
from tests.conftest import Bot, text_of
from tests.desk.conftest import BOB, dossier
from tests.digest.commands import ALICE
from tests.fakes.slack import TEAM, FakeSlack


def dailies(slack: FakeSlack, user: str) -> list[dict]:
    return [m for m in slack.posted(user) if "What awaits you today" in text_of(m) or "Ce qui vous attend aujourd'hui" in text_of(m)]


def at(day: dt.date, hour: int, minute: int, zone: str) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=ZoneInfo(zone)).astimezone(dt.UTC)


async def run_due(daily: DailyDMs, now: dt.datetime) -> list[str]:
    """What the scheduler would start at `now`, run to its end: the jobs' names."""
    jobs = await daily.due(now)
    await asyncio.gather(*(job() for _, job in jobs))
    return [name for name, _ in jobs]


async def late_dossier(bot: Bot, ds: FakeDS) -> int:
    job = bot.runtime.digests
    assert job is not None
    late = ds.deposit(101, "en_instruction")  # under review since early January: late by now
    account = await job.account(TEAM)
    assert account is not None
    await job.counting.compute(dt.datetime.now(dt.UTC).date(), account=account, demarches=[101])
    return late.number


async def test_the_daily_dm_comes_at_each_persons_hour_in_their_zone(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                      demarche: FakeDemarche) -> None:
    late = await late_dossier(digest_bot, ds)
    slack.users["U0BOB"]["tz"] = "America/New_York"
    for user in ("U0ALICE", "U0BOB"):
        await dossier(digest_bot, "watch 101", user=user)
    assert "Every day at 08:30 (your time)" in text_of(await dossier(digest_bot, "daily 08:30"))
    assert "Chaque jour à 8 h 30 (votre heure)" in text_of(await dossier(digest_bot, "daily 8h30", user="U0BOB"))
    assert "Every day at 08:30" in text_of(await dossier(digest_bot, "daily"))
    daily = digest_bot.runtime.daily
    assert daily is not None
    day = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=2)
    assert await run_due(daily, at(day, 8, 29, "Europe/Paris")) == []
    assert await run_due(daily, at(day, 8, 30, "Europe/Paris")) == ["daily DM T0TEAM/U0ALICE"]  # New York: 02:30
    [alices] = dailies(slack, "U0ALICE")
    assert "Subvention &lt;vélo&gt;* (n° 101): 1 waiting too long" in text_of(alices)
    assert [e["value"] for b in alices["blocks"] for e in b.get("elements", []) if e.get("action_id", "").startswith("dossier_open")] \
        == [str(late)]
    assert dailies(slack, "U0BOB") == []
    assert await run_due(daily, at(day, 8, 30, "America/New_York")) == ["daily DM T0TEAM/U0BOB"]
    [bobs] = dailies(slack, "U0BOB")
    assert "Ce qui vous attend aujourd'hui" in text_of(bobs) and f"dossier_open_{late}" in json.dumps(bobs)
    assert await run_due(daily, at(day, 18, 0, "America/New_York")) == []  # once a day
    assert len(dailies(slack, "U0ALICE")) == 1
    assert await run_due(daily, at(day + dt.timedelta(days=1), 8, 30, "Europe/Paris")) == ["daily DM T0TEAM/U0ALICE"]
    assert len(dailies(slack, "U0ALICE")) == 2


async def test_nothing_on_a_day_with_nothing_and_off(digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    await late_dossier(digest_bot, ds)  # in group 1: nothing of it is Sud's
    await dossier(digest_bot, "watch 101", user="U0SUD")
    await dossier(digest_bot, "daily 07:00", user="U0SUD")
    daily = digest_bot.runtime.daily
    assert daily is not None
    day = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=2)
    assert await run_due(daily, at(day, 7, 0, "Europe/Paris")) == ["daily DM T0TEAM/U0SUD"]
    assert dailies(slack, "U0SUD") == []
    assert await run_due(daily, at(day, 9, 0, "Europe/Paris")) == []  # the day is done all the same

    await dossier(digest_bot, "watch 101")
    await dossier(digest_bot, "daily 07:00")
    assert "No more daily message" in text_of(await dossier(digest_bot, "daily off"))
    assert "You have no daily message" in text_of(await dossier(digest_bot, "daily"))
    assert await run_due(daily, at(day + dt.timedelta(days=1), 7, 0, "Europe/Paris")) == ["daily DM T0TEAM/U0SUD"]
    assert dailies(slack, "U0ALICE") == []
    assert "can't read `25:00` as an hour" in text_of(await dossier(digest_bot, "daily 25:00"))


@pytest.fixture
async def alices_daily(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> DailyDMs:
    """Alice watches démarche 101, which has a late dossier, and asked for her daily DM at 08:30."""
    await late_dossier(digest_bot, ds)
    await dossier(digest_bot, "watch 101")
    await dossier(digest_bot, "daily 08:30")
    daily = digest_bot.runtime.daily
    assert daily is not None
    return daily


async def test_one_dm_a_day_when_two_processes_run_the_scheduler(alices_daily: DailyDMs, slack: FakeSlack) -> None:
    daily = alices_daily
    other = DailyDMs(daily.services)  # a second process: its own scheduler, the same Redis
    now = at(dt.datetime.now(dt.UTC).date() + dt.timedelta(days=2), 9, 0, "Europe/Paris")
    assert len(await asyncio.gather(run_due(daily, now), run_due(other, now))) == 2
    assert len(dailies(slack, "U0ALICE")) == 1


async def test_a_process_that_died_sending_is_replaced_after_its_lease(digest_bot: Bot, alices_daily: DailyDMs, slack: FakeSlack) -> None:
    daily = alices_daily
    day = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=2)
    hours = daily.services.hours
    assert await hours.daily_lease(TEAM, "U0ALICE", day)  # a process took the day's lease, then died
    await run_due(daily, at(day, 8, 30, "Europe/Paris"))
    assert dailies(slack, "U0ALICE") == []
    await digest_bot.runtime.redis.delete(redis_key("desk-daily-lease", TEAM, "U0ALICE", day.isoformat()))  # its minutes passed
    await run_due(daily, at(day, 8, 40, "Europe/Paris"))
    assert len(dailies(slack, "U0ALICE")) == 1


def opened(message: dict) -> list[str]:
    """The dossiers a DM's card buttons open, in order."""
    return [e["value"] for b in message["blocks"] for e in b.get("elements", []) if e.get("action_id", "").startswith("dossier_open")]


async def test_followed_by_nobody_and_corrections_received(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                           demarche: FakeDemarche) -> None:
    """Read when the DM is made, in one request a démarche, of the person's groups only: open
    dossiers nobody follows; corrections the applicant submitted in the last day (not one withdrawn
    by an instructeur, not one submitted the day before)."""
    ds.now = dt.datetime.now(dt.UTC) - dt.timedelta(days=3)
    old = ds.deposit(101)
    old.followers.add(BOB)
    ds.acts.write(demarche, old, BOB, "Il manque la pièce 2", correction="incomplete")
    ds.resolve_correction(101, old.number)  # three days ago: not today's
    ds.now = dt.datetime.now(dt.UTC) - dt.timedelta(hours=3)
    nobodys = ds.deposit(101)
    followed = ds.deposit(101, "en_instruction")
    followed.followers.add(BOB)
    ds.deposit(101, "accepte")  # decided: nobody needs to follow it
    souths = ds.deposit(101, group=2)  # Sud's group: not Alice's nor Bob's
    corrected = ds.deposit(101)
    corrected.followers.add(ALICE)
    ds.acts.write(demarche, corrected, ALICE, "Le RIB est illisible", correction="incorrect")
    ds.resolve_correction(101, corrected.number)
    withdrawn = ds.deposit(101, "en_instruction")
    withdrawn.followers.add(BOB)
    asked = ds.acts.write(demarche, withdrawn, BOB, "Pièce 3 ?", correction="incomplete")
    asked.resolved = ds.now  # withdrawn by Bob, as dossierAnnulerDemandeCorrection does: the answers did not change
    for user in ("U0ALICE", "U0BOB", "U0SUD"):
        await dossier(digest_bot, "watch 101", user=user)
        await dossier(digest_bot, "daily 08:30", user=user)
    daily = digest_bot.runtime.daily
    assert daily is not None
    day = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=2)
    before = len(ds.queries)
    await run_due(daily, at(day, 8, 30, "Europe/Paris"))
    assert [q["operationName"] for q in ds.queries[before:]].count("getOpenDossiers") == 3  # one a DM a démarche
    [alices] = dailies(slack, "U0ALICE")
    assert "Subvention &lt;vélo&gt;* (n° 101): 1 corrected by the applicant since yesterday · 1 followed by nobody" \
        in text_of(alices)
    assert opened(alices) == [str(corrected.number), str(nobodys.number)]
    [bobs] = dailies(slack, "U0BOB")
    assert "1 corrigé par l'usager depuis hier · 1 que personne ne suit" in text_of(bobs)
    [suds] = dailies(slack, "U0SUD")
    assert "1 followed by nobody" in text_of(suds) and "corrected" not in text_of(suds)
    assert opened(suds) == [str(souths.number)]


async def test_past_a_page_of_open_dossiers_the_count_is_a_floor(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                  demarche: FakeDemarche) -> None:
    """One request a démarche reads the first 100 dossiers of each open state: past them, "at least"."""
    first = [ds.deposit(101) for _ in range(101)]
    await dossier(digest_bot, "watch 101")
    await dossier(digest_bot, "daily 08:30")
    daily = digest_bot.runtime.daily
    assert daily is not None
    await run_due(daily, at(dt.datetime.now(dt.UTC).date() + dt.timedelta(days=2), 8, 30, "Europe/Paris"))
    [alices] = dailies(slack, "U0ALICE")
    assert "at least 100 followed by nobody" in text_of(alices)
    assert opened(alices) == [str(d.number) for d in first[:5]]  # the oldest first
