"""`/digest` from any channel, end to end: subscriptions, refusals, the digest now, and one
digest a day per subscribed channel with each démarche counted once for all of them."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from dataclasses import replace

import pytest
from freezegun import freeze_time
from pydantic import SecretStr
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.demo.ds import FakeDS
from bot.serving.scheduler import run_subscriptions
from bot.serving.slack_app import configure_slack_client
from clients.dossiers.digest_store import DigestStore, Outcome
from clients.dossiers.subscriptions import Followed, Subscription, Subscriptions
from clients.inference.service import InferenceService
from clients.redis_keys import key as redis_key
from tests.conftest import Bot, eventually, instant_policy, make_digest_job, text_of
from tests.digest.commands import ALICE, digest, make_job
from tests.fakes.slack import TEAM, FakeSlack
from tests.slack_requests import command_body


async def test_subscribe_list_and_unsubscribe(digest_bot: Bot, ds: FakeDS):
    ds.add_demarche(101, "Subvention", dossiers=5, admins=(ALICE,))
    ds.add_demarche(102, "Permis", dossiers=5, admins=(ALICE,))
    said = await digest(digest_bot, "subscribe 101 102 at 08:30")
    assert "digest of n° 101 and n° 102 every day at 08:30 (Paris time)" in said and "Next one:" in said
    assert "follows n° 101 (set up by <@U0ALICE>) and n° 102 (set up by <@U0ALICE>), every day at 08:30" in await digest(digest_bot, "list")
    assert "no longer follows n° 101" in await digest(digest_bot, "unsubscribe 101")
    said = await digest(digest_bot, "unsubscribe 102")
    assert "gets no digest any more" in said
    assert "gets no digest" in await digest(digest_bot, "list")


async def test_refusals_are_clear(digest_bot: Bot, ds: FakeDS, slack: FakeSlack):
    ds.add_demarche(101, "Subvention", dossiers=5, admins=(ALICE,))
    ds.add_demarche(103, "Secret", dossiers=5, admins=(ALICE,))
    ds.out_of_scope.add(103)
    assert "There is no démarche 999" in await digest(digest_bot, "subscribe 999")
    assert "token cannot read démarche 103" in await digest(digest_bot, "subscribe 103")
    assert "is not an hour" in await digest(digest_bot, "subscribe 101 at 25:00")
    assert "at least one démarche number" in await digest(digest_bot, "subscribe")
    assert "I don't know `frobnicate`" in await digest(digest_bot, "frobnicate")
    slack.channels["G0SECRET"] = {"private": True, "member": False}
    assert "invite me first with `/invite @roombot`" in await digest(digest_bot, "subscribe 101", channel="G0SECRET")
    digest_bot.runtime.digests.config = replace(digest_bot.runtime.digests.config, allowed=frozenset({102}))
    assert "may not be followed from Slack" in await digest(digest_bot, "subscribe 101")
    assert await Subscriptions(digest_bot.runtime.redis).all() == []


def digests_in(slack: FakeSlack, channel: str) -> list[dict]:
    """The digests posted in `channel` (not the announcements of who changed what)."""
    return [post for post in slack.posted(channel) if post.get("text", "").startswith("Dossiers on")]


async def test_digest_now_posts_once_unless_the_same_person_forces_it(digest_bot: Bot, ds: FakeDS, slack: FakeSlack):
    ds.add_demarche(101, "Subvention", dossiers=7, admins=(ALICE,))
    assert "follows no démarche" in await digest(digest_bot, "now")
    await digest(digest_bot, "subscribe 101")
    assert "Today's digest is posted here" in await digest(digest_bot, "now")
    [posted] = digests_in(slack, "C0TEAM")
    assert "Subvention" in text_of(posted)
    assert "already posted here" in await digest(digest_bot, "now")
    assert "Today's digest is posted here" in await digest(digest_bot, "now force")
    assert len(digests_in(slack, "C0TEAM")) == 2
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="en-US")
    body = command_body("now force", "U0BOB", slack.response_url(), command="/digest", channel="C0TEAM")
    assert (await digest_bot.post(body)).status_code == 200
    await digest_bot.runtime.tasks.drain(10)
    assert "Only the person who asked" in text_of(slack.responses[-1]) and len(digests_in(slack, "C0TEAM")) == 2


async def test_each_channel_gets_one_digest_at_its_hour_and_shared_demarches_are_counted_once(
        channel_settings: Settings, redis, ds: FakeDS, slack: FakeSlack, alice):
    ds.add_demarche(101, "Partagée", dossiers=250, admins=(ALICE,))
    ds.add_demarche(102, "Seule", dossiers=10, admins=(ALICE,))
    subscriptions = Subscriptions(redis)
    await subscriptions.save(Subscription("C0EARLY", (Followed(101, "U0ALICE"),), dt.time(8, 0)))
    await subscriptions.save(Subscription("C0LATE", (Followed(101, "U0ALICE"), Followed(102, "U0ALICE")), dt.time(9, 30)))
    clock = {"now": dt.datetime(2026, 1, 5, 7, 10, tzinfo=dt.UTC)}  # 08:10 in Paris: only the early one is due
    jobs = [make_job(channel_settings, redis, ds) for _ in range(2)]  # two bot processes
    stop = asyncio.Event()
    loops = [asyncio.create_task(run_subscriptions(job, stop, now=lambda: clock["now"], poll=0.02)) for job, _ in jobs]

    await eventually(lambda: slack.posted("C0EARLY"), what="the early digest")
    assert slack.posted("C0LATE") == []
    walks_of_101 = sum(1 for q in ds.queries if q["operationName"] == "getDemarche" and q["variables"]["demarcheNumber"] == 101)
    clock["now"] = dt.datetime(2026, 1, 5, 8, 31, tzinfo=dt.UTC)  # 09:31: the late one, within the run window
    await eventually(lambda: slack.posted("C0LATE"), what="the late digest")
    day = dt.date(2026, 1, 5)
    for channel in ("C0EARLY", "C0LATE"):  # once posted, no run can post again
        await eventually(lambda channel=channel: DigestStore(redis).is_posted(day, channel), what=f"{channel} marked posted")
    stop.set()
    await asyncio.gather(*loops)
    assert len(slack.posted("C0EARLY")) == 1 and len(slack.posted("C0LATE")) == 1
    again = sum(1 for q in ds.queries if q["operationName"] == "getDemarche" and q["variables"]["demarcheNumber"] == 101)
    assert walks_of_101 == 3 and again == 3  # 250 dossiers walked once (3 pages), not once per channel
    for _, service in jobs:
        await service.aclose()


async def test_every_word_and_every_refused_demarche_is_reported_in_one_answer(digest_bot: Bot, ds: FakeDS, redis):
    ds.add_demarche(101, "Subvention", dossiers=5, admins=(ALICE,))
    ds.out_of_scope.add(22222)
    said = await digest(digest_bot, "subscribe 22222 101 99999 abc")
    lines = said.splitlines()
    assert "digest of n° 101 every day at 09:00" in lines[0]  # what could be followed is followed, said first
    assert "cannot read démarche 22222" in said and "There is no démarche 99999" in said and "`abc` is not a démarche number." in said
    assert [s.demarches for s in await Subscriptions(redis).all()] == [(101,)]
    said = await digest(digest_bot, "unsubscribe 101 102 x")
    assert "no longer follows n° 101" in said and "does not follow n° 102" in said and "`x` is not a démarche number." in said


async def test_a_mistyped_verb_gets_the_command_it_probably_meant(digest_bot: Bot):
    said = await digest(digest_bot, "subscibe 101 at 08:30")
    assert "I don't know `subscibe 101 at 08:30`. Did you mean `/digest subscribe 101 at 08:30`?" in said
    room = text_of(await digest_bot.reply("nwe restricted"))
    assert "I don't know `nwe restricted`. Did you mean `/room new restricted`?" in room
    assert "Did you mean" not in text_of(await digest_bot.reply("frobnicate"))


async def test_the_operators_digest_goes_out_at_its_hour_while_a_channels_long_walk_runs(
        channel_settings: Settings, redis, ds: FakeDS, slack: FakeSlack, alice):
    """Not one loop behind another: the operator's digest starts at its hour, as urgent (its walk
    may use the whole window of the token's allowance), while a channel's digest is still counting."""
    ds.add_demarche(101, "Celle de l'exploitant", dossiers=50)
    ds.add_demarche(201, "Très grande", dossiers=2000, admins=(ALICE,))  # 20 pages
    ds.slow[201] = 0.15
    settings = channel_settings.model_copy(update={"digest_channel": "C0OPS", "digest_demarches": [101]})
    await Subscriptions(redis).save(Subscription("C0TEAM", (Followed(201, "U0ALICE"),), dt.time(8, 59)))
    clock = {"now": dt.datetime(2026, 1, 5, 7, 59, 30, tzinfo=dt.UTC)}  # 08:59:30 in Paris: the channel's is due
    job, service = make_digest_job(settings, redis, ds, configure_slack_client(AsyncWebClient(token="xoxb-t"), settings),
                                   shared_limiter=True)
    stop = asyncio.Event()
    loop = asyncio.create_task(run_subscriptions(job, stop, now=lambda: clock["now"], poll=0.02))

    def asked(number: int) -> int:
        return sum(1 for q in ds.queries if (q.get("variables") or {}).get("demarcheNumber") == number)

    await eventually(lambda: asked(201) >= 2, what="the channel's walk")
    assert not await redis.exists(redis_key("ds-urgent:{test-token}"))  # a channel's walk is not urgent
    clock["now"] = dt.datetime(2026, 1, 5, 8, 0, 30, tzinfo=dt.UTC)  # 09:00:30: the operator's hour
    await eventually(lambda: digests_in(slack, "C0OPS"), what="the operator's digest")
    assert digests_in(slack, "C0TEAM") == [] and asked(201) < 20  # the long walk is still under way
    assert await redis.exists(redis_key("ds-urgent:{test-token}"))  # the operator's walk was urgent
    await eventually(lambda: digests_in(slack, "C0TEAM"), what="the channel's digest")
    stop.set()
    await loop
    await service.aclose()


HR = "Signalements RH confidentiels"


def asked_for_members(ds: FakeDS) -> int:
    return sum(1 for q in ds.queries if q.get("operationName") == "getDemarcheMembers")


async def test_only_its_administrators_and_instructeurs_may_have_a_demarche_followed(digest_bot: Bot, ds: FakeDS, slack, people):
    ds.add_demarche(666, HR, dossiers=5, admins=("drh@example.gouv.fr",), groups={1: ("RH", ["bob.durand@example.gouv.fr"])})
    said = await digest(digest_bot, "subscribe 666", channel="C0HERS", user=people["mallory"])
    assert "You are neither an administrator of démarche 666 nor an instructeur of its groups" in said
    assert "follows no démarche" in await digest(digest_bot, "now", channel="C0HERS", user=people["mallory"])
    said = await digest(digest_bot, "subscribe 666", channel="D0MAL", user=people["mallory"], channel_name="directmessage")
    assert "Digests go to channels" in said
    assert not any(HR in text_of(post) for post in slack.messages)  # nothing of the démarche reached her
    # an instructeur of one of its groups may, whatever the case of his e-mail on either side
    assert "digest of n° 666" in await digest(digest_bot, "subscribe 666", channel="C0RH", user=people["bob"])
    assert asked_for_members(ds) == 1  # the membership is kept a few minutes: one request for both


async def test_a_channels_digest_is_changed_only_by_who_set_it_up_or_someone_entitled_and_each_change_is_told(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, people):
    ds.add_demarche(101, "Subvention", dossiers=5, admins=(ALICE,), groups={3: ("Paris", ["bob.durand@example.gouv.fr"])})
    ds.add_demarche(666, HR, dossiers=5, admins=("drh@example.gouv.fr",))
    await digest(digest_bot, "subscribe 101 at 09:00")
    [told] = slack.posted("C0TEAM")
    assert text_of(told).startswith("<@U0ALICE> set this channel to get a daily digest of n° 101, at 09:00")
    said = await digest(digest_bot, "subscribe 666 at 03:00", user=people["mallory"])
    assert "neither an administrator of démarche 666" in said and "The hour stays 09:00" in said
    said = await digest(digest_bot, "unsubscribe 101", user=people["mallory"])
    assert "Démarche 101 was set up here by <@U0ALICE>: only they, or an administrator or instructeur" in said
    subscription = await Subscriptions(digest_bot.runtime.redis).get(TEAM, "C0TEAM")
    assert subscription is not None and subscription.demarches == (101,) and subscription.at == dt.time(9, 0)
    assert len(slack.posted("C0TEAM")) == 1  # refusals change nothing, so nothing is announced
    assert "no longer follows n° 101" in await digest(digest_bot, "unsubscribe 101", user=people["bob"])  # an instructeur
    assert slack.posted("C0TEAM")[-1]["text"] == "<@U0BOB> stopped this channel's digest of n° 101 (set up by <@U0ALICE>)."


async def test_the_operators_digest_and_a_channels_own_in_the_same_channel_both_go_out(digest_bot: Bot, ds: FakeDS, slack):
    ds.add_demarche(101, "De l'exploitant", dossiers=5)
    ds.add_demarche(102, "Du canal", dossiers=5, admins=(ALICE,))
    job = digest_bot.runtime.digests
    job.config = replace(job.config, channel="C0OPS", demarches=(101,))
    await digest(digest_bot, "subscribe 102", channel="C0OPS")
    day = dt.datetime.now(job.following.zone).date()
    assert "Today's digest is posted here" in await digest(digest_bot, "now", channel="C0OPS")  # the channel's own
    assert await job.run(day) is Outcome.POSTED  # the operator's, on the same day, in the same channel
    posted = [text_of(post) for post in digests_in(slack, "C0OPS")]
    assert len(posted) == 2 and "Du canal" in posted[0] and "De l'exploitant" in posted[1]


async def test_a_persons_subscriptions_and_digests_on_demand_are_capped(digest_bot: Bot, ds: FakeDS, slack: FakeSlack):
    for number in (101, 102, 103):
        ds.add_demarche(number, f"D{number}", dossiers=3, admins=(ALICE,))
    job = digest_bot.runtime.digests
    job.config = replace(job.config, max_per_person=2)
    said = await digest(digest_bot, "subscribe 101 102 103")
    assert "digest of n° 101 and n° 102 every day" in said and "You already have 2 démarches followed" in said
    answers = [await digest(digest_bot, "now") for _ in range(3)]
    assert "posted here" in answers[0] and "already posted" in answers[1]
    assert "You already asked for 3 digests today" in await digest(digest_bot, "now")


async def test_help_and_list_need_nobodys_profile(digest_bot: Bot, slack: FakeSlack):
    slack.rate_limited["users.info"] = 100  # Slack keeps refusing profiles for now
    assert "`/digest subscribe &lt;number&gt;" in await digest(digest_bot, "help")  # in the default language
    assert "This channel gets no digest" in await digest(digest_bot, "list")
    assert "I couldn't read your Slack profile" in await digest(digest_bot, "subscribe 101")  # that one needs it


@pytest.mark.parametrize(("channel", "reason"), [
    ({"private": False, "member": True, "archived": True}, "the channel is archived"),
    ({"private": False, "member": True, "deleted": True}, "I cannot see the channel (it is private and I am not in it, or it was deleted)"),
    ({"private": True, "member": False}, "I cannot see the channel (it is private and I am not in it"),  # the bot was removed
])
async def test_a_channel_that_refuses_for_good_pauses_its_digest_and_tells_who_set_it_up_once(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, albert, channel, reason):
    from bot.demo.albert import BOOTSTRAP

    async def key() -> SecretStr:
        return SecretStr(BOOTSTRAP)

    ds.add_demarche(101, "Subvention", dossiers=5, admins=(ALICE,))
    await digest(digest_bot, "subscribe 101")
    slack.channels["C0TEAM"] = channel
    job = digest_bot.runtime.digests
    job.inference = InferenceService(albert.url, key, model="albert-small", policy=instant_policy())
    asked = len(ds.queries)
    day = dt.datetime.now(job.following.zone).date()
    assert await job.run(day, subscription=await job.subscriptions.get(TEAM, "C0TEAM")) is Outcome.PAUSED
    assert await job.run(day, subscription=await job.subscriptions.get(TEAM, "C0TEAM")) is Outcome.PAUSED
    assert len(ds.queries) == asked and albert.chats == []  # nothing counted, no AI line, for a channel that cannot take it
    await job.inference.aclose()
    [told] = [m for m in slack.posted("U0ALICE")]
    assert f"The daily digest of n° 101 in <#C0TEAM> is paused: {reason}" in text_of(told)
    later = dt.datetime.combine(day, dt.time(23, 0), tzinfo=job.following.zone)
    assert all(s.channel != "C0TEAM" for _, s in await job.due(later))  # not tried again
    assert f"This digest is paused: {reason}" in await digest(digest_bot, "list")


async def test_what_the_bot_keeps_of_a_demarche_goes_when_nothing_follows_it(digest_bot: Bot, ds: FakeDS, redis):
    ds.add_demarche(101, "Subvention", dossiers=5, admins=(ALICE,))
    await digest(digest_bot, "subscribe 101")
    await digest(digest_bot, "now")
    kept = [redis_key("ds:{101}:states"), redis_key("ds:{101}:meta"), redis_key("ds:{101}:days")]
    assert await redis.exists(*kept) == 3
    assert all(0 < ttl <= 60 * 86400 for ttl in [await redis.ttl(name) for name in kept])  # and would expire unused anyway
    await digest(digest_bot, "unsubscribe 101")
    assert await redis.exists(*kept) == 0


async def test_a_group_digest_is_for_that_groups_instructeurs_and_counts_its_dossiers(digest_bot: Bot, ds: FakeDS, slack: FakeSlack):
    ds.add_demarche(101, "Subvention", groups={1: ("Nord", [ALICE]), 2: ("Sud", ["sud@example.gouv.fr"])})
    for _ in range(3):
        ds.deposit(101, group=1)
    for _ in range(5):
        ds.deposit(101, "en_instruction", group=2)
    slack.add_user("U0SUD", "sud@example.gouv.fr", locale="fr-FR")
    # Alice instructs group 1 only: group 2 is refused to her, and to the Sud instructeur group 1 is
    refused = await digest(digest_bot, "subscribe 101 group 2")
    assert "only the démarche's administrators and that group's instructeurs" in refused and "group Sud" in refused
    assert "seuls les administrateurs" in await digest(digest_bot, "subscribe 101 groupe 1", channel="C0SUD", user="U0SUD")
    assert "no groupe instructeur n° 7" in await digest(digest_bot, "subscribe 101 group 7")
    assert "is not a group number" in await digest(digest_bot, "subscribe 101 group north")
    said = await digest(digest_bot, "subscribe 101 group 1")
    assert "digest of n° 101 every day" in said
    assert any("n° 101 (group Nord)" in text_of(m) for m in slack.posted("C0TEAM"))  # the channel hears which group
    assert "follows n° 101 (group Nord) (set up by <@U0ALICE>)" in await digest(digest_bot, "list")

    await digest(digest_bot, "now")
    await eventually(lambda: slack.posted("C0TEAM") and any("Subvention" in text_of(m) for m in slack.posted("C0TEAM")))
    [posted] = [m for m in slack.posted("C0TEAM") if "Subvention" in text_of(m)]
    words = text_of(posted)
    assert "*Subvention* · n° 101 · group Nord" in words and "*3* dossiers" in words  # group 2's five are not counted
    assert "under review 0" in words


def dossier_links_shared(urls: list[str], user: str, event_id: str) -> str:
    from tests.slack_requests import event_body

    return event_body({"type": "link_shared", "channel": "C0TEAM", "user": user, "message_ts": "1700000000.000300",
                       "unfurl_id": f"C0TEAM.{event_id}", "source": "conversations_history",
                       "links": [{"domain": "127.0.0.1", "url": url} for url in urls]}, event_id=event_id)


async def test_a_dossier_link_is_previewed_for_an_entitled_person_and_plain_for_others(digest_bot: Bot, ds: FakeDS,
                                                                                        slack: FakeSlack):
    from tests.slack_requests import signed_headers

    ds.add_demarche(101, "Subvention <vélo>", groups={1: ("Nord", [ALICE])})
    dossier = ds.deposit(101, labels=("Urgent",))
    ds.change(101, dossier.number, "en_instruction")
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="fr-FR")
    base = ds.url.removesuffix("/api/v2/graphql")
    link, short, wrong = (f"{base}/procedures/101/dossiers/{dossier.number}", f"{base}/dossiers/{dossier.number}/messagerie",
                          f"{base}/procedures/999/dossiers/{dossier.number}")

    async def unfurls(urls: list[str], user: str, event_id: str) -> dict:
        body = dossier_links_shared(urls, user, event_id)
        assert (await digest_bot.post(body, signed_headers(body))).status_code == 200
        await digest_bot.runtime.tasks.drain(10)
        call = slack.called("chat.unfurl")[-1]
        return call.args["unfurls"] if isinstance(call.args["unfurls"], dict) else json.loads(call.args["unfurls"])

    shown = await unfurls([link, short, wrong], "U0ALICE", "EvLinks1")
    words = text_of(shown[link])
    assert f"Dossier n° {dossier.number}" in words and "*Subvention &lt;vélo&gt;* · n° 101" in words
    assert "under review since" in words and "deposited" in words and "group Nord" in words and "labels: Urgent" in words
    assert text_of(shown[short]) == text_of(shown[link])  # the usager's address of the same dossier
    assert text_of(shown[wrong]).strip() == f"*Dossier n° {dossier.number}*"  # a démarche that is not the dossier's
    assert "usager" not in json.dumps(shown) and all("usager" not in q["query"] for q in ds.queries)
    asked = sum(1 for q in ds.queries if q.get("operationName") == "getDossier")
    assert asked == 1  # one request for the dossier, whatever the links

    bob = await unfurls([link], "U0BOB", "EvLinks2")  # not an administrator, not an instructeur
    assert text_of(bob[link]).strip() == f"*Dossier n° {dossier.number}*"
    assert sum(1 for q in ds.queries if q.get("operationName") == "getDossier") == 1  # kept a few minutes

    many = await unfurls([f"{base}/dossiers/{n}" for n in range(1, 9)], "U0ALICE", "EvLinks3")
    assert len(many) == 5  # five previews a message at most


class Polls:
    """The digest job as the scheduler sees it, counting its polls: a test waits for polls, not for time."""

    def __init__(self, job) -> None:
        self.job, self.count = job, 0

    async def due(self, now: dt.datetime):
        self.count += 1
        return await self.job.due(now)

    async def run(self, day: dt.date, *, subscription=None, force: bool = False):
        return await self.job.run(day, subscription=subscription, force=force)


async def test_a_digest_set_in_the_evening_for_the_morning_starts_the_next_morning_as_said(digest_bot: Bot, ds: FakeDS,
                                                                                           slack: FakeSlack):
    ds.add_demarche(101, "Subvention", dossiers=5, admins=(ALICE,))
    job = digest_bot.runtime.digests
    clock = {"now": dt.datetime(2026, 1, 5, 18, 34, tzinfo=dt.UTC)}  # Monday 19:34 in Paris
    with freeze_time(clock["now"], real_asyncio=True) as frozen:
        said = await digest(digest_bot, "subscribe 101 at 08:30")
        assert "Next one: Tuesday, January 6, 2026 at 08:30." in said
        polls = Polls(job)
        stop = asyncio.Event()
        loop = asyncio.create_task(run_subscriptions(polls, stop, now=lambda: clock["now"], poll=0.01))
        clock["now"] += dt.timedelta(minutes=4)  # 19:38: the scheduler does as it said
        frozen.move_to(clock["now"])
        seen = polls.count
        await eventually(lambda: polls.count >= seen + 5, what="five polls")
        assert digests_in(slack, "C0TEAM") == []
        assert "Next digest: Tuesday, January 6, 2026 at 08:30." in await digest(digest_bot, "list")

        clock["now"] = dt.datetime(2026, 1, 6, 7, 31, tzinfo=dt.UTC)  # Tuesday 08:31
        frozen.move_to(clock["now"])
        await eventually(lambda: digests_in(slack, "C0TEAM"), what="Tuesday's digest")
        await eventually(lambda: DigestStore(digest_bot.runtime.redis).is_posted(dt.date(2026, 1, 6), f"{TEAM}:C0TEAM"),
                         what="Tuesday's digest marked posted")
        assert "Next digest: Wednesday, January 7, 2026 at 08:30." in await digest(digest_bot, "list")
        stop.set()
        await loop

        frozen.move_to(dt.datetime(2026, 1, 6, 9, 0, tzinfo=dt.UTC))  # 10:00: moved to 08:00, today's went out already
        assert "Next one: Wednesday, January 7, 2026 at 08:00." in await digest(digest_bot, "subscribe 101 at 08:00")
        assert [day for day, _ in await job.due(dt.datetime(2026, 1, 6, 9, 0, tzinfo=dt.UTC))] == []


async def test_a_digest_due_and_not_posted_yet_is_said_to_go_out_in_a_moment(digest_bot: Bot, ds: FakeDS):
    ds.add_demarche(101, "Subvention", dossiers=5, admins=(ALICE,))
    ds.add_demarche(102, "Permis", dossiers=5, admins=(ALICE,))
    await Subscriptions(digest_bot.runtime.redis).save(Subscription("C0TEAM", (Followed(101, "U0ALICE"),), dt.time(8, 30), team=TEAM))
    with freeze_time(dt.datetime(2026, 1, 6, 9, 0, tzinfo=dt.UTC), real_asyncio=True):  # 10:00, today's not posted yet
        assert "Next one: in a moment, its hour has come." in await digest(digest_bot, "subscribe 102")


async def test_an_hour_typed_as_the_room_command_takes_it_sets_the_digest(digest_bot: Bot, ds: FakeDS, slack: FakeSlack):
    ds.add_demarche(101, "Subvention", dossiers=5, admins=(ALICE,))
    slack.users["U0ALICE"]["locale"] = "fr-FR"
    said = await digest(digest_bot, "subscribe 101 à 8h30")
    assert "chaque jour à 8 h 30" in said and "n'est pas une heure" not in said
    said = await digest(digest_bot, "subscribe 101 at 8:30pm")
    subscription = await Subscriptions(digest_bot.runtime.redis).get(TEAM, "C0TEAM")
    assert subscription is not None and subscription.at == dt.time(20, 30)
