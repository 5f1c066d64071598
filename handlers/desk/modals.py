"""The windows an act needs words for: a decision's motivation (required to refuse or to close,
as the service requires; the applicant is e-mailed either way) and a message to the applicant
(with a correction asked where the service takes one); the choice of one's own message to delete.
Their metadata names only the act and the dossier: who may act, and which messages are theirs, is
read again when they are submitted."""

from __future__ import annotations

import unicodedata
from typing import Any

from babel.dates import format_datetime
from slack_sdk.models.blocks import (
    ContextBlock,
    InputBlock,
    Option,
    PlainTextInputElement,
    SectionBlock,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from clients.dossiers.desk import CORRECTIONS, DECISIONS, Act, Written
from clients.dossiers.models import moment_of
from handlers.blocks import mrkdwn, view_input
from handlers.desk.files import file_block
from handlers.i18n import text

DECISION_MODAL = "dossier_decision"
MESSAGE_MODAL = "dossier_message_modal"
DELETION_MODAL = "dossier_delete_message_modal"
CHOSEN = "message"  # the block and action id of the message to delete
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
            file_block(lang),
            ContextBlock(elements=[mrkdwn(text(lang, "desk.modal.emailed"))]),
        ],
    )


def message_modal(lang: str, number: int, *, correction: bool) -> View:
    """`correction`: the dossier's state lets the service take one (en construction or under review)."""
    blocks: list[Any] = [
        # optional for Slack: a file may go with no words (the submission refuses neither)
        InputBlock(block_id=WORDS, label=text(lang, "desk.modal.message_label"), optional=True,
                   element=PlainTextInputElement(action_id=WORDS, multiline=True, max_length=MOST_WORDS)),
    ]
    if correction:
        options = [Option(value=reason, text=text(lang, f"desk.correction.{reason}")) for reason in CORRECTIONS]
        blocks.append(InputBlock(block_id=CORRECTION, label=text(lang, "desk.modal.correction_label"), optional=True,
                                 hint=text(lang, "desk.modal.correction_hint"),
                                 element=StaticSelectElement(action_id=CORRECTION, options=options)))
    blocks.append(file_block(lang))
    blocks.append(ContextBlock(elements=[mrkdwn(text(lang, "desk.modal.message_emailed"))]))
    return View(type="modal", callback_id=MESSAGE_MODAL, private_metadata=f"{Act.MESSAGE.name}:{number}",
                title=text(lang, "desk.modal.message.title"), submit=text(lang, "desk.modal.message.submit"),
                close=text(lang, "desk.cancel"), blocks=blocks)


def deletion_modal(lang: str, number: int, messages: list[Written] | None) -> View:
    """The choice of one of the person's own messages to delete; None: still being read (the window
    opens at once, whatever the service's speed, and is filled in when the messages come)."""
    blocks: list[Any]
    if messages is None:
        blocks = [SectionBlock(text=mrkdwn(text(lang, "desk.modal.delete_reading", number=number)))]
    elif not messages:
        blocks = [SectionBlock(text=mrkdwn(text(lang, "desk.modal.delete_none", number=number)))]
    else:
        options = [Option(value=m.id[:150], text=_excerpt(lang, m)) for m in messages[:100]]
        blocks = [InputBlock(block_id=CHOSEN, label=text(lang, "desk.modal.delete_label"),
                             element=StaticSelectElement(action_id=CHOSEN, options=options)),
                  ContextBlock(elements=[mrkdwn(text(lang, "desk.modal.delete_hint"))])]
    return View(type="modal", callback_id=DELETION_MODAL, private_metadata=f"{Act.DELETE_MESSAGE.name}:{number}",
                title=text(lang, "desk.modal.delete.title"), close=text(lang, "desk.cancel"),
                submit=text(lang, "desk.modal.delete.submit") if messages else None, blocks=blocks)


def _excerpt(lang: str, message: Written) -> str:
    """How a message is named in the choice: its day and its first words (an option takes 75 characters)."""
    when = moment_of(message.createdAt)
    day = format_datetime(when, format="short", locale=lang) if when else ""
    files = ", ".join(f"📎 {attached.filename}" for attached in message.attachments if attached.filename)
    words = " ".join(message.body.split()) or files or "…"  # a file sent alone is named by its file
    line = f"{day} · {words}" if day else words
    return line if len(line) <= 75 else line[:74] + "…"


def chosen_message(view: dict[str, Any]) -> str:
    """The message chosen to delete: an id the act checks against the dossier, never trusts."""
    return str((view_input(view, CHOSEN).get("selected_option") or {}).get("value") or "")[:150]


def named(view: dict[str, Any]) -> tuple[Act, int] | None:
    """The act and dossier a submitted window is about (nothing else is read from it)."""
    name, _, number = str(view.get("private_metadata", "")).partition(":")
    act = Act.__members__.get(name)
    if act is None or not number.isdecimal() or len(number) > 12 \
            or (act not in DECISIONS and act not in (Act.MESSAGE, Act.DELETE_MESSAGE)):
        return None
    return act, int(number)


def words_of(view: dict[str, Any]) -> str:
    """The words typed, whole: never cut (what is sent is what was written, or nothing)."""
    return str(view_input(view, WORDS).get("value") or "").strip()


def words_refused(act: Act, words: str, *, with_file: bool = False) -> tuple[str, dict[str, int]] | None:
    """Why the window's words cannot go to the applicant (a text's key and its values), or None.
    Slack's window stops at `MOST_WORDS`, so longer words were forged: refused, not cut; words
    made only of invisible characters (zero-width spaces, joiners, fillers) are no motivation. A
    message may go with a file and no words (the service takes an empty body with an attachment)."""
    if len(words) > MOST_WORDS:
        return "desk.modal.too_long", {"most": MOST_WORDS, "count": len(words)}
    if words and not any(_visible(char) for char in words):
        return "desk.modal.invisible", {}
    if not words and act is Act.MESSAGE and not with_file:
        return "desk.modal.message_needed", {}
    if not words and act not in (Act.ACCEPT, Act.DELETE_MESSAGE, Act.MESSAGE):  # the service takes no refusal or closing without words
        return "desk.modal.words_needed", {}
    return None


#: characters drawn as nothing that Unicode does not class as format or space characters
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")


def _visible(char: str) -> bool:
    return not char.isspace() and char not in _FILLERS and unicodedata.category(char)[0] not in "CZ" \
        and unicodedata.category(char) not in ("Mn", "Me")


def correction_of(view: dict[str, Any]) -> str | None:
    chosen = str((view_input(view, CORRECTION).get("selected_option") or {}).get("value") or "")
    return chosen if chosen in CORRECTIONS else None
