"""The acts that take something back: back into instruction, archive and unarchive, cancel a
correction request, delete one's own message. Each as the person (their group read again), once
whatever the retries, the card replaced, the service's own refusals said in words, a DM record."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import SecretStr

from bot.demo.ds import FakeDS
from bot.demo.ds_acts import NOT_ARCHIVABLE
from bot.demo.ds_data import FakeDemarche
from clients.dossiers import errors
from clients.dossiers.desk import Act, DossierDesk, typed_id
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.service import DossierService
from handlers.error_replies import dossier_refusal
from tests.conftest import Bot, text_of
from tests.desk.conftest import BOB, acts, buttons, click, dossier
from tests.desk.test_acts import dms, heard
from tests.digest.commands import ALICE
from tests.fakes.slack import FakeSlack
from tests.slack_requests import action_body, view_submission_body


async def test_back_into_review_acts_once_as_the_person_and_replaces_the_card(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                              demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "refuse")
    found.motivation, found.archived = "Pièces manquantes", True
    card = buttons(await dossier(digest_bot, str(found.number)))
    assert "Back into review" in json.dumps(card["dossier_reinstruct"]["confirm"])
    body = action_body("dossier_reinstruct", str(found.number), "U0ALICE", slack.response_url("card-U0ALICE"))
    await asyncio.gather(*(digest_bot.post(body) for _ in range(4)))  # a double click, and Slack's retries
    await digest_bot.runtime.tasks.drain(20)
    [(name, given)] = acts(ds)
    assert name == "dossierRepasserEnInstruction" and given["instructeurId"] == ds.acts.instructeur_id(ALICE)
    assert found.state == "en_instruction" and found.motivation is None and not found.archived  # the service's side effects
    replaced = [r for r in slack.responses if r.get("replace_original")]
    assert replaced and "under review since" in text_of(replaced[-1])
    assert any(f"You took dossier n° {found.number} back under review" in line for line in dms(slack))


async def test_back_into_review_refused_in_words(digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    gone = ds.deposit(101, "accepte")
    gone.usager_deleted = True  # the service answers "Le dossier est déjà accepté": read again, it is the applicant
    await click(digest_bot, "dossier_reinstruct", str(gone.number))
    assert [name for name, _ in acts(ds)] == ["dossierRepasserEnInstruction"] and gone.state == "accepte"
    assert any("the applicant's account no longer exists" in line for line in heard(slack))
    waiting = ds.deposit(101, "en_construction")  # a forged button: the state offers no such act
    await click(digest_bot, "dossier_reinstruct", str(waiting.number))
    assert len(acts(ds)) == 1
    assert any(f"Dossier n° {waiting.number} is under construction now: nothing was done" in line for line in heard(slack))


async def test_archive_and_unarchive(digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "sans_suite")
    await click(digest_bot, "dossier_archive", str(found.number))
    assert found.archived and [name for name, _ in acts(ds)] == ["dossierArchiver"]
    assert "dossier_unarchive" in buttons(slack.responses[-1]) or any(
        "dossier_unarchive" in buttons(r) for r in slack.responses if r.get("replace_original"))
    await click(digest_bot, "dossier_archive", str(found.number))  # an old card's button, clicked again
    assert len(acts(ds)) == 1 and any(f"Dossier n° {found.number} is archived already" in line for line in heard(slack))
    await click(digest_bot, "dossier_unarchive", str(found.number), user="U0BOB")
    assert not found.archived and [name for name, _ in acts(ds)] == ["dossierArchiver", "dossierDesarchiver"]
    assert any("Vous avez désarchivé le dossier" in line for line in dms(slack, "U0BOB"))
    review = ds.deposit(101, "en_instruction")
    await click(digest_bot, "dossier_archive", str(review.number))  # forged: nothing is sent for a dossier not decided
    assert len(acts(ds)) == 2 and not review.archived


async def test_the_services_archive_refusal_is_typed_and_said(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    """A card read as decided, the dossier taken back under review meanwhile: the service's own words."""
    found = ds.deposit(101, "accepte")
    service = DossierService(ds.url, SecretStr(ds.token), limiter=RateLimiter(1_000_000))
    desk = DossierDesk(service)
    card = await desk.card(found.number)
    ds.change(101, found.number, "en_instruction")
    with pytest.raises(errors.NotArchivable) as refused:
        await desk.act(Act.ARCHIVE, card, ds.acts.instructeur_id(ALICE))
    await service.aclose()
    assert refused.value.said == NOT_ARCHIVABLE
    assert "can be archived only once decided" in dossier_refusal("en", refused.value, found.number)
    assert "ne s'archive qu'une fois décidé" in dossier_refusal("fr", refused.value, found.number)


async def test_cancel_a_correction_request_reads_which_from_the_dossier(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                       demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_construction")
    asked = ds.acts.write(demarche, found, ALICE, "Merci de joindre le RIB.", correction="incomplete")
    found.pending_correction = True
    await click(digest_bot, "dossier_cancel_correction", f"{found.number}:{typed_id('Commentaire', 999)}")  # forged value
    assert acts(ds) == []  # not a number: nothing read from it
    await click(digest_bot, "dossier_cancel_correction", str(found.number))
    [(name, given)] = acts(ds)
    assert name == "dossierAnnulerDemandeCorrection" and given == {
        "messageId": typed_id("Commentaire", asked.id), "instructeurId": ds.acts.instructeur_id(ALICE)}
    assert asked.resolved is not None and asked.body and not found.pending_correction and found.state == "en_construction"
    assert any(f"You cancelled the correction request on dossier n° {found.number}" in line for line in dms(slack))
    await click(digest_bot, "dossier_cancel_correction", str(found.number))  # the old card again: none is pending
    assert len(acts(ds)) == 1 and any("has no correction request waiting any more" in line for line in heard(slack))


async def test_a_colleagues_correction_request_is_refused_and_the_person_told(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                          demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_construction")
    ds.acts.write(demarche, found, BOB, "Le justificatif est périmé.", correction="outdated")
    found.pending_correction = True
    await click(digest_bot, "dossier_cancel_correction", str(found.number))  # Alice, on Bob's request
    [(name, _)] = acts(ds)
    assert name == "dossierAnnulerDemandeCorrection" and found.pending_correction
    assert any("refused to cancel the correction request" in line and "Nothing was done" in line for line in heard(slack))


async def test_delete_ones_own_message_from_a_window_filled_as_the_person(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                         demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    mine = ds.acts.write(demarche, found, ALICE, "Message envoyé par erreur")
    bobs = ds.acts.write(demarche, found, BOB, "Le message de Bob")
    applicants = ds.acts.write(demarche, found, found.usager, "Bonjour")
    await click(digest_bot, "dossier_delete_message", str(found.number))
    [opened] = slack.called("views.open")
    assert "Reading your messages" in text_of(_view(opened.args["view"]))  # at once, whatever the service's speed
    [updated] = slack.called("views.update")
    view = _view(updated.args["view"])
    options = [o for b in view["blocks"] for o in (b.get("element") or {}).get("options", [])]
    assert [o["value"] for o in options] == [typed_id("Commentaire", mine.id)] and "envoyé par erreur" in options[0]["text"]["text"]
    assert "Bonjour" not in json.dumps(view) and "Bob" not in json.dumps(view)
    for forged in (typed_id("Commentaire", bobs.id), typed_id("Commentaire", applicants.id), "x" * 500):
        await _choose(digest_bot, found.number, forged, "V0FORGED" + forged[:5])
    assert acts(ds) == [] and bobs.discarded is None and applicants.discarded is None
    assert any("is no longer on dossier" in line for line in heard(slack))
    await asyncio.gather(*(_choose(digest_bot, found.number, typed_id("Commentaire", mine.id), "V0DEL") for _ in range(3)))
    [(name, given)] = acts(ds)
    assert name == "dossierSupprimerMessage" and given["instructeurId"] == ds.acts.instructeur_id(ALICE)
    assert mine.discarded is not None and mine.body == ""
    assert any(f"You deleted your message on dossier n° {found.number}" in line for line in dms(slack))


async def test_removed_from_the_group_an_old_card_acts_no_more_and_a_read_only_token_is_said(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "accepte")
    mine = ds.acts.write(demarche, found, ALICE, "À supprimer")
    await dossier(digest_bot, str(found.number))
    demarche.groups[0].instructeurs.remove(ALICE)
    for action in ("dossier_reinstruct", "dossier_archive", "dossier_cancel_correction"):
        await click(digest_bot, action, str(found.number))
    await _choose(digest_bot, found.number, typed_id("Commentaire", mine.id), "V0GONE")
    assert acts(ds) == [] and mine.discarded is None
    assert any("I can show you no dossier" in line for line in heard(slack))
    demarche.groups[0].instructeurs.append(ALICE)
    ds.read_only.add(ds.token)
    await click(digest_bot, "dossier_archive", str(found.number))
    await _choose(digest_bot, found.number, typed_id("Commentaire", mine.id), "V0RO")
    assert not found.archived and mine.discarded is None
    assert sum("may only read, not act" in line for line in heard(slack)) == 2


async def _choose(bot: Bot, number: int, message: str, view_id: str) -> None:
    values = {"message": {"message": {"type": "static_select", "selected_option": {"value": message}}}}
    answer = await bot.post(view_submission_body("dossier_delete_message_modal", values, f"DELETE_MESSAGE:{number}", "U0ALICE",
                                                 view_id=view_id))
    assert answer.status_code == 200
    await bot.runtime.tasks.drain(20)


def _view(sent: object) -> dict:
    return sent if isinstance(sent, dict) else json.loads(str(sent))
