"""`/dossier <number or link>`: the card, to whom, and the buttons each state offers."""

from __future__ import annotations

import datetime as dt

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from clients.dossiers.desk import DOCUMENTS, DossierCard, Person
from clients.dossiers.watch import GET_DOSSIER_CHANGES
from tests.conftest import Bot, text_of
from tests.desk.conftest import buttons, dossier, dumped


def test_every_document_the_desk_sends_is_valid_on_the_real_schema(ds: FakeDS) -> None:
    from graphql import parse, validate

    for name, document in {**DOCUMENTS, "getDossierChanges": GET_DOSSIER_CHANGES}.items():
        assert validate(ds.schema, parse(document)) == [], name


def test_one_acts_as_the_first_person_the_group_lists_with_ones_address() -> None:
    """The id an act carries: the first of the group's people listed with the address, whatever its case or spaces;
    one listed without an id is never it; nobody else may act."""
    card = DossierCard.model_validate({"number": 7, "state": "en_construction", "groupeInstructeur": {
        "number": 1, "label": "Nord", "instructeurs": [
            {"email": "ada@example.gouv.fr"}, {"id": "I1", "email": " Ada@Example.gouv.fr "},
            {"id": "I2", "email": "ada@example.gouv.fr"}, {"id": "I3", "email": "bob@example.gouv.fr", "since": "2026"}]}})
    assert card.instructeur_id("ADA@example.gouv.fr ") == "I1"
    assert card.instructeur("I3") == Person(id="I3", email="bob@example.gouv.fr")
    assert card.acts_for("carol@example.gouv.fr") == () and card.instructeur_id("carol@example.gouv.fr") is None
    assert card.instructeur("") is None


#: the windows read from the service, on every card of an instructeur of the group (issue 44)
EDITS = {"dossier_labels", "dossier_annotations", "dossier_regroup"}


async def test_the_card_says_what_an_instructeur_needs(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction", sva=dt.date(2026, 2, 1))
    ds.acts.write(demarche, found, found.usager, "Bonjour, voici la pièce.")
    found.followers.add("alice.martin@example.gouv.fr")
    reply = await dossier(digest_bot, str(found.number))
    words = text_of(reply)
    assert reply["response_type"] == "ephemeral"
    assert f"Dossier n° {found.number}" in words and "Subvention &lt;vélo&gt; (n° 101)" in words
    assert "under review since" in words and "deposited" in words and "implicit decision on" in words
    assert "group Nord" in words and "the applicant wrote on" in words and "not answered yet" in words
    assert "you follow it" in words and f"/procedures/101/dossiers/{found.number}|Open it on the dossier service" in words
    assert "usager" not in dumped(reply) and "Bonjour" not in dumped(reply)  # nothing the applicant wrote or is
    assert set(buttons(reply)) == {"dossier_accept", "dossier_refuse", "dossier_close", "dossier_message", "dossier_unfollow",
                                   *EDITS}
    # an SVA démarche: no Back to construction (the service fails there)


async def test_a_dossier_card_names_the_implicit_decision_without_guessing_which(digest_bot: Bot, ds: FakeDS,
                                                                                demarche: FakeDemarche) -> None:
    """The service says when the implicit decision falls, not whether silence means accord or rejet."""
    found = ds.deposit(101, "en_instruction", sva=dt.date(2026, 2, 1))
    ds.acts.write(demarche, found, found.usager, "Bonjour, voici la pièce.")
    french = text_of(await dossier(digest_bot, str(found.number), user="U0BOB"))
    assert "décision implicite le 1 févr. 2026 si rien n'est décidé avant" in french
    assert "toujours sans réponse" in french
    assert "silence vaut" not in french and "accord / rejet" not in french
    english = text_of(await dossier(digest_bot, str(found.number)))
    assert "implicit decision on Feb 1, 2026 unless decided before" in english


async def test_links_and_words_name_the_same_dossier(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    found = ds.deposit(101)
    site = ds.url.removesuffix("/api/v2/graphql")
    for words in (f"{site}/procedures/101/dossiers/{found.number}", f"{site}/dossiers/{found.number}/messagerie",
                  f"n°{found.number}", f"#{found.number}"):
        assert f"Dossier n° {found.number}" in text_of(await dossier(digest_bot, words)), words


async def test_buttons_by_state_in_each_language(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    waiting = ds.deposit(101, "en_construction")
    english = buttons(await dossier(digest_bot, str(waiting.number)))
    assert {e["text"]["text"] for e in english.values()} == {"Start review", "Message", "Follow", "Labels", "Private annotations",
                                                             "Send to another group"}
    assert english["dossier_start"]["confirm"]["title"]["text"] == "Start review?"
    reviewed = ds.deposit(101, "en_instruction")
    french = buttons(await dossier(digest_bot, str(reviewed.number), user="U0BOB"))
    assert {e["text"]["text"] for e in french.values()} == {
        "Accepter", "Refuser", "Classer sans suite", "Repasser en construction", "Message", "Suivre", "Labels",
        "Annotations privées", "Changer de groupe"}
    decided = ds.deposit(101, "accepte")
    assert set(buttons(await dossier(digest_bot, str(decided.number)))) == {
        "dossier_reinstruct", "dossier_archive", "dossier_message", "dossier_follow", *EDITS}
    decided.archived = True
    archived = buttons(await dossier(digest_bot, str(decided.number), user="U0BOB"))
    assert set(archived) == {"dossier_reinstruct", "dossier_unarchive", "dossier_follow", *EDITS}  # its messagerie is closed
    assert archived["dossier_unarchive"]["text"]["text"] == "Désarchiver"
    assert archived["dossier_reinstruct"]["confirm"]["title"]["text"] == "Repasser en instruction ?"


async def test_a_pending_correction_and_ones_own_messages_offer_their_acts(digest_bot: Bot, ds: FakeDS,
                                                                          demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_construction")
    ds.acts.write(demarche, found, "bob.durand@example.gouv.fr", "Merci de joindre le RIB.", correction="incomplete")
    found.pending_correction = True
    alices = buttons(await dossier(digest_bot, str(found.number)))
    assert set(alices) == {"dossier_start", "dossier_cancel_correction", "dossier_message", "dossier_follow", *EDITS}  # no message of hers
    bobs = buttons(await dossier(digest_bot, str(found.number), user="U0BOB"))
    assert {"dossier_cancel_correction", "dossier_delete_message"} <= set(bobs)
    assert bobs["dossier_cancel_correction"]["confirm"]["title"]["text"] == "Annuler la demande de correction ?"


async def test_an_administrator_sees_the_card_without_acting(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    reply = await dossier(digest_bot, str(found.number), user="U0ADA")
    assert f"Dossier n° {found.number}" in text_of(reply) and buttons(reply) == {}
    assert "acting on it is for the instructeurs of its group" in text_of(reply)


async def test_anyone_else_hears_what_a_dossier_that_does_not_exist_says(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    other_group = ds.deposit(101, "en_instruction", group=2)
    mine = ds.deposit(101)
    nothing = await dossier(digest_bot, "999999")
    for user, number in (("U0ALICE", other_group.number), ("U0MAL", mine.number), ("U0SUD", mine.number)):
        reply = await dossier(digest_bot, str(number), user=user)
        assert text_of(reply).replace(str(number), "N") == text_of(nothing).replace("999999", "N"), user
        assert "Subvention" not in dumped(reply)
    seen = await dossier(digest_bot, str(mine.number), user="U0BOB")  # Bob, in group 1 with Alice, sees the same dossiers she does
    assert f"Dossier n° {mine.number}" in text_of(seen) and "Subvention" in dumped(seen)


async def test_a_look_up_costs_at_most_two_requests_and_one_once_the_members_are_kept(
        digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    found = ds.deposit(101)
    before = len(ds.queries)
    await dossier(digest_bot, str(found.number), user="U0ADA")  # an administrator: the member list too
    assert len(ds.queries) - before == 2
    before = len(ds.queries)
    await dossier(digest_bot, str(found.number), user="U0ADA")
    await dossier(digest_bot, str(found.number))  # an instructeur: the card's own group says it
    assert len(ds.queries) - before == 2


async def test_help_and_typos(digest_bot: Bot, demarche: FakeDemarche) -> None:
    assert "`/dossier watch`" in text_of(await dossier(digest_bot, ""))
    typo = text_of(await dossier(digest_bot, "wacth off"))
    assert "/dossier watch off" in typo
    assert "I don't know `banana`" in text_of(await dossier(digest_bot, "banana"))


async def test_a_verb_with_words_it_does_not_take_is_not_corrected_into_itself(digest_bot: Bot, demarche: FakeDemarche) -> None:
    said = text_of(await dossier(digest_bot, "watch abc"))
    assert "I don't know `watch abc`" in said and "Did you mean" not in said
    assert "`/dossier watch`" in text_of(await dossier(digest_bot, "HELP"))  # the verb in any case, as /room and /digest read theirs


async def test_one_person_looks_up_at_most_thirty_dossiers_a_minute(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche) -> None:
    found = ds.deposit(101)
    for _ in range(30):
        await dossier(digest_bot, str(found.number))
    asked = len(ds.queries)
    assert "You looked up 30 dossiers in the last minute" in text_of(await dossier(digest_bot, str(found.number)))
    assert len(ds.queries) == asked  # nothing read for it
    assert f"Dossier n° {found.number}" in text_of(await dossier(digest_bot, str(found.number), user="U0BOB"))  # others may
