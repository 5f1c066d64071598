"""A dossier's card, as `/dossier` shows it to one person: what the service shows an instructeur —
its démarche, state and since when, deposit, SVA/SVR date, group and its last re-routing, labels
(with their colours' names), who follows it, avis asked and answered, a pending correction, when the
applicant last wrote and whether they read the decision, a link to it on the service — and, for an
instructeur of its group, a button per act the state allows, then the windows (labels, annotations,
group) and a menu of what only the service's pages do. Nothing the applicant filled in is shown;
every text from the service is escaped. A card holds 3 blocks of Slack's 50, 13 elements at most in
its actions blocks (of 25), each action id once. Built as Slack's JSON by `handlers/blocks.py`'s
checked helpers (`section_json`, `button_json`, …) rather than slack_sdk's objects: a card is the
reply of every look-up, and those objects were a tenth of its CPU."""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

from babel.dates import format_date
from slack_sdk.models.blocks import Block

from clients.dossiers.desk import Act, DossierCard, Seen
from clients.dossiers.models import STATES, WAITING
from handlers.blocks import (
    Message,
    actions_json,
    button_json,
    confirm_json,
    confirm_text_json,
    context_json,
    fit,
    link_mrkdwn,
    overflow_json,
    section_json,
)
from handlers.core.dossier_links import dossier_url
from handlers.i18n import Mrkdwn, counted, text

#: each act's button, by its action id; Follow shows "Unfollow" when the person follows it
ACTION_IDS = {Act.START: "dossier_start", Act.ACCEPT: "dossier_accept", Act.REFUSE: "dossier_refuse",
              Act.CLOSE: "dossier_close", Act.REOPEN: "dossier_reopen", Act.MESSAGE: "dossier_message",
              Act.FOLLOW: "dossier_follow", Act.REINSTRUCT: "dossier_reinstruct", Act.ARCHIVE: "dossier_archive",
              Act.UNARCHIVE: "dossier_unarchive", Act.CANCEL_CORRECTION: "dossier_cancel_correction",
              Act.DELETE_MESSAGE: "dossier_delete_message", Act.ADD_LABEL: "dossier_labels", Act.REGROUP: "dossier_regroup",
              Act.ANNOTATE: "dossier_annotations"}  # Remove label: the Labels window does both
#: the acts that open a window read from the service (the démarche's labels, groups, annotations)
EDITS = (Act.ADD_LABEL, Act.ANNOTATE, Act.REGROUP)
#: the overflow menu of what the API does not do: each a link to the service's page for it
ELSEWHERE = "dossier_elsewhere"
UNFOLLOW = "dossier_unfollow"
#: the acts that take effect on the click, asked again in Slack's confirm dialog first
CONFIRMED = (Act.START, Act.REOPEN, Act.REINSTRUCT, Act.ARCHIVE, Act.UNARCHIVE, Act.CANCEL_CORRECTION)
CORRECTABLE = ":c"  # after the Message button's number: the window may ask for a correction


def card_message(lang: str, seen: Seen, email: str, site: str, *, note: str = "") -> Message:
    card = seen.card
    demarche = card.demarche
    title = demarche.title if demarche else ""
    head = Mrkdwn(f"*{text(lang, 'dossier.title', number=card.number)}*")
    lines = [text(lang, "desk.header", head=head, title=title, demarche=demarche.number if demarche else "")]
    facts = [_state_line(lang, card), *_dates(lang, card)]
    if card.groupeInstructeur and card.groupeInstructeur.label:
        facts.append(text(lang, "dossier.group", group=card.groupeInstructeur.label))
    facts.extend(_instruction(lang, card))
    facts.append(_applicant_line(lang, card))
    if seen.instructeur_id is not None:
        facts.append(text(lang, "desk.following" if card.followed_by(email) else "desk.not_following"))
    lines.append(" · ".join(facts))
    lines.extend(_labels_and_followers(lang, card))
    if demarche:
        lines.append(link_mrkdwn(dossier_url(site, demarche.number, card.number), text(lang, "desk.open_link")))
    blocks: list[Block] = [section_json("\n".join(lines))]
    buttons = act_buttons(lang, card, email)
    if buttons:
        blocks.append(actions_json("acts", [b for b in buttons if b["action_id"] not in EDIT_IDS]))
        edits = [b for b in buttons if b["action_id"] in EDIT_IDS]
        blocks.append(actions_json("edits", [*edits, *_elsewhere(lang, card, site)]))
    elif seen.administrator:
        blocks.append(context_json(text(lang, "desk.admin_only")))
    if note:
        blocks.append(context_json(note))
    return Message(text=text(lang, "dossier.title", number=card.number), blocks=blocks)


EDIT_IDS = frozenset(ACTION_IDS[act] for act in EDITS)


def label_words(lang: str, name: str, color: str) -> str:
    """A label as people read it: its name and its colour's name (`LabelColorEnum`, a new one as it is)."""
    colour = text(lang, f"desk.color.{color}") if color in COLORS else color.replace("_", " ")
    return text(lang, "desk.label", name=name, color=colour)


COLORS = ("beige_gris_galet", "blue_ecume", "brown_cafe_creme", "green_bourgeon", "green_emeraude", "green_menthe",
          "green_tilleul_verveine", "pink_macaron", "purple_glycine", "yellow_tournesol")


def _labels_and_followers(lang: str, card: DossierCard) -> list[str]:
    found = []
    if card.labels:
        found.append(text(lang, "desk.labels", labels=", ".join(label_words(lang, label.name, label.color) for label in card.labels)))
    if card.instructeurs:
        found.append(text(lang, "desk.followers", people=", ".join(person.email for person in card.instructeurs)))
    return found


def _instruction(lang: str, card: DossierCard) -> list[str]:
    """Where the instruction stands: archived, the last re-routing, avis, a correction awaited, the decision read."""
    found = [text(lang, "desk.archived")] if card.archived else []
    moved = card.rerouted
    if moved is not None and moved.assignedAt:
        found.append(text(lang, "desk.rerouted", group=moved.groupeInstructeurLabel, previous=moved.previousGroupeInstructeurLabel or "",
                          date=_day(lang, dt.datetime.fromisoformat(moved.assignedAt))))
    if card.avis:
        answered = sum(1 for avis in card.avis if avis.dateReponse)
        found.append(text(lang, "desk.avis", asked=Mrkdwn(counted(lang, "desk.avis_asked", len(card.avis))),
                          answered=Mrkdwn(counted(lang, "desk.avis_answered", answered))))
    if card.pending_correction is not None:
        found.append(text(lang, "desk.correction_awaited"))
    if card.decision_read is not None:
        found.append(text(lang, "desk.decision_read", date=_day(lang, card.decision_read)))
    return found


def _elsewhere(lang: str, card: DossierCard, site: str) -> list[dict[str, Any]]:
    """What only the service's pages do (ask an expert, exports, appointments): links, said to be so."""
    if card.demarche is None or not site:
        return []
    page = dossier_url(site, card.demarche.number, card.number)
    demarche_page = f"{site.rstrip('/')}/procedures/{card.demarche.number}"
    urls = {"avis": f"{page}/avis", "exports": f"{demarche_page}/exports", "appointments": page}
    return [overflow_json(ELSEWHERE, [(what, fit(text(lang, f"desk.elsewhere.{what}"), 75), url) for what, url in urls.items()])]


def act_buttons(lang: str, card: DossierCard, email: str) -> list[dict[str, Any]]:
    buttons = []
    for act in card.acts_for(email):
        if act not in ACTION_IDS or (act is Act.MESSAGE and card.archived):  # Remove label: in the Labels window;
            continue  # an archived dossier's messagerie is closed (the service sends nothing there)
        action = UNFOLLOW if act is Act.FOLLOW and card.followed_by(email) else ACTION_IDS[act]
        confirm = _confirm(lang, act, card.number) if act in CONFIRMED else None
        style = "primary" if act in (Act.START, Act.ACCEPT) else "danger" if act is Act.REFUSE else None
        correctable = act is Act.MESSAGE and card.state in WAITING
        buttons.append(_button(lang, action, f"{card.number}{CORRECTABLE if correctable else ''}", style, confirm))
    return buttons


def _button(lang: str, action: str, value: str, style: str | None, confirm: dict[str, Any] | None) -> dict[str, Any]:
    """An act's button: its label checked once per language (`_label`), its dossier's value and confirm added."""
    button = {**_label(lang, action), "value": value}
    if style is not None:
        button["style"] = style
    if confirm is not None:
        button["confirm"] = confirm
    return button


@functools.cache
def _label(lang: str, action: str) -> dict[str, Any]:
    """A button as every card shows it (a card has up to thirteen: their checks were a third of its
    CPU); shared by the cards, which are only ever sent, never changed."""
    return button_json(text(lang, f"desk.button.{action}"), action)


def _confirm(lang: str, act: Act, number: int) -> dict[str, Any]:
    words = text(lang, f"desk.confirm_{act.name.lower()}.text", number=number)
    return {**_asked(lang, act), "text": confirm_text_json(words)}


@functools.cache
def _asked(lang: str, act: Act) -> dict[str, Any]:
    """A confirm dialog's title and buttons, checked once per language; its text, which names the
    dossier, is each card's (`_confirm` puts it in the place kept here)."""
    name = act.name.lower()
    return confirm_json(text(lang, f"desk.confirm_{name}.title"), "", text(lang, f"desk.button.{ACTION_IDS[act]}"),
                        # "Cancel" beside "Cancel the correction request" would read as two ways of cancelling
                        text(lang, "desk.keep_correction" if act is Act.CANCEL_CORRECTION else "desk.cancel"))


def _state_line(lang: str, card: DossierCard) -> str:
    state = text(lang, f"desk.state.{card.state}") if card.state in STATES else card.state
    since = card.in_state_since
    return text(lang, "dossier.since", state=state, date=_day(lang, since)) if since else state


def _dates(lang: str, card: DossierCard) -> list[str]:
    found = []
    if card.dateDepot:
        found.append(text(lang, "dossier.deposited", date=_day(lang, card.dateDepot)))
    if card.decision_due and card.state in WAITING:
        found.append(text(lang, "desk.decision_due", date=_day(lang, card.decision_due)))
    return found


def _applicant_line(lang: str, card: DossierCard) -> str:
    wrote = card.applicant_wrote
    if wrote is None:
        return text(lang, "desk.applicant_silent")
    return text(lang, "desk.applicant_unanswered" if card.unanswered else "desk.applicant_wrote", date=_day(lang, wrote))


def _day(lang: str, moment: dt.datetime | dt.date) -> str:
    return _medium_date(lang, moment.date() if isinstance(moment, dt.datetime) else moment)


@functools.lru_cache(maxsize=4096)
def _medium_date(lang: str, day: dt.date) -> str:
    """A day as babel writes it (babel reads a moment's date alone): made once per day and language,
    for a card writes up to six dates, each through babel's pattern machinery (a tenth of the card's CPU)."""
    return format_date(day, format="medium", locale=lang)
