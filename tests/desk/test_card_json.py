"""The card's blocks are built as Slack's JSON (`handlers/blocks.py`'s `*_json` helpers), not with
slack_sdk's objects: the same JSON slack_sdk makes of the same arguments, and every limit slack_sdk
checks still refuses, with its own error, rather than reach Slack."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    Option,
    OverflowMenuElement,
    SectionBlock,
)

from handlers.blocks import (
    actions_json,
    button_json,
    confirm_json,
    context_json,
    mrkdwn,
    overflow_json,
    section_json,
)


def _confirm() -> dict[str, Any]:
    return confirm_json("Start?", "Dossier n° 12 &amp; co", "Start", "Cancel")


def _sdk_confirm() -> ConfirmObject:
    return ConfirmObject(title="Start?", text="Dossier n° 12 &amp; co", confirm="Start", deny="Cancel")


#: (the helper's JSON, slack_sdk's object for the same arguments)
SAME = [
    (lambda: section_json("s" * 3500 + "\n<https://x|a>"), lambda: SectionBlock(text=mrkdwn("s" * 3500 + "\n<https://x|a>"))),
    (lambda: context_json("a note", "another"), lambda: ContextBlock(elements=[mrkdwn("a note"), mrkdwn("another")])),
    (lambda: actions_json("acts", [button_json("Start", "dossier_start", value="12", style="primary", confirm=_confirm()),
                                   button_json("Open", "open", url="https://ds.example/12")]),
     lambda: ActionsBlock(block_id="acts", elements=[
         ButtonElement(text="Start", action_id="dossier_start", value="12", style="primary", confirm=_sdk_confirm()),
         ButtonElement(text="Open", action_id="open", url="https://ds.example/12")])),
    (lambda: actions_json("edits", []), lambda: ActionsBlock(block_id="edits", elements=[])),
    (lambda: actions_json("edits", [overflow_json("more", [("avis", "Ask an expert", "https://ds.example/avis"),
                                                           ("exports", "Exports", "https://ds.example/exports")])]),
     lambda: ActionsBlock(block_id="edits", elements=[OverflowMenuElement(action_id="more", options=[
         Option(value="avis", text="Ask an expert", url="https://ds.example/avis"),
         Option(value="exports", text="Exports", url="https://ds.example/exports")])])),
]


@pytest.mark.parametrize("pair", range(len(SAME)))
def test_the_helpers_make_the_json_slack_sdk_makes(pair: int) -> None:
    built, sdk = SAME[pair]
    assert built().to_dict() == sdk().to_dict()


def _link(url: str) -> tuple[str, str, str]:
    return ("v", "label", url)


#: each a limit slack_sdk checks: (the helper past it, slack_sdk's object past it)
PAST: list[tuple[Callable[[], object], Callable[[], object]]] = [
    (lambda: button_json("b" * 76, "a"), lambda: ButtonElement(text="b" * 76, action_id="a").to_dict()),
    (lambda: button_json("b", "a" * 256), lambda: ButtonElement(text="b", action_id="a" * 256).to_dict()),
    (lambda: button_json("b", "a", value="v" * 2001), lambda: ButtonElement(text="b", action_id="a", value="v" * 2001).to_dict()),
    (lambda: button_json("b", "a", url="u" * 3001), lambda: ButtonElement(text="b", action_id="a", url="u" * 3001).to_dict()),
    (lambda: button_json("b", "a", style="green"), lambda: ButtonElement(text="b", action_id="a", style="green").to_dict()),
    (lambda: confirm_json("t" * 101, "x", "c", "d"), lambda: ConfirmObject(title="t" * 101, text="x", confirm="c", deny="d").to_dict()),
    (lambda: confirm_json("t", "x" * 301, "c", "d"), lambda: ConfirmObject(title="t", text="x" * 301, confirm="c", deny="d").to_dict()),
    (lambda: confirm_json("t", "x", "c" * 31, "d"), lambda: ConfirmObject(title="t", text="x", confirm="c" * 31, deny="d").to_dict()),
    (lambda: confirm_json("t", "x", "c", "d" * 31), lambda: ConfirmObject(title="t", text="x", confirm="c", deny="d" * 31).to_dict()),
    (lambda: actions_json("acts", [button_json(str(i), f"a{i}") for i in range(26)]),
     lambda: ActionsBlock(elements=[ButtonElement(text=str(i), action_id=f"a{i}") for i in range(26)]).to_dict()),
    (lambda: actions_json("b" * 256, []), lambda: ActionsBlock(block_id="b" * 256, elements=[]).to_dict()),
    (lambda: context_json(*["c"] * 11), lambda: ContextBlock(elements=[mrkdwn("c")] * 11).to_dict()),
    (lambda: overflow_json("o", []), lambda: OverflowMenuElement(action_id="o", options=[]).to_dict()),
    (lambda: overflow_json("o", [_link("https://x")] * 6),
     lambda: OverflowMenuElement(action_id="o", options=[Option(value="v", text="label", url="https://x")] * 6).to_dict()),
    (lambda: overflow_json("o", [("v", "l" * 76, "https://x")]),
     lambda: OverflowMenuElement(action_id="o", options=[Option(value="v", text="l" * 76, url="https://x")]).to_dict()),
    (lambda: overflow_json("o", [("v" * 151, "l", "https://x")]),
     lambda: OverflowMenuElement(action_id="o", options=[Option(value="v" * 151, text="l", url="https://x")]).to_dict()),
]


@pytest.mark.parametrize("past", range(len(PAST)))
def test_every_limit_slack_sdk_checks_still_refuses(past: int) -> None:
    built, sdk = PAST[past]
    with pytest.raises(SlackObjectFormationError):
        sdk()  # the limit is one slack_sdk holds
    with pytest.raises(SlackObjectFormationError):
        built()
