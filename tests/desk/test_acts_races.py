"""Acts of the card's two halves meeting on one dossier (issue 44, tried once merged): an act that
changes what another undoes waits for it, and an act whose result the dossier cannot show is never
said "not done" after the service may have done it."""

from __future__ import annotations

import json

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from clients.dossiers.desk import typed_id
from tests.conftest import Bot, eventually, text_of
from tests.desk.conftest import acts, buttons, click, dossier
from tests.desk.conftest import submit as submit_words
from tests.desk.test_acts_once import told
from tests.desk.test_acts_undo import _choose
from tests.desk.test_edits import KINDS, annotations_window, inputs, picked, submit, typed, window
from tests.digest.commands import ALICE
from tests.fakes.slack import FakeSlack
from tests.slack_requests import action_body


async def test_archive_and_back_into_review_racing_one_acts_the_other_hears_who(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    """Back into review takes a dossier out of the archive: with Alice's Archive in flight, Bob's
    click (on a card that still offers it) sends nothing and names her."""
    found = ds.deposit(101, "accepte")
    ds.acts.late, ds.acts.failures = 1.0, ["late-before"]  # Alice's archive reaches the service, which takes a second
    archiving = action_body("dossier_archive", str(found.number), "U0ALICE", slack.response_url("card-U0ALICE"))
    assert (await digest_bot.post(archiving)).status_code == 200
    await eventually(lambda: any(q.get("operationName") == "dossierArchiver" for q in ds.queries), "Alice's archive sent")
    await click(digest_bot, "dossier_reinstruct", str(found.number), user="U0BOB")
    await digest_bot.runtime.tasks.drain(20)
    assert [name for name, _ in acts(ds)] == ["dossierArchiver"]
    assert found.state == "accepte" and found.archived
    assert any("<@U0ALICE>" in line for line in told(slack, "U0BOB")), told(slack, "U0BOB")


async def test_annotations_whose_answer_failed_are_never_said_not_done(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                        demarche: FakeDemarche) -> None:
    """The card shows no annotation: after a 500 that came once they were saved, the person is told
    the outcome is unknown and where to look, never "not done, do it again"."""
    demarche.annotations = list(KINDS)
    found = ds.deposit(101, "en_instruction")
    drawn = await annotations_window(digest_bot, slack, found)
    ds.acts.failures = ["500-after"]
    await submit(digest_bot, drawn, typed(inputs(drawn), "Suivi", {"value": "relancé"}), view_id="V0LOST")
    assert found.annotations == {1: "relancé"}  # saved
    heard = " ".join(text_of(r) for r in slack.responses) + " ".join(text_of(m) for m in slack.posted("U0ALICE"))
    assert "was not done" not in heard and "You may do it again" not in heard, heard
    assert "did not say whether your act" in heard and f"/procedures/101/dossiers/{found.number}" in heard


async def test_an_archived_dossiers_card_says_so_and_offers_no_message(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                       demarche: FakeDemarche) -> None:
    """The service sends no message on a dossier to be archived: the card says it is archived and
    offers no Message; an old card's Message is refused in the service's words."""

    found = ds.deposit(101, "accepte")
    await click(digest_bot, "dossier_archive", str(found.number))
    card = next(r for r in reversed(slack.responses) if r.get("replace_original"))
    assert "archived" in text_of(card) and "dossier_message" not in buttons(card)
    looked = await dossier(digest_bot, str(found.number), user="U0BOB")
    assert "archivé" in text_of(looked) and "dossier_message" not in buttons(looked)
    await submit_words(digest_bot, "dossier_message_modal", f"MESSAGE:{found.number}", "Bonjour", view_id="V0OLD")
    assert any(f"The messagerie of dossier n° {found.number} is closed" in line for line in told(slack, "U0ALICE"))


async def test_the_cancel_correction_confirm_does_not_offer_cancel_twice(digest_bot: Bot, ds: FakeDS,
                                                                          demarche: FakeDemarche) -> None:
    """"Annuler la correction" beside "Annuler" reads as two ways of cancelling: the way out keeps it."""

    found = ds.deposit(101, "en_construction")
    ds.acts.write(demarche, found, ALICE, "Merci de joindre le RIB.", correction="incomplete")
    found.pending_correction = True
    for user, lang_cancel in (("U0ALICE", "Cancel"), ("U0BOB", "Annuler")):
        confirm = buttons(await dossier(digest_bot, str(found.number), user=user))["dossier_cancel_correction"]["confirm"]
        assert confirm["deny"]["text"] != lang_cancel and "ancel" not in confirm["deny"]["text"] \
            and "nnuler" not in confirm["deny"]["text"], confirm


async def test_annotations_with_a_read_only_token_are_said_as_read_only(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                        demarche: FakeDemarche) -> None:
    """The read-only refusal comes in the annotations' payload: said as every act's is, not as a field refused."""
    demarche.annotations = list(KINDS)
    found = ds.deposit(101, "en_instruction")
    drawn = await annotations_window(digest_bot, slack, found)
    ds.read_only.add(ds.token)
    await submit(digest_bot, drawn, typed(inputs(drawn), "Suivi", {"value": "relancé"}), view_id="V0RO")
    assert found.annotations == {}
    heard = [text_of(r) for r in slack.responses] + [text_of(m) for m in slack.posted("U0ALICE")]
    assert any("may only read, not act" in line for line in heard), heard
    assert not any("not saved" in line for line in heard), heard


async def test_cancel_correction_racing_the_deletion_of_its_message(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                    demarche: FakeDemarche) -> None:
    """Cancel in flight, the same message deleted meanwhile: the message goes (its correction with it),
    and the cancel is refused in the service's words."""

    found = ds.deposit(101, "en_construction")
    asked = ds.acts.write(demarche, found, ALICE, "Merci de joindre le RIB.", correction="incomplete")
    found.pending_correction = True
    ds.acts.late, ds.acts.failures = 1.0, ["late-before"]
    cancelling = action_body("dossier_cancel_correction", str(found.number), "U0ALICE", slack.response_url("card-U0ALICE"))
    assert (await digest_bot.post(cancelling)).status_code == 200
    await eventually(lambda: any(q.get("operationName") == "dossierAnnulerDemandeCorrection" for q in ds.queries), "the cancel sent")
    await _choose(digest_bot, found.number, typed_id("Commentaire", asked.id), "V0DELRACE")
    await digest_bot.runtime.tasks.drain(20)
    assert asked.discarded is not None and asked.resolved is not None and not found.pending_correction
    heard = told(slack, "U0ALICE")
    assert any(f"You deleted your message on dossier n° {found.number}" in line for line in heard), heard
    assert any("refused to cancel the correction request" in line for line in heard), heard
    assert [name for name, _ in acts(ds)] == ["dossierSupprimerMessage", "dossierAnnulerDemandeCorrection"]


async def test_the_deletion_window_tells_a_stranger_nothing_of_whether_a_dossier_exists(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    """A forged Delete a message click on a number: an existing dossier of others, or none at all,
    reads the same to someone who is no instructeur of it (as a look-up does)."""

    found = ds.deposit(101, "en_instruction")
    said = []
    for number in (found.number, 999_999):
        slack.calls.clear()
        slack.messages.clear()
        await click(digest_bot, "dossier_delete_message", str(number), user="U0MAL")
        view = json.dumps([c.args.get("view") for c in slack.called("views.update")], ensure_ascii=False, default=str)
        said.append((view.replace(str(number), "N"), [text_of(m).replace(str(number), "N") for m in slack.posted("U0MAL")]))
    assert said[0] == said[1], said
    assert acts(ds) == []


async def test_a_label_or_group_id_that_names_nothing_is_said_as_such_not_as_the_dossier_missing(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    """A forged choice the service finds nowhere ("Label not found"): the dossier is there and was read;
    saying it does not exist would be untrue."""

    demarche.label("Urgent")
    found = ds.deposit(101, "en_instruction")
    await dossier(digest_bot, str(found.number))
    await click(digest_bot, "dossier_labels", str(found.number))
    drawn = window(slack)
    await submit(digest_bot, drawn, picked("add", "TGFiZWwtOTk5OTk="), view_id="V0NOLABEL")  # Label-99999
    regroup = {**drawn, "callback_id": "dossier_regroup_modal"}
    await submit(digest_bot, regroup, picked("group", "pas-un-id", many=False), view_id="V0NOGROUP",
                 metadata=f"REGROUP:{found.number}")
    heard = [text_of(r) for r in slack.responses] + [text_of(m) for m in slack.posted("U0ALICE")]
    assert not any("I can show you no dossier" in line for line in heard), heard
    assert sum("That label or group is not one of dossier n°" in line for line in heard) == 2, heard
    assert found.labels == [] and found.group == 1


async def test_annotation_values_at_the_limits_are_refused_beside_their_field_and_nothing_is_sent(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, demarche: FakeDemarche) -> None:
    demarche.annotations = list(KINDS)
    found = ds.deposit(101, "en_instruction")
    drawn = await annotations_window(digest_bot, slack, found)
    shown = inputs(drawn)
    limits = {**typed(shown, "Suivi", {"value": "x" * 3001}), **typed(shown, "Pièces", {"value": str(10**20)}),
              **typed(shown, "Montant", {"value": "1e400"}), **typed(shown, "Visite", {"selected_date": "0000-01-01"}),
              **typed(shown, "Rappel", {"selected_date_time": 10**20}),
              **typed(shown, "Priorité", {"selected_option": {"value": "urgente"}})}
    refused = await submit(digest_bot, drawn, limits, view_id="V0LIMITS")
    assert refused["response_action"] == "errors" and acts(ds) == []
    assert set(refused["errors"]) == {shown[label]["block_id"] for label in ("Suivi", "Pièces", "Montant", "Visite", "Rappel", "Priorité")}
    fine = {**typed(shown, "Montant", {"value": str(10**20)}), **typed(shown, "Visite", {"selected_date": "0001-01-01"})}
    assert await submit(digest_bot, drawn, fine, view_id="V0FINE") == {}
    assert found.annotations == {8: 1e20, 5: "0001-01-01"}


async def test_a_label_chosen_over_and_over_in_a_forged_window_is_one_change(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                              demarche: FakeDemarche) -> None:
    """A submission naming one label a hundred times, and in both lists: one act, not a hundred reads of the dossier."""
    demarche.label("Urgent")
    found = ds.deposit(101, "en_instruction")
    await dossier(digest_bot, str(found.number))
    await click(digest_bot, "dossier_labels", str(found.number))
    drawn = window(slack)
    urgent = typed_id("Label", demarche.label("Urgent").id)
    asked = len(ds.queries)
    await submit(digest_bot, drawn, {**picked("add", *[urgent] * 100), **picked("remove", urgent)}, view_id="V0MANY")
    assert [name for name, _ in acts(ds)] == ["dossierAjouterLabel"] and found.labels == ["Urgent"]
    assert len(ds.queries) - asked <= 3, len(ds.queries) - asked
