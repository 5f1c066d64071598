"""Rights that end: a channel's digest stops showing a démarche once whoever set it up no longer
works on it on the dossier service; the channel is told once; someone entitled takes it over."""

from __future__ import annotations

import datetime as dt

from bot.demo.ds import FakeDS
from clients.dossiers.subscriptions import Subscriptions
from clients.redis_keys import key
from tests.conftest import Bot, text_of
from tests.digest.commands import ALICE, digest
from tests.fakes.slack import TEAM, FakeSlack

BOB = "bob.durand@example.gouv.fr"


def digests_posted(slack: FakeSlack, channel: str) -> list[dict]:
    return [m for m in slack.posted(channel) if "Dossiers on" in text_of(m)]


async def membership_lapses(bot: Bot, number: int) -> None:
    """The few minutes the bot believes a démarche's member list are over."""
    await bot.runtime.redis.delete(key("ds-members", str(number)))


async def test_a_setter_removed_from_the_group_no_longer_gets_the_figures(digest_bot: Bot, ds: FakeDS, slack: FakeSlack, people):
    demarche = ds.add_demarche(101, "Subvention", dossiers=5, admins=(ALICE,), groups={1: ("Paris", [BOB])})
    assert "digest of n° 101" in await digest(digest_bot, "subscribe 101 group 1", user=people["bob"])
    assert "posted here" in await digest(digest_bot, "now", user=people["bob"])
    assert len(digests_posted(slack, "C0TEAM")) == 1

    demarche.groups[0].instructeurs.remove(BOB)  # removed from the group on the service
    await membership_lapses(digest_bot, 101)
    said = await digest(digest_bot, "now force", user=people["bob"])
    assert "Nothing was posted: whoever set up this channel's digest no longer works on its démarches" in said
    assert len(digests_posted(slack, "C0TEAM")) == 1  # nothing more of it
    [told] = [m for m in slack.posted("C0TEAM") if "no longer shows" in text_of(m)]
    assert told["text"] == ("The digest here no longer shows n° 101: <@U0BOB>, who set it up, no longer works on it on the "
                            "dossier service. One of its administrators or instructeurs can take it over with "
                            "`/digest subscribe 101`.\nNothing is posted here until then.")
    await digest(digest_bot, "now", user=people["bob"])  # asked again: the channel is not told twice
    assert len([m for m in slack.posted("C0TEAM") if "no longer shows" in text_of(m)]) == 1

    said = await digest(digest_bot, "subscribe 101 at 06:00", user=people["bob"])  # nor may he move the hour
    assert "The hour stays 09:00" in said
    subscription = await Subscriptions(digest_bot.runtime.redis).get(TEAM, "C0TEAM")
    assert subscription is not None and subscription.at == dt.time(9, 0) and subscription.follows[0].lapsed
    assert "lapsed: its setter no longer works on it" in await digest(digest_bot, "list", user=people["bob"])

    # the administrator takes it over: it is posted again, set up by her
    assert "digest of n° 101" in await digest(digest_bot, "subscribe 101 group 1")
    job = digest_bot.runtime.digests
    assert job is not None
    day = dt.datetime.now(job.following.zone).date()
    assert (await job.run(day, subscription=await job.subscriptions.get(TEAM, "C0TEAM"), force=True)).value == "posted"
    assert len(digests_posted(slack, "C0TEAM")) == 2
    assert "set up by <@U0ALICE>" in await digest(digest_bot, "list")


async def test_the_daily_run_checks_the_setter_too(digest_bot: Bot, ds: FakeDS, slack: FakeSlack, people):
    demarche = ds.add_demarche(101, "Subvention", dossiers=5, admins=(ALICE,), groups={1: ("Paris", [BOB])})
    ds.add_demarche(102, "Permis", dossiers=5, admins=(ALICE,))
    await digest(digest_bot, "subscribe 101", user=people["bob"])
    await digest(digest_bot, "subscribe 102")
    demarche.groups[0].instructeurs.remove(BOB)
    await membership_lapses(digest_bot, 101)
    job = digest_bot.runtime.digests
    assert job is not None
    day = dt.datetime.now(job.following.zone).date()
    subscription = await job.subscriptions.get(TEAM, "C0TEAM")
    assert (await job.run(day, subscription=subscription)).value == "posted"
    [posted] = digests_posted(slack, "C0TEAM")
    assert "Permis" in text_of(posted) and "Subvention" not in text_of(posted)  # only what Alice still works on

    demarche.groups[0].instructeurs.append(BOB)  # his rights came back: so does the démarche
    await membership_lapses(digest_bot, 101)
    assert (await job.run(day, subscription=await job.subscriptions.get(TEAM, "C0TEAM"), force=True)).value == "posted"
    assert "Subvention" in text_of(digests_posted(slack, "C0TEAM")[-1])
