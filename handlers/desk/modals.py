"""The windows an act needs words for: a decision's motivation (required to refuse or to close,
as the service requires; the applicant is e-mailed either way) and a message to the applicant
(with a correction asked where the service takes one). Their metadata names only the act and the
dossier: who may act is read again when they are submitted."""

from __future__ import annotations

from typing import Any

from slack_sdk.models.blocks import (
    ContextBlock,
    InputBlock,
    Option,
    PlainTextInputElement,
    SectionBlock,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from clients.dossiers.desk import CORRECTIONS, DECISIONS, Act
from handlers.blocks import mrkdwn
from handlers.i18n import text

DECISION_MODAL = "dossier_decision"
MESSAGE_MODAL = "dossier_message_modal"
WORDS = "words"  # the block and action id of the text input
CORRECTION = "correction"
MOST_WORDS = 3000  # Slack's most for a text input


def decision_modal(lang: str, act: Act, number: int) -> View:
    required = act is not Act.ACCEPT  # the service takes no refusal or closing without a motivation
    name = act.name.lower()
    return View(
        type="modal", callback_id=DECISION_MODAL, private_metadata=f"{act.name}:{number}",
        title=text(lang, f"desk.modal.{name}.title"), submit=text(lang, f"desk.modal.{name}.submit"),
        close=text(lang, "desk.cancel"),
        blocks=[
            SectionBlock(text=mrkdwn(text(lang, f"desk.modal.{name}.intro", number=number))),
            InputBlock(block_id=WORDS, label=text(lang, "desk.modal.motivation"), optional=not required,
                       element=PlainTextInputElement(action_id=WORDS, multiline=True, max_length=MOST_WORDS)),
            ContextBlock(elements=[mrkdwn(text(lang, "desk.modal.emailed"))]),
        ],
    )


def message_modal(lang: str, number: int, *, correction: bool) -> View:
    """`correction`: the dossier's state lets the service take one (en construction or under review)."""
    blocks: list[Any] = [
        InputBlock(block_id=WORDS, label=text(lang, "desk.modal.message_label"),
                   element=PlainTextInputElement(action_id=WORDS, multiline=True, max_length=MOST_WORDS)),
    ]
    if correction:
        options = [Option(value=reason, text=text(lang, f"desk.correction.{reason}")) for reason in CORRECTIONS]
        blocks.append(InputBlock(block_id=CORRECTION, label=text(lang, "desk.modal.correction_label"), optional=True,
                                 hint=text(lang, "desk.modal.correction_hint"),
                                 element=StaticSelectElement(action_id=CORRECTION, options=options)))
    blocks.append(ContextBlock(elements=[mrkdwn(text(lang, "desk.modal.message_emailed"))]))
    return View(type="modal", callback_id=MESSAGE_MODAL, private_metadata=f"{Act.MESSAGE.name}:{number}",
                title=text(lang, "desk.modal.message.title"), submit=text(lang, "desk.modal.message.submit"),
                close=text(lang, "desk.cancel"), blocks=blocks)


def named(view: dict[str, Any]) -> tuple[Act, int] | None:
    """The act and dossier a submitted window is about (nothing else is read from it)."""
    name, _, number = str(view.get("private_metadata", "")).partition(":")
    act = Act.__members__.get(name)
    if act is None or not number.isdecimal() or len(number) > 12 or (act not in DECISIONS and act is not Act.MESSAGE):
        return None
    return act, int(number)


def words_of(view: dict[str, Any]) -> str:
    found = ((view.get("state") or {}).get("values") or {}).get(WORDS, {}).get(WORDS) or {}
    return str(found.get("value") or "").strip()[:MOST_WORDS]


def correction_of(view: dict[str, Any]) -> str | None:
    found = ((view.get("state") or {}).get("values") or {}).get(CORRECTION, {}).get(CORRECTION) or {}
    chosen = str((found.get("selected_option") or {}).get("value") or "")
    return chosen if chosen in CORRECTIONS else None
