"""The dossiers wing says what a channel's digest of a day holds with no Slack at all: the lines
and failures, the chart's series, whose rights still hold — plain data a second chat surface (or
the command line) words as it likes."""

from __future__ import annotations

import datetime as dt

from bot.config import Settings
from bot.demo.ds import FakeDS
from clients.dossiers.subscriptions import Followed, Subscription, Subscriptions
from domain.dossiers.rights import UNREAD
from tests.conftest import make_digest_job

TEAM = "T0WING"
BOB = "bob@example.gouv.fr"


async def test_a_days_content_is_data_without_slack(digest_settings: Settings, redis, ds: FakeDS):
    ds.add_demarche(101, "Un", dossiers=7, admins=(BOB,))
    ds.add_demarche(102, "Deux", dossiers=0, groups={2: ("Nord", [BOB])})
    job, service = make_digest_job(digest_settings, redis, ds, None)  # no Slack client at all
    sub = Subscription("C0WING", (Followed(101, "U0BOB"), Followed(102, "U0BOB", group=2), Followed(999, "U0BOB")),
                       dt.time(9, 0), team=TEAM)
    content = await job.digests.content(dt.date(2026, 1, 5), sub, job.operator, instructions="unused without a service")
    one, two = content.digest.lines
    assert (one.counts.number, one.counts.total, one.group) == (101, 7, None)
    assert (two.counts.number, two.group, two.group_number) == (102, "Nord", 2)  # a group's share, named by its label
    assert [(f.number, f.reason) for f in content.digest.failures] == [(999, "not_found")]
    assert content.summary is None  # no inference service configured
    assert content.trend is not None and sum(v or 0 for v in (s[-1] for s in content.trend.values())) == 7  # 101's alone
    await service.aclose()


async def test_rights_are_read_through_whatever_says_who_a_person_is(digest_settings: Settings, redis, ds: FakeDS):
    ds.add_demarche(101, "Un", dossiers=1, admins=(BOB,))
    ds.add_demarche(102, "Deux", dossiers=1, admins=(BOB,))
    job, service = make_digest_job(digest_settings, redis, ds, None)
    sub = Subscription("C0WING", (Followed(101, "U0BOB"), Followed(102, "U0EVE")), dt.time(9, 0), team=TEAM)
    await Subscriptions(redis).save(sub)
    people = {"U0BOB": BOB, "U0EVE": "eve@example.gouv.fr"}

    async def emails(user: str) -> str | None:
        return people.get(user)

    rights = await job.digests.rights(sub, job.operator, emails)
    assert [f.by for f in rights.newly_lapsed] == ["U0EVE"]  # Eve never worked on 102
    assert [f.lapsed for f in (await Subscriptions(redis).get(TEAM, "C0WING")).follows] == [False, True]  # saved

    async def unread(user: str) -> str | None:
        return UNREAD

    again = await job.digests.rights(rights.subscription, job.operator, unread)  # the chat cannot say now: as it was
    assert again.newly_lapsed == [] and [f.lapsed for f in again.subscription.follows] == [False, True]
    await service.aclose()
