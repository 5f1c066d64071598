"""The windows that edit a dossier from what the service lists now: its labels (add, remove: the
démarche's labels, with their colours' names), its group (the démarche's open groups), its private
annotations (handlers.desk.annotating). Each opens at once on a line saying it is being read — the
click's trigger lasts 3 s, the service may take longer — and is then filled in, or says why not.
Their metadata names only the act and the dossier; what they offer is the service's list, and what
is chosen is sent as it is: the service refuses a label or group of another démarche, in words."""

from __future__ import annotations

from typing import Any

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    InputBlock,
    Option,
    SectionBlock,
    StaticMultiSelectElement,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from clients.dossiers.desk import Act, Choices, DossierCard
from handlers.blocks import fit, mrkdwn
from handlers.desk.card import label_words
from handlers.i18n import text

LABELS_MODAL = "dossier_labels_modal"
GROUP_MODAL = "dossier_regroup_modal"
ANNOTATIONS_MODAL = "dossier_annotations_modal"
READING = "dossier_reading"  # the window while it is read: nothing to submit
ADD, REMOVE, GROUP = "add", "remove", "group"
#: Slack's most options in a select, most characters of an option's text and value
MOST_OPTIONS, OPTION_TEXT, OPTION_VALUE = 100, 75, 150
#: each window's callback and the words of its title, by the act its button names
WINDOWS = {Act.ADD_LABEL: (LABELS_MODAL, "labels"), Act.REGROUP: (GROUP_MODAL, "regroup"),
           Act.ANNOTATE: (ANNOTATIONS_MODAL, "annotations")}


def reading(lang: str, act: Act, number: int) -> View:
    return View(type="modal", callback_id=READING, title=text(lang, f"desk.window.{WINDOWS[act][1]}.title"),
                close=text(lang, "desk.close"), blocks=[SectionBlock(text=mrkdwn(text(lang, "desk.window.reading", number=number)))])


def said(lang: str, act: Act, words: str) -> View:
    """The window saying why it shows nothing to edit."""
    return View(type="modal", callback_id=READING, title=text(lang, f"desk.window.{WINDOWS[act][1]}.title"),
                close=text(lang, "desk.close"), blocks=[SectionBlock(text=mrkdwn(words))])


def _window(lang: str, act: Act, number: int, blocks: list[Block]) -> View:
    callback, name = WINDOWS[act]
    return View(type="modal", callback_id=callback, private_metadata=f"{act.name}:{number}",
                title=text(lang, f"desk.window.{name}.title"), submit=text(lang, f"desk.window.{name}.submit"),
                close=text(lang, "desk.cancel"), blocks=blocks)


def labels_window(lang: str, card: DossierCard, choices: Choices) -> View:
    """Add (the démarche's labels not on it) and Remove (those on it), each a menu of at most 100."""
    on = {label.id for label in card.labels}
    offered = [label for label in choices.labels if label.id and len(label.id) <= OPTION_VALUE]
    blocks: list[Block] = [SectionBlock(text=mrkdwn(text(lang, "desk.window.labels.intro", number=card.number)))]
    for block, labels in ((ADD, [label for label in offered if label.id not in on]), (REMOVE, [mine for mine in card.labels if mine.id])):
        if labels:
            options = [Option(value=label.id, text=fit(label_words(lang, label.name, label.color), OPTION_TEXT))
                       for label in labels[:MOST_OPTIONS]]
            blocks.append(InputBlock(block_id=block, label=text(lang, f"desk.window.labels.{block}"), optional=True,
                                     element=StaticMultiSelectElement(action_id=block, options=options)))
    if len(blocks) == 1:
        blocks.append(ContextBlock(elements=[mrkdwn(text(lang, "desk.window.labels.none"))]))
    return _window(lang, Act.ADD_LABEL, card.number, blocks)


def group_window(lang: str, card: DossierCard, choices: Choices) -> View:
    """The démarche's open groups other than the dossier's; moving it may take it out of one's reach."""
    here = card.groupeInstructeur.id if card.groupeInstructeur else ""
    groups = [g for g in choices.groupeInstructeurs if g.id and g.id != here and len(g.id) <= OPTION_VALUE][:MOST_OPTIONS]
    blocks: list[Block] = [SectionBlock(text=mrkdwn(text(lang, "desk.window.regroup.intro", number=card.number,
                                                         group=card.groupeInstructeur.label if card.groupeInstructeur else "")))]
    if not groups:
        return said(lang, Act.REGROUP, text(lang, "desk.window.regroup.none", number=card.number))
    blocks.append(InputBlock(block_id=GROUP, label=text(lang, "desk.window.regroup.label"), element=StaticSelectElement(
        action_id=GROUP, options=[Option(value=g.id, text=fit(g.label or str(g.number), OPTION_TEXT)) for g in groups])))
    blocks.append(ContextBlock(elements=[mrkdwn(text(lang, "desk.window.regroup.reach"))]))
    return _window(lang, Act.REGROUP, card.number, blocks)


def chosen(state: dict[str, Any], block: str) -> list[str]:
    """The values chosen in a menu of the submitted window (one or several), as sent: the service checks them."""
    entry = ((state.get("values") or {}).get(block) or {}).get(block) or {}
    if not isinstance(entry, dict):
        return []
    options = entry.get("selected_options") or ([entry["selected_option"]] if entry.get("selected_option") else [])
    return [str(o.get("value"))[:OPTION_VALUE] for o in options if isinstance(o, dict) and o.get("value")][:MOST_OPTIONS]
