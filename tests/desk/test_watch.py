"""`/dossier watch`: what concerns a person comes in one DM a round — deposits and applicants'
messages in their groups, state changes by someone else on what they follow — once, read with one
request a démarche when nothing changed, by one process; Home's "My dossiers"; the digest's
"Show them"."""

from __future__ import annotations

import asyncio
import datetime as dt
import json

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from clients.dossiers.subscriptions import Followed, Subscription, Subscriptions
from clients.dossiers.watch import Unanswered, Watches
from clients.redis_keys import key as redis_key
from tests.conftest import Bot, text_of
from tests.desk.conftest import BOB, click, dossier
from tests.digest.commands import ALICE
from tests.fakes.slack import TEAM, FakeSlack
from tests.slack_requests import home_opened, send_event


def news(slack: FakeSlack, user: str) -> list[dict]:
    return [m for m in slack.posted(user) if "What concerns you" in text_of(m) or "Ce qui vous concerne" in text_of(m)]


async def a_round(bot: Bot, now: dt.datetime | None = None) -> int:
    watching = bot.runtime.watching
    assert watching is not None
    await bot.runtime.redis.delete(redis_key("desk-round"))  # the lease of the round before: as if its time had passed
    return await watching.round(now or dt.datetime.now(dt.UTC))


async def test_watch_tells_each_person_what_is_theirs_once(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                           demarche: FakeDemarche) -> None:
    followed = ds.deposit(101, "en_construction")
    followed.followers.add(BOB)
    assert "You are watching n° 101" in text_of(await dossier(digest_bot, "watch 101"))
    assert "Vous surveillez n° 101" in text_of(await dossier(digest_bot, "watch 101", user="U0BOB"))
    assert "Not watched: n° 101" in text_of(await dossier(digest_bot, "watch 101", user="U0MAL"))
    await a_round(digest_bot)  # the first round only marks where reading starts
    assert news(slack, "U0ALICE") == []

    ds.now = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=5)
    deposited = ds.deposit(101)  # group 1: Alice's and Bob's
    ds.deposit(101, group=2)  # Sud's: theirs, not Alice's
    ds.acts.write(demarche, followed, followed.usager, "Voici mon justificatif")
    ds.acts.write(demarche, followed, "contact@demarche.numerique.gouv.fr", "<p>copie</p>")  # the service's copy: not news
    await click(digest_bot, "dossier_start", str(followed.number))  # Alice acts: Bob follows it, he hears it
    sent = await a_round(digest_bot)
    [alices] = news(slack, "U0ALICE")
    [bobs] = news(slack, "U0BOB")
    assert sent == 2
    assert f"Dossier n° {deposited.number} was deposited" in text_of(alices)
    assert f"The applicant wrote on dossier n° {followed.number}" in text_of(alices)
    assert "is now under review" not in text_of(alices)  # her own act
    assert f"Le dossier n° {followed.number} est désormais en instruction" in text_of(bobs)
    assert "dossier_open" in json.dumps(alices) and len(text_of(alices).split(f"n° {deposited.number}")) >= 2
    await a_round(digest_bot)  # read again with its overlap: nothing new, nobody told twice
    assert len(news(slack, "U0ALICE")) == 1 and len(news(slack, "U0BOB")) == 1


async def test_a_round_with_nothing_new_costs_one_request_a_demarche(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    for number in range(102, 112):
        ds.add_demarche(number, f"D{number}", groups={1: ("G", [ALICE])})
    await dossier(digest_bot, "watch " + " ".join(str(n) for n in range(101, 112)))
    await a_round(digest_bot)
    before = len(ds.queries)
    await a_round(digest_bot)
    assert len(ds.queries) - before == 11 and all(q["operationName"] == "getDossierChanges" for q in ds.queries[before:])
    # the deleted dossiers are read in that same request
    assert all("deletedDossiers" in q["query"] and q["variables"]["withDeleted"] for q in ds.queries[before:])


async def test_one_round_across_processes(digest_bot: Bot, demarche: FakeDemarche) -> None:
    await dossier(digest_bot, "watch 101")
    watching = digest_bot.runtime.watching
    assert watching is not None
    now = dt.datetime.now(dt.UTC)
    due = await asyncio.gather(*(watching.due(now) for _ in range(4)))  # four processes asking at once
    assert sum(len(jobs) for jobs in due) == 1


async def test_rights_that_end_stop_the_news(digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    await dossier(digest_bot, "watch 101")
    await a_round(digest_bot)
    demarche.groups[0].instructeurs.remove(ALICE)
    await digest_bot.runtime.redis.delete(redis_key("ds-members:101"))  # the kept member list lapses
    ds.now = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=5)
    ds.deposit(101)
    await a_round(digest_bot)
    assert news(slack, "U0ALICE") == []


async def test_a_follower_whose_group_rights_ended_hears_no_state_news(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                      demarche: FakeDemarche) -> None:
    followed = ds.deposit(101, "en_construction")
    followed.followers.add(BOB)  # the service keeps the follow when the group loses him
    await dossier(digest_bot, "watch 101", user="U0BOB")
    await a_round(digest_bot)
    demarche.groups[0].instructeurs.remove(BOB)
    await digest_bot.runtime.redis.delete(redis_key("ds-members:101"))  # the kept member list lapses
    ds.now = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=5)
    await click(digest_bot, "dossier_start", str(followed.number))  # Alice starts the review
    await a_round(digest_bot)
    assert news(slack, "U0BOB") == []


async def test_a_deactivated_slack_account_hears_nothing(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                         demarche: FakeDemarche) -> None:
    await dossier(digest_bot, "watch 101")  # her profile is read, and kept a few minutes
    await dossier(digest_bot, "watch 101", user="U0BOB")
    await a_round(digest_bot)
    slack.users["U0ALICE"]["deleted"] = True  # deactivated by the workspace's administrators since
    ds.now = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=5)
    ds.deposit(101)  # in the group of both
    await a_round(digest_bot)
    assert news(slack, "U0ALICE") == [] and len(news(slack, "U0BOB")) == 1
    assert await Watches(digest_bot.runtime.redis).of(TEAM, "U0ALICE") is None  # her watch is dropped


async def test_watch_off_and_the_workspaces_own_demarches(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    assert "I know no démarche you work on" in text_of(await dossier(digest_bot, "watch"))
    await Subscriptions(digest_bot.runtime.redis).save(Subscription("C0TEAM", (Followed(101, "U0ADA"),), dt.time(9), team=TEAM))
    assert "You are watching n° 101" in text_of(await dossier(digest_bot, "watch"))
    assert "You no longer watch any démarche" in text_of(await dossier(digest_bot, "watch off"))
    assert "You were not watching" in text_of(await dossier(digest_bot, "watch off"))


async def test_my_dossiers_on_home_and_the_digests_show_them(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                              demarche: FakeDemarche) -> None:
    job = digest_bot.runtime.digests
    assert job is not None
    late = ds.deposit(101, "en_instruction")  # under review since early January: late by now
    ds.now = dt.datetime.now(dt.UTC)
    ds.deposit(101, "en_construction", group=2)  # deposited just now
    account = await job.account(TEAM)
    assert account is not None
    await job.counting.compute(ds.now.date(), account=account, demarches=[101])  # the digest keeps each dossier's record
    await dossier(digest_bot, "watch 101")
    await send_event(digest_bot, home_opened("U0ALICE"))
    [call] = slack.called("views.publish")
    home = call.args["view"] if isinstance(call.args["view"], dict) else json.loads(call.args["view"])
    assert "My dossiers" in text_of(home) and "Subvention &lt;vélo&gt;* (n° 101): 1 waiting too long" in text_of(home)
    opened = [e["value"] for blk in home["blocks"] for e in blk.get("elements", []) if e.get("action_id", "").startswith("dossier_open")]
    assert opened == [str(late.number)]

    shown = await click(digest_bot, "digest_show_needs", "101:")
    assert [e["value"] for blk in shown[-1]["blocks"] for e in blk.get("elements", [])] == [str(late.number)]
    assert "Waiting too long (1)" in text_of(shown[-1])
    refused = await click(digest_bot, "digest_show_needs", "101:", user="U0MAL")
    assert "Only the administrators and instructeurs of démarche n° 101" in text_of(refused[-1])
    assert "dossier_open" not in json.dumps(refused[-1])


async def test_my_dossiers_counts_the_applicants_awaiting_an_answer_in_the_persons_groups_only(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    job = digest_bot.runtime.digests
    assert job is not None
    ds.now = dt.datetime.now(dt.UTC)  # deposited just now: none waits too long
    ours, theirs = ds.deposit(101, "en_construction"), ds.deposit(101, "en_construction", group=2)
    account = await job.account(TEAM)
    assert account is not None
    await job.counting.compute(ds.now.date(), account=account, demarches=[101])
    await Watches(digest_bot.runtime.redis).note_unanswered(account.name, 101, [  # as the watch's polls saw them
        Unanswered(ours.number, 1, waiting=True), Unanswered(theirs.number, 2, waiting=True)])
    await dossier(digest_bot, "watch 101")
    await send_event(digest_bot, home_opened("U0ALICE"))  # Alice instructs group 1 only
    [call] = slack.called("views.publish")
    home = call.args["view"] if isinstance(call.args["view"], dict) else json.loads(call.args["view"])
    assert "Subvention &lt;vélo&gt;* (n° 101): 1 awaiting an answer" in text_of(home)
    opened = [e["value"] for blk in home["blocks"] for e in blk.get("elements", []) if e.get("action_id", "").startswith("dossier_open")]
    assert opened == [str(ours.number)]


async def test_a_watch_takes_only_its_share_of_the_allowance_and_waits_for_the_next_round(
        ds: FakeDS, redis, demarche: FakeDemarche) -> None:
    from pydantic import SecretStr

    from clients.dossiers.desk import DossierDesk
    from clients.dossiers.rate_limit import RateLimiter
    from clients.dossiers.service import DossierService
    from clients.dossiers.watch import Watches
    from domain.dossiers.news import read_changes
    from tests.conftest import instant_policy

    clock = [600.0]
    limiter = RateLimiter(100, redis=redis, name="shared", clock=lambda: clock[0])
    service = DossierService(ds.url, SecretStr(ds.token), limiter=limiter, policy=instant_policy())
    account = type("Account", (), {"name": "shared", "desk": DossierDesk(service)})()
    watches, since = Watches(redis), dt.datetime(2026, 1, 5, tzinfo=dt.UTC)
    await watches.read_until("shared", 101, since)
    for _ in range(30):
        await limiter.wait()  # a digest's walk took 30 of this minute's 98
    try:
        assert (await read_changes(watches, account, 101, dt.datetime.now(dt.UTC))).changes == []
        assert await watches.reading("shared", 101) == (since, None) and ds.queries == []  # not sent, read from there next round
        clock[0] += 60  # the next minute
        ds.now = since + dt.timedelta(hours=1)
        ds.deposit(101)
        changes = (await read_changes(watches, account, 101, dt.datetime.now(dt.UTC))).changes
        assert [change.kind for change in changes] == ["deposited"]
    finally:
        await service.aclose()


async def test_where_reading_stood_before_the_hash_tag_is_moved_and_read_on(redis) -> None:
    """A Redis upgraded from the names without a hash tag (`desk-since:<token>:<démarche>`, in two
    slots of a Cluster): the next round goes on from the `since` and cursor found there, moved
    under the new names, not from now (which would lose what changed across the upgrade)."""
    from clients.dossiers.watch import KEPT_SECONDS

    since = dt.datetime(2026, 11, 2, 8, 30, tzinfo=dt.UTC)
    await redis.set(redis_key("desk-since", "shared", "101"), since.isoformat(), ex=KEPT_SECONDS)
    await redis.set(redis_key("desk-after", "shared", "101"), "cursor-500", ex=KEPT_SECONDS)
    watches = Watches(redis)
    assert await watches.reading("shared", 101) == (since, "cursor-500")
    moved = [redis_key("desk-after", "{shared:101}"), redis_key("desk-since", "{shared:101}")]
    assert sorted(await redis.keys(redis_key("desk-*"))) == moved  # the old names gone: found once
    await watches.read_on("shared", 101, "cursor-1000")  # the backlog goes on, from the same since
    assert await watches.reading("shared", 101) == (since, "cursor-1000")


async def test_a_deposit_across_the_upgrade_is_told_at_the_first_round_after_it(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                                demarche: FakeDemarche) -> None:
    """Were the old names not read, the first round after the upgrade would only mark where reading
    starts, and this deposit would never be told."""
    await dossier(digest_bot, "watch 101")
    last = dt.datetime.now(dt.UTC).replace(microsecond=0)  # the last round before the upgrade, under the old name
    await digest_bot.runtime.redis.set(redis_key("desk-since", "test-token", "101"), last.isoformat())  # the test bot's token
    ds.now = last + dt.timedelta(seconds=5)
    deposited = ds.deposit(101)
    await a_round(digest_bot, last + dt.timedelta(minutes=5))
    [alices] = news(slack, "U0ALICE")
    assert f"Dossier n° {deposited.number} was deposited" in text_of(alices)
