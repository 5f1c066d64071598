"""Every click answered, every act told truly: a claim names the person and the request, whoever
loses a race with another person is told who won, an act whose outcome the service did not give is
read again (never "nothing was done, try again"), and a failure before anything was sent leaves the
retry free. Run against the dossier fake failing before and after acting as the real one can."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
import redis.asyncio as aioredis

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from tests.conftest import Bot, eventually, text_of
from tests.desk.conftest import BOB, acts, buttons, click, dossier, submit
from tests.digest.commands import ALICE
from tests.fakes.slack import FakeSlack
from tests.slack_requests import action_body, signed_headers, view_submission_body


def told(slack: FakeSlack, user: str) -> list[str]:
    """What `user` read: beside their card (its response_url) and in their DM with the app."""
    return [text_of(r) for r in slack.responses if r.get("_url") == f"card-{user}"] + [text_of(m) for m in slack.posted(user)]


def mutations(ds: FakeDS, name: str) -> int:
    return [done for done, _ in acts(ds)].count(name)


async def test_back_to_construction_is_answered_and_done_after_a_confirm(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                         demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    button = buttons(await dossier(digest_bot, str(found.number)))["dossier_reopen"]
    assert "back to construction" in text_of({"blocks": [button["confirm"]]})  # Slack asks before it acts
    await click(digest_bot, "dossier_reopen", button["value"])
    assert mutations(ds, "dossierRepasserEnConstruction") == 1 and found.state == "en_construction"
    assert any(f"You sent dossier n° {found.number} back to construction" in line for line in told(slack, "U0ALICE"))


async def test_a_second_person_following_follows_and_every_click_of_one_person_acts(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    found = ds.deposit(101)
    await click(digest_bot, "dossier_follow", str(found.number))
    await click(digest_bot, "dossier_follow", str(found.number), user="U0BOB")  # seconds after Alice
    assert mutations(ds, "dossierBasculeSuivi") == 2 and found.followers == {ALICE, BOB}
    assert any(f"Vous suivez le dossier n° {found.number}" in line for line in told(slack, "U0BOB"))
    await click(digest_bot, "dossier_unfollow", str(found.number))
    await click(digest_bot, "dossier_follow", str(found.number))  # Follow → Unfollow → Follow within a minute
    assert mutations(ds, "dossierBasculeSuivi") == 4 and ALICE in found.followers


async def test_whoever_comes_second_is_told_who_acted(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                     demarche: FakeDemarche) -> None:
    found = ds.deposit(101)
    await click(digest_bot, "dossier_start", str(found.number))
    await click(digest_bot, "dossier_start", str(found.number), user="U0BOB")  # Bob's card is older than Alice's act
    assert mutations(ds, "dossierPasserEnInstruction") == 1
    assert any(f"<@U0ALICE> a déjà passé le dossier n° {found.number} en instruction" in line for line in told(slack, "U0BOB"))


async def test_two_people_starting_together_one_acts_the_other_hears_who(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                        demarche: FakeDemarche) -> None:
    found = ds.deposit(101)
    ds.latency = 0.2  # each request takes a while: the two clicks overlap
    bodies = [action_body("dossier_start", str(found.number), user, slack.response_url(f"card-{user}")) for user in ("U0ALICE", "U0BOB")]
    answers = await asyncio.gather(*(digest_bot.post(body) for body in bodies))
    assert [a.status_code for a in answers] == [200, 200]
    await digest_bot.runtime.tasks.drain(20)
    assert found.state == "en_instruction"
    winner = "U0ALICE" if ALICE in found.followers else "U0BOB"
    loser = "U0BOB" if winner == "U0ALICE" else "U0ALICE"
    assert any(f"<@{winner}>" in line for line in told(slack, loser)), told(slack, loser)
    assert any("started the review" in line or "passé le dossier" in line for line in told(slack, winner))


async def test_a_failure_after_the_act_is_told_as_done_never_as_nothing_done(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                             demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    ds.acts.failures = ["500-after"]  # the message is written, then the service answers 500
    await submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "Merci pour le RIB.", view_id="V0FAIL")
    assert [m.body for m in found.messages] == ["Merci pour le RIB."]
    heard = told(slack, "U0ALICE")
    assert any(f"Your message on dossier n° {found.number} was sent" in line for line in heard)
    assert not any("nothing was done" in line or "Try again" in line for line in heard), heard


@pytest.mark.parametrize(("state", "action", "said"), [
    ("en_instruction", "dossier_follow", "You follow dossier"),
    ("accepte", "dossier_archive", "You archived dossier"),
    ("en_construction", "dossier_cancel_correction", "You cancelled the correction request"),
])
async def test_a_failure_after_an_act_that_changes_no_state_is_read_again_as_done(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche, state: str, action: str, said: str) -> None:
    found = ds.deposit(101, state)
    if action == "dossier_cancel_correction":
        ds.acts.write(demarche, found, ALICE, "Il manque la pièce 2", correction="incomplete")
    ds.acts.failures = ["500-after"]  # done, then the service answers 500: the dossier read again shows it
    await click(digest_bot, action, str(found.number))
    heard = told(slack, "U0ALICE")
    assert any(said in line and str(found.number) in line for line in heard), heard
    assert not any("nothing was done" in line or "did not say" in line for line in heard), heard


async def test_a_late_answer_is_read_again_done_or_said_unknown_with_where_to_look(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    account = await digest_bot.runtime.digests.account("T0TEAM")
    assert account is not None and account.desk is not None
    account.desk._policy = dataclasses.replace(account.desk._policy, budget=0.5)  # the act's budget, shortened
    ds.acts.late = 1.5

    done = ds.deposit(101)
    ds.acts.failures = ["late-after"]  # acted, then answered after the budget
    await click(digest_bot, "dossier_start", str(done.number))
    assert done.state == "en_instruction"
    assert any(f"You started the review of dossier n° {done.number}" in line for line in told(slack, "U0ALICE"))

    slow = ds.deposit(101)
    ds.acts.failures = ["late-before"]  # still working when the bot gives up; acts afterwards
    slack.responses.clear()
    slack.messages.clear()
    await click(digest_bot, "dossier_start", str(slow.number))
    heard = told(slack, "U0ALICE")
    assert any("did not say whether your act" in line and f"/procedures/101/dossiers/{slow.number}" in line for line in heard), heard
    assert not any("nothing was done" in line or "Try again" in line for line in heard), heard
    await eventually(lambda: slow.state == "en_instruction", "the late act")
    assert mutations(ds, "dossierPasserEnInstruction") == 2


async def test_a_failure_before_acting_frees_the_retry(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                      demarche: FakeDemarche) -> None:
    found = ds.deposit(101)
    ds.acts.failures = ["500-before"]
    await click(digest_bot, "dossier_start", str(found.number))
    assert found.state == "en_construction"
    assert any("shows it was not done. You may do it again" in line for line in told(slack, "U0ALICE"))
    await click(digest_bot, "dossier_start", str(found.number))  # the retry the person was told to make
    assert found.state == "en_instruction" and mutations(ds, "dossierPasserEnInstruction") == 1


async def time_passes(redis: aioredis.Redis, seconds: int) -> None:
    """What Redis holds `seconds` later: each key that would have expired by then is gone."""
    async for name in redis.scan_iter():
        ttl = await redis.ttl(name)
        if 0 <= ttl <= seconds:
            await redis.delete(name)
        elif ttl > seconds:
            await redis.expire(name, ttl - seconds)


async def test_a_replayed_message_submission_sends_one_message_while_its_signature_holds(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, redis: aioredis.Redis, demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    values = {"words": {"words": {"type": "plain_text_input", "value": "Merci de joindre le RIB."}},
              "correction": {"correction": {"type": "static_select", "selected_option": {"value": "incomplete"}}}}
    body = view_submission_body("dossier_message_modal", values, f"MESSAGE:{found.number}", "U0ALICE", view_id="V0REPLAY")
    headers = signed_headers(body)
    assert (await digest_bot.post(body, headers)).status_code == 200
    await digest_bot.runtime.tasks.drain(20)
    assert found.state == "en_construction"  # the correction moved the dossier's state
    assert (await digest_bot.post(body, headers)).status_code == 200  # the same signed delivery, again
    await digest_bot.runtime.tasks.drain(20)
    await time_passes(redis, 125)  # and 125 s later: Slack's signature holds 300 s
    assert (await digest_bot.post(body, headers)).status_code == 200
    await digest_bot.runtime.tasks.drain(20)
    assert mutations(ds, "dossierEnvoyerMessage") == 1 and len(found.messages) == 1


async def test_a_crowd_following_one_dossier_each_follows_and_each_hears_it(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                           demarche: FakeDemarche) -> None:
    found = ds.deposit(101)
    crowd = [f"U0P{n:02d}" for n in range(15)]
    for user in crowd:
        slack.add_user(user, f"{user.lower()}@example.gouv.fr", locale="en-US")
        demarche.groups[0].instructeurs.append(f"{user.lower()}@example.gouv.fr")
    bodies = [action_body("dossier_follow", str(found.number), user, slack.response_url(f"card-{user}")) for user in crowd]
    answers = await asyncio.gather(*(digest_bot.post(body) for body in bodies))
    assert {a.status_code for a in answers} == {200}
    await digest_bot.runtime.tasks.drain(30)
    assert mutations(ds, "dossierBasculeSuivi") == 15 and len(found.followers) == 15
    assert all(any(f"You follow dossier n° {found.number}" in line for line in told(slack, user)) for user in crowd)


async def test_an_act_refused_unread_says_nothing_was_done_and_frees_the_retry(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                              demarche: FakeDemarche) -> None:
    found = ds.deposit(101)
    ds.acts.failures = ["429"] * 12  # the mutation is refused unread until the act's budget is spent
    await click(digest_bot, "dossier_start", str(found.number))
    assert found.state == "en_construction" and ds.acts.failures == []
    assert any("did not answer in time: nothing was done. Try again in a minute" in line for line in told(slack, "U0ALICE"))
    await click(digest_bot, "dossier_start", str(found.number))  # the retry the person was told to make
    assert found.state == "en_instruction" and mutations(ds, "dossierPasserEnInstruction") == 1
