"""Acting on a dossier from its card, as oneself: the instructeur id read again at each act, once
whatever the retries, the card updated in place, the service's refusals in words, a record."""

from __future__ import annotations

import asyncio
import io
import json
import logging

import pytest

from bot import logs
from bot.demo.ds import FakeDS
from bot.demo.ds_acts import CONTACT
from bot.demo.ds_data import FakeDemarche
from clients.dossiers.desk import typed_id
from tests.conftest import Bot, text_of
from tests.desk.conftest import SUD, acts, buttons, click, dossier, submit
from tests.digest.commands import ALICE
from tests.fakes.slack import FakeSlack
from tests.slack_requests import action_body


def dms(slack: FakeSlack, user: str = "U0ALICE") -> list[str]:
    return [text_of(m) for m in slack.posted(user)]


def heard(slack: FakeSlack, user: str = "U0ALICE") -> list[str]:
    """Everything the person was told: beside their card, or by DM when the card is out of reach."""
    return [text_of(r) for r in slack.responses] + dms(slack, user)


async def test_start_review_acts_as_the_person_and_replaces_the_card(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                     demarche: FakeDemarche) -> None:
    found = ds.deposit(101)
    await dossier(digest_bot, str(found.number))
    posted = await click(digest_bot, "dossier_start", str(found.number))
    [(name, given)] = acts(ds)
    assert name == "dossierPasserEnInstruction" and given["instructeurId"] == ds.acts.instructeur_id(ALICE)
    assert found.state == "en_instruction" and "alice.martin@example.gouv.fr" in found.followers  # the service's side effect
    [card] = posted
    assert card["replace_original"] is True and "under review since" in text_of(card)
    assert {e["action_id"] for b in card["blocks"] for e in b.get("elements", []) if e.get("type") == "button"} >= {"dossier_accept"}
    [confirmed] = dms(slack)
    assert f"You started the review of dossier n° {found.number}" in confirmed and f"/procedures/101/dossiers/{found.number}" in confirmed


async def test_the_card_an_act_leaves_shows_the_act_as_the_persons_own(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                       demarche: FakeDemarche) -> None:
    """The card after an act is built from the act's answer, not read again, as the instructeur the
    act was done as: who started the review follows it, Follow and Unfollow say so, a message sent is
    theirs to delete."""
    found = ds.deposit(101)
    [started] = await click(digest_bot, "dossier_start", str(found.number))
    assert "you follow it" in text_of(started) and "dossier_unfollow" in buttons(started)
    [unfollowed] = await click(digest_bot, "dossier_unfollow", str(found.number))
    assert "you do not follow it" in text_of(unfollowed) and "dossier_follow" in buttons(unfollowed)
    [followed] = await click(digest_bot, "dossier_follow", str(found.number))
    assert "you follow it" in text_of(followed) and "dossier_unfollow" in buttons(followed)
    await click(digest_bot, "dossier_message", buttons(followed)["dossier_message"]["value"])
    await submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "Merci pour le RIB.")
    assert acts(ds)[-1][0] == "dossierEnvoyerMessage" and "dossier_delete_message" in buttons(slack.responses[-1])


async def test_decisions_take_their_motivation_and_say_the_applicant_is_emailed(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                                demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    await dossier(digest_bot, str(found.number))
    await click(digest_bot, "dossier_refuse", str(found.number))
    [opened] = slack.called("views.open")
    view = opened.args["view"] if isinstance(opened.args["view"], dict) else json.loads(opened.args["view"])
    assert view["callback_id"] == "dossier_decision" and "e-mailed" in text_of(view)
    assert view["private_metadata"] == f"REFUSE:{found.number}"
    empty = await submit(digest_bot, "dossier_decision", f"REFUSE:{found.number}", "")
    assert empty["response_action"] == "errors" and acts(ds) == []  # the service requires a motivation
    await submit(digest_bot, "dossier_decision", f"REFUSE:{found.number}", "Pièces manquantes depuis trois mois")
    [(name, given)] = acts(ds)
    assert name == "dossierRefuser" and given["motivation"] == "Pièces manquantes depuis trois mois"
    assert found.state == "refuse" and found.messages[-1].email == CONTACT
    card = slack.responses[-1]
    assert card["replace_original"] is True and "refused since" in text_of(card)


async def test_a_message_and_a_correction(digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    reply = await dossier(digest_bot, str(found.number))
    value = next(e["value"] for b in reply["blocks"] for e in b.get("elements", []) if e.get("action_id") == "dossier_message")
    await click(digest_bot, "dossier_message", value)
    await submit(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "Merci de joindre le RIB.", correction="incomplete")
    [(name, given)] = acts(ds)
    assert name == "dossierEnvoyerMessage" and given["correction"] == "incomplete"
    assert found.messages[-1].email == ALICE and found.state == "en_construction" and found.pending_correction
    assert any("Your message on dossier" in line for line in dms(slack))


async def test_a_double_click_a_replayed_window_and_two_processes_send_one_mutation(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    found = ds.deposit(101)
    body = action_body("dossier_start", str(found.number), "U0ALICE", slack.response_url("card"))
    answers = await asyncio.gather(*(digest_bot.post(body) for _ in range(5)))
    assert {a.status_code for a in answers} == {200}
    await digest_bot.runtime.tasks.drain(20)
    assert [name for name, _ in acts(ds)] == ["dossierPasserEnInstruction"]
    decided = ds.deposit(101, "en_instruction")
    await asyncio.gather(*(submit(digest_bot, "dossier_decision", f"ACCEPT:{decided.number}", "OK", view_id="V0SAME")
                           for _ in range(3)))
    assert [name for name, _ in acts(ds)].count("dossierAccepter") == 1


async def test_authority_comes_from_the_group_never_from_the_payload(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                    demarche: FakeDemarche) -> None:
    theirs = ds.deposit(101, "en_instruction", group=2)  # Sud's group, not Alice's
    await click(digest_bot, "dossier_accept", str(theirs.number))  # a forged button value
    await submit(digest_bot, "dossier_decision", f"ACCEPT:{theirs.number}", "OK", view_id="V0FORGED")  # forged metadata
    await click(digest_bot, "dossier_start", str(theirs.number), user="U0MAL")
    assert acts(ds) == [] and theirs.state == "en_instruction"
    assert any("I can show you no dossier" in line for line in heard(slack))
    # removed from the group after the card was shown: the old card's button acts no more
    mine = ds.deposit(101)
    await dossier(digest_bot, str(mine.number))
    demarche.groups[0].instructeurs.remove(ALICE)
    await click(digest_bot, "dossier_start", str(mine.number))
    assert acts(ds) == [] and mine.state == "en_construction"
    await click(digest_bot, "dossier_reopen", str(theirs.number), user="U0SUD")  # Sud, the group's instructeur, can
    [(name, given)] = acts(ds)
    assert name == "dossierRepasserEnConstruction" and given["instructeurId"] == ds.acts.instructeur_id(SUD)


async def test_the_services_refusals_are_said(digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    decided = ds.deposit(101, "en_instruction")
    ds.change(101, decided.number, "accepte")  # accepted by someone else since the card was shown
    await click(digest_bot, "dossier_refuse", str(decided.number))  # opens the window: the act is checked on submission
    await submit(digest_bot, "dossier_decision", f"REFUSE:{decided.number}", "Non", view_id="V0LATE")
    assert acts(ds) == []  # the card is re-read first: nothing is sent for a dossier already decided
    assert any(f"Dossier n° {decided.number} is accepted now: nothing was done" in line for line in heard(slack))

    blocked = ds.deposit(101, "en_instruction")
    blocked.annotations_missing = True
    await submit(digest_bot, "dossier_decision", f"ACCEPT:{blocked.number}", "", view_id="V0ANNOT")
    assert any("a required private annotation is empty" in line for line in heard(slack))
    assert blocked.state == "en_instruction"

    ds.read_only.add(ds.token)
    fresh = ds.deposit(101)
    await click(digest_bot, "dossier_start", str(fresh.number))
    assert any("may only read, not act" in line and "read and write access" in line for line in heard(slack))

    ds.read_only.clear()
    fresh.usager_deleted = True
    await submit(digest_bot, "dossier_message_modal", f"MESSAGE:{fresh.number}", "Bonjour", view_id="V0CLOSED")
    assert any("messagerie of dossier" in line and "is closed" in line for line in heard(slack))
    assert all("went wrong" not in line for line in heard(slack))


async def test_a_429_is_waited_out_within_the_allowance(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    found = ds.deposit(101)
    await dossier(digest_bot, str(found.number))
    ds.rate_limited = 1  # the card's read: waited out; then the act goes
    await click(digest_bot, "dossier_start", str(found.number))
    assert found.state == "en_instruction" and len(acts(ds)) == 1


@pytest.mark.usefixtures("restore_logging")
async def test_each_act_is_recorded_without_e_mail_or_motivation(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    logs.configure("DEBUG", json_lines=True)
    found = ds.deposit(101, "en_instruction")
    await submit(digest_bot, "dossier_decision", f"CLOSE:{found.number}", "Motif très personnel", view_id="V0REC")
    logging.shutdown()
    written = stream.getvalue()
    assert f"dossier act: by U0ALICE, dossier {found.number}, close: ok" in written
    assert "Motif très personnel" not in written and "alice.martin" not in written and typed_id("Instructeur", 1) not in written
    metrics = (await digest_bot.http.get("/metrics")).text
    assert 'roombot_dossier_acts_total{act="close",outcome="ok"}' in metrics
