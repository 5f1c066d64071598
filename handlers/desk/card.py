"""A dossier's card, as `/dossier` shows it to one person: its démarche, state and since when,
deposit, SVA/SVR date, group, when the applicant last wrote, whether they follow it, a link to it on
the service — and, for an instructeur of its group, a button per act the state allows. Nothing the
applicant filled in is shown; every text from the service is escaped."""

from __future__ import annotations

import datetime as dt

from babel.dates import format_date
from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement, ConfirmObject, ContextBlock, SectionBlock

from clients.dossiers.desk import Act, DossierCard, Seen
from clients.dossiers.models import STATES
from handlers.blocks import Message, link_mrkdwn, mrkdwn
from handlers.core.dossier_links import dossier_url
from handlers.i18n import Mrkdwn, text

#: each act's button, by its action id; Follow shows "Unfollow" when the person follows it
ACTION_IDS = {Act.START: "dossier_start", Act.ACCEPT: "dossier_accept", Act.REFUSE: "dossier_refuse",
              Act.CLOSE: "dossier_close", Act.REOPEN: "dossier_reopen", Act.MESSAGE: "dossier_message",
              Act.FOLLOW: "dossier_follow", Act.REINSTRUCT: "dossier_reinstruct", Act.ARCHIVE: "dossier_archive",
              Act.UNARCHIVE: "dossier_unarchive", Act.CANCEL_CORRECTION: "dossier_cancel_correction",
              Act.DELETE_MESSAGE: "dossier_delete_message"}
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
    facts.append(_applicant_line(lang, card))
    if seen.instructeur_id is not None:
        facts.append(text(lang, "desk.following" if card.followed_by(email) else "desk.not_following"))
    lines.append(" · ".join(facts))
    if demarche:
        lines.append(link_mrkdwn(dossier_url(site, demarche.number, card.number), text(lang, "desk.open_link")))
    blocks: list[Block] = [SectionBlock(text=mrkdwn("\n".join(lines)))]
    buttons = act_buttons(lang, card, email)
    if buttons:
        blocks.append(ActionsBlock(elements=buttons))
    elif seen.administrator:
        blocks.append(ContextBlock(elements=[mrkdwn(text(lang, "desk.admin_only"))]))
    if note:
        blocks.append(ContextBlock(elements=[mrkdwn(note)]))
    return Message(text=text(lang, "dossier.title", number=card.number), blocks=blocks)


def act_buttons(lang: str, card: DossierCard, email: str) -> list[ButtonElement]:
    buttons = []
    for act in card.acts_for(email):
        action = UNFOLLOW if act is Act.FOLLOW and card.followed_by(email) else ACTION_IDS[act]
        confirm = _confirm(lang, act, card.number) if act in CONFIRMED else None
        style = "primary" if act in (Act.START, Act.ACCEPT) else "danger" if act is Act.REFUSE else None
        correctable = act is Act.MESSAGE and card.state in ("en_construction", "en_instruction")
        buttons.append(ButtonElement(text=text(lang, f"desk.button.{action}"), action_id=action,
                                     value=f"{card.number}{CORRECTABLE if correctable else ''}", style=style, confirm=confirm))
    return buttons


def _confirm(lang: str, act: Act, number: int) -> ConfirmObject:
    name = act.name.lower()
    return ConfirmObject(title=text(lang, f"desk.confirm_{name}.title"), text=text(lang, f"desk.confirm_{name}.text", number=number),
                         confirm=text(lang, f"desk.button.{ACTION_IDS[act]}"), deny=text(lang, "desk.cancel"))


def _state_line(lang: str, card: DossierCard) -> str:
    state = text(lang, f"desk.state.{card.state}") if card.state in STATES else card.state
    since = card.in_state_since
    return text(lang, "dossier.since", state=state, date=_day(lang, since)) if since else state


def _dates(lang: str, card: DossierCard) -> list[str]:
    found = []
    if card.dateDepot:
        found.append(text(lang, "dossier.deposited", date=_day(lang, card.dateDepot)))
    if card.decision_due and card.state in ("en_construction", "en_instruction"):
        found.append(text(lang, "desk.decision_due", date=_day(lang, card.decision_due)))
    return found


def _applicant_line(lang: str, card: DossierCard) -> str:
    wrote = card.applicant_wrote
    if wrote is None:
        return text(lang, "desk.applicant_silent")
    return text(lang, "desk.applicant_unanswered" if card.unanswered else "desk.applicant_wrote", date=_day(lang, wrote))


def _day(lang: str, moment: dt.datetime | dt.date) -> str:
    return format_date(moment, format="medium", locale=lang)
