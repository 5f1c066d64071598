"""Every kind of news the watch tells (issue 43), against the stand-in as the service keeps it: who
hears (in the dossier's group, following it where the kind's default level is "followed"), who does
not (another group, the one who did it, a member not following it); and the people Slack says are
gone: their watch is dropped, nothing is tried again."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.demo.ds import FakeDS
from bot.demo.ds_acts import group_id
from bot.demo.ds_data import FakeDemarche, FakeDossier
from clients.dossiers.news_kinds import Kind
from tests.conftest import Bot, text_of
from tests.desk.conftest import BOB, click, dossier
from tests.desk.test_edits import picked, submit, window
from tests.desk.test_watch import a_round, news
from tests.digest.commands import ALICE
from tests.fakes.slack import TEAM, FakeSlack

WATCHERS = ("U0ALICE", "U0BOB", "U0SUD")


def watches(bot: Bot):
    from clients.dossiers.watch import Watches

    return Watches(bot.runtime.redis)


def told(slack: FakeSlack, user: str) -> str:
    return "\n".join(text_of(message) for message in news(slack, user))


@pytest.fixture
async def followed(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> FakeDossier:
    """A dossier of group 1 (Alice and Bob) that Bob follows, deposited after the watch began and
    seen once (the watch remembers its group and labels); Alice, Bob and Sud (group 2) watch."""
    for user in WATCHERS:
        await dossier(digest_bot, "watch 101", user=user)
    await a_round(digest_bot)  # where reading starts
    ds.now = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=5)
    deposited = ds.deposit(101)
    deposited.followers.add(BOB)
    await a_round(digest_bot)
    digest_bot.slack.messages.clear()
    return deposited


async def test_the_applicants_and_the_experts_news_go_to_its_followers(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                      demarche: FakeDemarche, followed: FakeDossier) -> None:
    n = followed.number
    ds.modify(101, n)
    ds.annotate(101, n)
    ds.answer_avis(101, n, "expert@example.fr")
    await a_round(digest_bot)
    bobs = told(slack, "U0BOB")
    assert f"L'usager a modifié ses réponses sur le dossier n° {n}" in bobs
    assert f"Les annotations privées du dossier n° {n} ont été modifiées" in bobs
    assert f"Un expert a rendu son avis sur le dossier n° {n}" in bobs
    assert told(slack, "U0ALICE") == ""  # in the group, not following it: "followed" is the service's default
    assert told(slack, "U0SUD") == ""  # another group


async def test_each_persons_level_decides(digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche,
                                          followed: FakeDossier) -> None:
    """Alice, not following the dossier, hears its changes at `all`; Bob, following it, hears nothing at `off`."""
    await dossier(digest_bot, "watch 101 modified all")
    await dossier(digest_bot, "watch 101 modified off", user="U0BOB")
    await dossier(digest_bot, "watch 101 deposits off", user="U0BOB")
    slack.messages.clear()
    ds.modify(101, followed.number)
    ds.deposit(101)
    await a_round(digest_bot)
    assert f"The applicant changed their answers on dossier n° {followed.number}" in told(slack, "U0ALICE")
    assert told(slack, "U0BOB") == ""
    assert told(slack, "U0SUD") == ""  # `all` is for the dossiers of one's groups only


async def test_a_correction_asked_then_submitted(digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche,
                                                 followed: FakeDossier) -> None:
    n = followed.number
    followed.followers.add(ALICE)
    ds.acts.write(demarche, followed, ALICE, "Il manque la pièce 2", correction="incomplete")  # Alice asks it
    await a_round(digest_bot)
    assert f"Une correction a été demandée à l'usager du dossier n° {n}" in told(slack, "U0BOB")
    assert told(slack, "U0ALICE") == ""  # she asked it
    slack.messages.clear()
    ds.resolve_correction(101, n)
    await a_round(digest_bot)
    assert f"The correction asked on dossier n° {n} is resolved" in told(slack, "U0ALICE")
    assert f"La correction demandée sur le dossier n° {n} est résolue" in told(slack, "U0BOB")
    assert told(slack, "U0SUD") == ""


async def test_a_dossier_sent_to_another_group_is_told_to_both(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                               demarche: FakeDemarche, followed: FakeDossier) -> None:
    n = followed.number
    ds.reroute(101, n, 2)
    await a_round(digest_bot)
    assert f"Dossier n° {n} was sent to your group, from group n° 1" in told(slack, "U0SUD")
    assert f"Dossier n° {n} left your group for group n° 2" in told(slack, "U0ALICE")
    assert f"Le dossier n° {n} a quitté votre groupe pour le groupe n° 2" in told(slack, "U0BOB")
    slack.messages.clear()
    ds.deposit(101)  # the next round reads the moved dossier again in its overlap: not told twice
    await a_round(digest_bot)
    assert "n° 2" not in told(slack, "U0SUD") and "left your group" not in told(slack, "U0ALICE")


async def test_what_the_bot_did_as_someone_is_not_told_to_them(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                demarche: FakeDemarche, followed: FakeDossier) -> None:
    """The service does not say who moved a dossier or changed its annotations: when the bot did it
    as Alice (the desk's acts note it), she is not told; Bob is."""

    n = followed.number
    followed.followers.add(ALICE)
    now = dt.datetime.now(dt.UTC)
    await watches(digest_bot).did(101, n, Kind.GROUP, ALICE, now)
    await watches(digest_bot).did(101, n, Kind.ANNOTATIONS, ALICE, now)
    ds.annotate(101, n)
    await a_round(digest_bot)
    assert told(slack, "U0ALICE") == ""
    assert f"Les annotations privées du dossier n° {n}" in told(slack, "U0BOB")
    slack.messages.clear()
    ds.reroute(101, n, 2)
    await a_round(digest_bot)
    assert told(slack, "U0ALICE") == ""
    assert f"Le dossier n° {n} a quitté votre groupe" in told(slack, "U0BOB")
    assert f"Dossier n° {n} was sent to your group" in told(slack, "U0SUD")


async def test_labels_are_seen_when_the_dossier_next_changes(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                             demarche: FakeDemarche, followed: FakeDossier) -> None:
    n = followed.number
    followed.updated -= dt.timedelta(minutes=10)  # last touched long ago, out of the next read's overlap
    ds.label(101, n, "Urgent <1>")  # a label does not touch the dossier: updatedSince does not find it
    await a_round(digest_bot)
    assert told(slack, "U0BOB") == ""
    ds.acts.write(demarche, followed, followed.usager, "Une question")
    await a_round(digest_bot)
    bobs = told(slack, "U0BOB")
    assert f"Les étiquettes du dossier n° {n} ont changé, désormais : Urgent &lt;1&gt;" in bobs
    assert f"L'usager a écrit sur le dossier n° {n}" in bobs
    assert told(slack, "U0SUD") == "" and told(slack, "U0ALICE") == ""


async def test_expiring_is_told_once_and_deleted_to_whom_it_concerned(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                      demarche: FakeDemarche, followed: FakeDossier) -> None:
    n = followed.number
    far = ds.deposit(101)
    far.followers.add(BOB)
    ds.expire_on(101, far.number, dt.datetime.now(dt.UTC) + dt.timedelta(days=60))  # outside the notice
    ds.expire_on(101, n, dt.datetime.now(dt.UTC) + dt.timedelta(days=10))
    await a_round(digest_bot)
    bobs = told(slack, "U0BOB")
    assert f"Le dossier n° {n} arrive à expiration le" in bobs and f"n° {far.number} arrive" not in bobs
    slack.messages.clear()
    ds.acts.write(demarche, followed, followed.usager, "Encore moi")  # seen again, the same expiry
    await a_round(digest_bot)
    assert "expiration" not in told(slack, "U0BOB")
    slack.messages.clear()
    ds.delete(101, n)
    await a_round(digest_bot)
    assert f"Le dossier n° {n} a été supprimé" in told(slack, "U0BOB")
    assert told(slack, "U0SUD") == "" and told(slack, "U0ALICE") == ""


async def test_a_person_gone_from_the_workspace_has_their_watch_dropped(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                        demarche: FakeDemarche, followed: FakeDossier) -> None:
    slack.remove_user("U0BOB")
    ds.modify(101, followed.number)
    await a_round(digest_bot)
    assert news(slack, "U0BOB") == []
    assert await watches(digest_bot).of(TEAM, "U0BOB") is None
    assert await watches(digest_bot).of(TEAM, "U0ALICE") == [101]


async def test_a_dm_slack_refuses_for_good_drops_the_watch(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                           demarche: FakeDemarche, followed: FakeDossier) -> None:
    ds.modify(101, followed.number)
    slack.dm_refusals["U0BOB"] = "user_disabled"  # deactivated just after the bot read his profile
    await a_round(digest_bot)
    assert news(slack, "U0BOB") == [] and ("chat.postMessage", "U0BOB") in [(c.method, c.args.get("channel")) for c in slack.calls]
    assert await watches(digest_bot).of(TEAM, "U0BOB") is None
    del slack.dm_refusals["U0BOB"]
    ds.modify(101, followed.number)
    await a_round(digest_bot)
    assert news(slack, "U0BOB") == []  # not tried again


async def test_a_dm_slack_refuses_for_now_is_held_and_sent_once_next_round(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                          demarche: FakeDemarche, followed: FakeDossier) -> None:
    """Slack refuses a DM for now (rate limited, its own error): what it told is held again, with
    what comes meanwhile, and a round after sends it all in one DM, each item once; the watch stays."""
    n = followed.number
    ds.modify(101, n)
    slack.dm_refusals["U0BOB"] = "ratelimited"
    await a_round(digest_bot)
    assert news(slack, "U0BOB") == [] and ("chat.postMessage", "U0BOB") in [(c.method, c.args.get("channel")) for c in slack.calls]
    slack.dm_refusals["U0BOB"] = "internal_error"
    ds.annotate(101, n)
    await a_round(digest_bot)  # the held item and the new one, refused again: both held again
    assert news(slack, "U0BOB") == []
    del slack.dm_refusals["U0BOB"]
    await a_round(digest_bot)  # nothing new in the service: what was held goes
    [bobs] = news(slack, "U0BOB")
    assert text_of(bobs).count(f"L'usager a modifié ses réponses sur le dossier n° {n}") == 1
    assert text_of(bobs).count(f"Les annotations privées du dossier n° {n} ont été modifiées") == 1
    await a_round(digest_bot)
    assert len(news(slack, "U0BOB")) == 1
    assert await watches(digest_bot).of(TEAM, "U0BOB") == [101]


async def test_a_dossier_sent_elsewhere_from_the_card_is_not_told_to_who_sent_it(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                                 demarche: FakeDemarche, followed: FakeDossier) -> None:
    """The card's acts note who acted (the service does not say who re-routes): Alice sends the
    dossier she follows to Sud from its card; the next round tells Bob and Sud, not her."""
    n = followed.number
    followed.followers.add(ALICE)
    await dossier(digest_bot, str(n))
    await click(digest_bot, "dossier_regroup", str(n))
    await submit(digest_bot, window(slack), picked("group", group_id(101, 2), many=False))
    assert followed.group == 2
    slack.messages.clear()
    await a_round(digest_bot)
    assert f"Dossier n° {n} was sent to your group" in told(slack, "U0SUD")
    assert f"Le dossier n° {n} a quitté votre groupe" in told(slack, "U0BOB")
    assert told(slack, "U0ALICE") == ""
