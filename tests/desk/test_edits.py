"""Labels, a group and private annotations from the card (issue 44): each window is read from the
service for an instructeur of the dossier's group now, each submission is an act checked again when
it comes — labels and groups carry no instructeur id, so the bot's own check is the only one — done
once, the card replaced, the service's refusals said in words; the card shows what the service shows
an instructeur, and links to the service's pages for what the API does not do."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from typing import Any

import pytest
from pydantic import SecretStr

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeAnnotation, FakeAssignment, FakeAvis, FakeDemarche, FakeDossier
from clients.dossiers import errors
from clients.dossiers.desk import Act, DossierDesk, typed_id
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.service import DossierService
from tests.conftest import Bot, instant_policy, text_of
from tests.desk.conftest import acts, click, dossier, dumped
from tests.digest.commands import ALICE
from tests.fakes.slack import FakeSlack, json_arg
from tests.slack_requests import interaction

#: every kind the window edits, and two it names without editing
KINDS = [FakeAnnotation(1, "Text", "Suivi"), FakeAnnotation(2, "Textarea", "Notes"), FakeAnnotation(3, "Checkbox", "Complet"),
         FakeAnnotation(4, "YesNo", "Conforme"), FakeAnnotation(5, "Date", "Visite"), FakeAnnotation(6, "Datetime", "Rappel"),
         FakeAnnotation(7, "IntegerNumber", "Pièces"), FakeAnnotation(8, "DecimalNumber", "Montant"),
         FakeAnnotation(9, "DropDownList", "Priorité", ["haute", "basse"]),
         FakeAnnotation(10, "MultipleDropDownList", "Thèmes", ["vélo", "bus", "train"]),
         FakeAnnotation(11, "Repetition", "Tableau"), FakeAnnotation(12, "PieceJustificative", "Rapport")]


@pytest.fixture
def labelled(ds: FakeDS, demarche: FakeDemarche) -> FakeDemarche:
    """Démarche 101 with two labels and every kind of annotation; démarche 202, the same token's, with its own."""
    demarche.label("Urgent").color = "pink_macaron"
    demarche.label("À relancer").color = "blue_ecume"
    demarche.annotations = list(KINDS)
    other = ds.add_demarche(202, "Autre", groups={1: ("Ailleurs", ["ailleurs@example.gouv.fr"])})
    other.label("Autre")
    return demarche


def window(slack: FakeSlack) -> dict[str, Any]:
    """The window as the bot last drew it (opened, then filled in)."""
    calls = slack.called("views.update") or slack.called("views.open")
    return json_arg(calls[-1].args["view"])


async def submit(bot: Bot, view: dict[str, Any], values: dict[str, Any], view_id: str = "V0MODAL", user: str = "U0ALICE",
                 metadata: str | None = None) -> dict[str, Any]:
    """The window submitted as Slack sends it: the view as drawn, with what was chosen."""
    sent = {**view, "id": view_id, "state": {"values": values}, "hash": "1.2", "team_id": "T0TEAM"}
    if metadata is not None:
        sent["private_metadata"] = metadata
    answer = await bot.post(interaction("view_submission", user, view=sent))
    assert answer.status_code == 200
    await bot.runtime.tasks.drain(20)
    return answer.json() if answer.text else {}


def picked(block: str, *values: str, many: bool = True) -> dict[str, Any]:
    options = [{"value": value} for value in values]
    return {block: {block: {"selected_options": options} if many else {"selected_option": options[0]}}}


def label_id(demarche: FakeDemarche, name: str) -> str:
    return typed_id("Label", demarche.label(name).id)


def replaced(slack: FakeSlack) -> dict[str, Any]:
    """The card as the last act replaced it."""
    return next(r for r in reversed(slack.responses) if r.get("replace_original"))


def heard(slack: FakeSlack, user: str = "U0ALICE") -> str:
    return " ".join([text_of(r) for r in slack.responses] + [text_of(m) for m in slack.posted(user)])


async def test_the_card_shows_what_the_service_shows_an_instructeur(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                    labelled: FakeDemarche) -> None:
    found = ds.deposit(101, "accepte", labels=("Urgent",))
    found.followers.add("bob.durand@example.gouv.fr")
    found.avis = [FakeAvis(ds.now, ds.now), FakeAvis(ds.now)]
    found.assignments = [FakeAssignment(ds.now, "Nord", None, "auto"),
                         FakeAssignment(dt.datetime(2026, 1, 4, tzinfo=dt.UTC), "Nord", "Sud")]
    found.decision_read = dt.datetime(2026, 1, 6, tzinfo=dt.UTC)
    found.annotations[1] = "secret de l'instruction"
    english = await dossier(digest_bot, str(found.number))
    words = text_of(english)
    assert "Labels: Urgent (macaron pink)" in words and "Followed by bob.durand@example.gouv.fr" in words
    assert "2 avis asked, 1 answered" in words and "sent to Nord from Sud on Jan 4, 2026" in words
    assert "the applicant read the decision on Jan 6, 2026" in words
    assert "usager" not in dumped(english) and "secret" not in dumped(english)  # nothing the applicant filled in, no annotation
    menu = next(e for b in english["blocks"] for e in b.get("elements", []) if e.get("type") == "overflow")
    links = {o["value"]: (o["text"]["text"], o["url"]) for o in menu["options"]}
    assert links["avis"][1].endswith(f"/procedures/101/dossiers/{found.number}/avis") and "(on the service)" in links["avis"][0]
    assert links["exports"][1].endswith("/procedures/101/exports") and "not from Slack" in links["exports"][0]
    french = text_of(await dossier(digest_bot, str(found.number), user="U0BOB"))
    assert "Labels : Urgent (rose macaron)" in french and "2 avis demandés, 1 rendu" in french
    pending = ds.deposit(101, "en_instruction")
    ds.acts.write(labelled, pending, ALICE, "Merci de corriger", correction="incorrect")
    pending.pending_correction = True
    assert "a correction is awaited from the applicant" in text_of(await dossier(digest_bot, str(pending.number)))
    clicked = await digest_bot.post(interaction("block_actions", "U0ALICE", actions=[
        {"action_id": "dossier_elsewhere", "block_id": "edits", "type": "overflow", "selected_option": {"value": "avis"}}]))
    assert clicked.status_code == 200  # a link followed: acknowledged, nothing else


async def test_labels_are_added_and_removed_as_the_person_once(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                labelled: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction", labels=("À relancer",))
    await dossier(digest_bot, str(found.number))
    await click(digest_bot, "dossier_labels", str(found.number))
    [opened] = slack.called("views.open")
    assert "Reading dossier n°" in text_of(json_arg(opened.args["view"]))  # at once, before the service is read
    drawn = window(slack)
    menus = {b["block_id"]: [o["text"]["text"] for o in b["element"]["options"]] for b in drawn["blocks"] if b["type"] == "input"}
    assert menus == {"add": ["Urgent (macaron pink)"], "remove": ["À relancer (foam blue)"]}
    values = {**picked("add", label_id(labelled, "Urgent")), **picked("remove", label_id(labelled, "À relancer"))}
    await asyncio.gather(*(submit(digest_bot, drawn, values) for _ in range(3)))  # replayed (the window Slack opened: V0MODAL)
    assert [(name, given) for name, given in acts(ds)] == [
        ("dossierAjouterLabel", {"dossierId": typed_id("Dossier", found.id), "labelId": label_id(labelled, "Urgent")}),
        ("dossierSupprimerLabel", {"dossierId": typed_id("Dossier", found.id), "labelId": label_id(labelled, "À relancer")})]
    assert found.labels == ["Urgent"]
    card = replaced(slack)
    assert "Labels: Urgent (macaron pink)" in text_of(card)
    assert f"You added the label “Urgent” to dossier n° {found.number}" in heard(slack)
    assert f"You removed the label “À relancer” from dossier n° {found.number}" in heard(slack)  # two DMs told apart


async def test_a_label_or_group_of_another_demarche_is_refused_in_words(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                        labelled: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    await dossier(digest_bot, str(found.number))
    await click(digest_bot, "dossier_labels", str(found.number))
    drawn = window(slack)
    await submit(digest_bot, drawn, picked("add", label_id(ds.demarches[202], "Autre")), view_id="V0FORGED1")
    [(name, _)] = acts(ds)
    assert name == "dossierAjouterLabel" and found.labels == []
    said = heard(slack).count("That label or group is not one of dossier n°")
    assert said
    regroup = {**drawn, "callback_id": "dossier_regroup_modal"}
    await submit(digest_bot, regroup, picked("group", typed_id("GroupeInstructeur", 20201), many=False),
                 view_id="V0FORGED2", metadata=f"REGROUP:{found.number}")
    assert found.group == 1 and heard(slack).count("That label or group is not one of dossier n°") > said
    # a dossier of another démarche, named in forged metadata: not Alice's to see, nothing sent
    elsewhere = ds.deposit(202)
    before = len(acts(ds))
    await submit(digest_bot, drawn, picked("add", label_id(ds.demarches[202], "Autre")), view_id="V0FORGED3",
                 metadata=f"ADD_LABEL:{elsewhere.number}")
    assert len(acts(ds)) == before and elsewhere.labels == [] and "I can show you no dossier" in heard(slack)


async def test_a_person_removed_from_the_group_acts_no_more_and_a_read_only_token_is_said(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, labelled: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    await dossier(digest_bot, str(found.number))
    await click(digest_bot, "dossier_regroup", str(found.number))
    drawn = window(slack)
    labelled.groups[0].instructeurs.remove(ALICE)  # after the window was drawn
    await submit(digest_bot, drawn, picked("group", typed_id("GroupeInstructeur", 10102), many=False), view_id="V0GONE")
    await click(digest_bot, "dossier_labels", str(found.number))
    assert acts(ds) == [] and found.group == 1
    assert "I can show you no dossier" in text_of(window(slack))  # the window says why, shows nothing
    # an administrator of the démarche sees the dossier, and the service would take a label from the token
    # whoever is named: the bot's own check is the only one, and refuses
    await submit(digest_bot, drawn, picked("group", typed_id("GroupeInstructeur", 10102), many=False), view_id="V0ADMIN",
                 user="U0ADA")
    assert acts(ds) == [] and "You are not an instructeur of the group of dossier n°" in heard(slack, "U0ADA")
    labelled.groups[0].instructeurs.append(ALICE)
    ds.read_only.add(ds.token)
    await submit(digest_bot, drawn, picked("group", typed_id("GroupeInstructeur", 10102), many=False), view_id="V0RO")
    assert found.group == 1 and "may only read, not act" in heard(slack)


async def test_a_dossier_sent_to_another_group_leaves_the_card_of_one_not_in_it(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                               labelled: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    await dossier(digest_bot, str(found.number))
    asked = len(ds.queries)
    await click(digest_bot, "dossier_regroup", str(found.number))
    assert len(ds.queries) - asked == 2  # the dossier (who may), the démarche's groups
    drawn = window(slack)
    [menu] = [b for b in drawn["blocks"] if b["type"] == "input"]
    assert [o["text"]["text"] for o in menu["element"]["options"]] == ["Sud"]  # the démarche's other groups
    assert "you can no longer see it" in text_of(drawn)
    empty = await submit(digest_bot, drawn, {}, view_id="V0EMPTY")
    assert empty["response_action"] == "errors" and acts(ds) == []
    asked = len(ds.queries)
    await submit(digest_bot, drawn, picked("group", menu["element"]["options"][0]["value"], many=False))
    assert len(ds.queries) - asked == 2  # the dossier read again (who may, now), the mutation answering with the card
    [(name, given)] = acts(ds)
    assert name == "dossierChangerGroupeInstructeur" and "instructeurId" not in given and found.group == 2
    card = replaced(slack)
    assert "You sent dossier n°" in text_of(card) and "Nord" not in text_of(card)
    assert "to the group Sud" in heard(slack)
    # the same group again (a forged submission): nothing sent, said
    before = len(acts(ds))
    await submit(digest_bot, drawn, picked("group", menu["element"]["options"][0]["value"], many=False), view_id="V0AGAIN",
                 user="U0SUD")
    assert len(acts(ds)) == before and "is already with that group" in heard(slack, "U0SUD")


async def annotations_window(bot: Bot, slack: FakeSlack, found: FakeDossier) -> dict[str, Any]:
    await dossier(bot, str(found.number))
    await click(bot, "dossier_annotations", str(found.number))
    return window(slack)


def inputs(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each field's input by its label."""
    return {b["label"]["text"]: b for b in view["blocks"] if b["type"] == "input"}


async def test_the_annotations_window_shows_every_kind_and_names_the_others(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                           labelled: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    found.annotations.update({1: "à suivre", 3: True, 4: False, 5: "2026-01-10", 7: 3, 8: 12.5, 9: "haute", 10: ["bus"]})
    drawn = await annotations_window(digest_bot, slack, found)
    shown = inputs(drawn)
    assert {label: b["element"]["type"] for label, b in shown.items()} == {
        "Suivi": "plain_text_input", "Notes": "plain_text_input", "Complet": "checkboxes", "Conforme": "radio_buttons",
        "Visite": "datepicker", "Rappel": "datetimepicker", "Pièces": "number_input", "Montant": "number_input",
        "Priorité": "static_select", "Thèmes": "multi_static_select"}
    assert shown["Suivi"]["element"]["initial_value"] == "à suivre" and shown["Visite"]["element"]["initial_date"] == "2026-01-10"
    assert shown["Pièces"]["element"]["initial_value"] == "3" and shown["Priorité"]["element"]["initial_option"]["value"] == "haute"
    assert shown["Notes"]["element"]["multiline"] is True and shown["Montant"]["element"]["is_decimal_allowed"] is True
    assert "Edited on the service, not here: « Tableau », « Rapport »" in text_of(drawn)  # named, not dropped
    assert drawn["private_metadata"] == f"ANNOTATE:{found.number}"


def typed(shown: dict[str, dict[str, Any]], label: str, value: dict[str, Any]) -> dict[str, Any]:
    return {shown[label]["block_id"]: {"value": value}}


async def test_annotations_are_checked_as_the_service_checks_them_and_only_changes_are_sent(
        digest_bot: Bot, ds: FakeDS, slack: FakeSlack, labelled: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    found.annotations.update({1: "à suivre", 5: "2026-01-10", 9: "haute"})
    drawn = await annotations_window(digest_bot, slack, found)
    shown = inputs(drawn)
    kept = {**typed(shown, "Suivi", {"value": "à suivre"}), **typed(shown, "Visite", {"selected_date": "2026-01-10"}),
            **typed(shown, "Priorité", {"selected_option": {"value": "haute"}})}
    wrong = {**kept, **typed(shown, "Pièces", {"value": "1.5"}), **typed(shown, "Montant", {"value": "douze"}),
             **typed(shown, "Thèmes", {"selected_options": [{"value": "avion"}]}),
             **typed(shown, "Visite", {"selected_date": None})}  # emptied: the service's input takes no null
    refused = await submit(digest_bot, drawn, wrong, view_id="V0WRONG")
    assert refused["response_action"] == "errors" and acts(ds) == []
    assert refused["errors"] == {
        shown["Pièces"]["block_id"]: "A whole number, between -2147483648 and 2147483647.",
        shown["Montant"]["block_id"]: "A number, such as 12.5.",
        shown["Thèmes"]["block_id"]: "Choose among the field's options.",
        shown["Visite"]["block_id"]: "The service cannot empty this field from here: change its value, or empty it on the service."}
    too_big = await submit(digest_bot, drawn, {**kept, **typed(shown, "Pièces", {"value": str(2**31)})}, view_id="V0BIG")
    assert list(too_big["errors"]) == [shown["Pièces"]["block_id"]] and acts(ds) == []
    good = {**kept, **typed(shown, "Pièces", {"value": "4"}), **typed(shown, "Montant", {"value": "12,5"}),
            **typed(shown, "Complet", {"selected_options": [{"value": "true"}]}),
            **typed(shown, "Conforme", {"selected_option": {"value": "false"}}),
            **typed(shown, "Rappel", {"selected_date_time": 1767600000}),
            **typed(shown, "Thèmes", {"selected_options": [{"value": "vélo"}, {"value": "bus"}]}),
            **typed(shown, "Suivi", {"value": ""})}  # a text emptied: sent as ""
    asked = len(ds.queries)
    await submit(digest_bot, drawn, good, view_id="V0GOOD")
    assert len(ds.queries) - asked == 2  # the dossier read again, the mutation
    await submit(digest_bot, drawn, good, view_id="V0GOOD")  # replayed
    [(name, given)] = acts(ds)
    assert name == "dossierModifierAnnotations" and given["instructeurId"] == ds.acts.instructeur_id(ALICE)
    sent = {item["id"]: item["value"] for item in given["annotations"]}
    assert sent == {typed_id("Champ", 7): {"integerNumber": 4}, typed_id("Champ", 8): {"decimalNumber": 12.5},
                    typed_id("Champ", 3): {"checkbox": True}, typed_id("Champ", 4): {"yesNo": False},
                    typed_id("Champ", 6): {"datetime": "2026-01-05T08:00:00+00:00"},
                    typed_id("Champ", 10): {"multipleDropDownList": ["bus", "vélo"]}, typed_id("Champ", 1): {"text": ""}}
    assert found.annotations[7] == 4 and found.annotations[1] == "" and found.annotations[5] == "2026-01-10"
    assert "You saved 7 private annotations of dossier" in heard(slack)


async def test_annotations_partly_saved_say_which_and_why(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                           labelled: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    drawn = await annotations_window(digest_bot, slack, found)
    shown = inputs(drawn)
    # a window forged so that a checkbox's champ is sent as text: the service saves the rest and says which not
    forged = json.loads(json.dumps(drawn))
    for block in forged["blocks"]:
        if block.get("label", {}).get("text") == "Complet":
            block["block_id"] = f"text|{typed_id('Champ', 3)}"
            block["element"] = shown["Suivi"]["element"]
    values = {**typed(shown, "Suivi", {"value": "relancé"}), f"text|{typed_id('Champ', 3)}": {"value": {"value": "oui"}}}
    await submit(digest_bot, forged, values, view_id="V0PART")
    [(name, _)] = acts(ds)
    assert name == "dossierModifierAnnotations" and found.annotations == {1: "relancé"}
    said = heard(slack)
    assert "saved « Suivi »; not saved « Complet »" in said
    assert "L‘annotation « Complet » n’est pas de type attendu" in said


async def test_the_windows_say_why_they_show_nothing(digest_bot: Bot, ds: FakeDS, slack: FakeSlack, labelled: FakeDemarche) -> None:
    found = ds.deposit(101, "en_instruction")
    await click(digest_bot, "dossier_annotations", str(found.number), user="U0ADA")  # an administrator
    assert "Acting on it is for its group's instructeurs" in text_of(window(slack))
    await click(digest_bot, "dossier_annotations", str(found.number), user="U0MAL")  # nobody of it
    assert "I can show you no dossier" in text_of(window(slack))
    labelled.groups = labelled.groups[:1]
    await click(digest_bot, "dossier_regroup", str(found.number))
    assert "has no other open group" in text_of(window(slack))
    assert acts(ds) == []


async def test_the_services_refusals_of_a_stale_card_are_typed(ds: FakeDS, labelled: FakeDemarche) -> None:
    """A label or group changed between the read and the act (two people at once): the service's own
    texts, typed, which the person hears as "already so" rather than as an error."""
    desk = DossierDesk(DossierService(ds.url, SecretStr(ds.token), limiter=RateLimiter(1_000_000), policy=instant_policy()))
    found = ds.deposit(101, "en_instruction")
    card = await desk.card(found.number)
    found.labels.append("Urgent")  # added by someone else since
    with pytest.raises(errors.AlreadySo, match="Ce label est déjà associé au dossier"):
        await desk.act(Act.ADD_LABEL, card, "", choice=label_id(labelled, "Urgent"))
    with pytest.raises(errors.AlreadySo, match="Ce label n’est pas associé au dossier"):
        await desk.act(Act.REMOVE_LABEL, card, "", choice=label_id(labelled, "À relancer"))
    with pytest.raises(errors.AlreadySo, match="Le dossier est déjà avec le groupe instructeur: 'Nord'"):
        await desk.act(Act.REGROUP, card, "", choice=typed_id("GroupeInstructeur", 10101))
    with pytest.raises(errors.NotOfDemarche, match="Le groupe instructeur 'Ailleurs' n’appartient pas à la même démarche"):
        await desk.act(Act.REGROUP, card, "", choice=typed_id("GroupeInstructeur", 20201))
    assert all("instructeurId" not in given for _, given in acts(ds))  # the service takes none for these


async def test_a_card_with_everything_at_once_stays_within_slacks_limits(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                                         labelled: FakeDemarche) -> None:
    names = tuple(f"Label {index} " + "x" * 60 for index in range(60))
    found = ds.deposit(101, "en_instruction", labels=names)
    found.followers.update(f"instructeur.{index}@example.gouv.fr" for index in range(40))
    found.avis = [FakeAvis(ds.now) for _ in range(30)]
    reply = await dossier(digest_bot, str(found.number))  # the Slack fake refuses a message past Slack's limits
    assert "Labels: Label 0" in text_of(reply) and "…" in text_of(reply)
    ids = [[e["action_id"] for e in b.get("elements", [])] for b in reply["blocks"] if b["type"] == "actions"]
    assert all(len(set(block)) == len(block) for block in ids) and len(reply["blocks"]) <= 4
    assert not slack.refusals
