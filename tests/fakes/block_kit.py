"""Block Kit as Slack checks it: the block types each surface takes, text lengths, element counts.

The limits are the ones Slack documents (docs.slack.dev's Block Kit reference, repeated in the
doc comments of `slackapi/node-slack-sdk: packages/types/src/block-kit/*.ts` and `views.ts`). A
payload that breaks one is refused as Slack refuses it: `invalid_blocks`, with a message naming
the path to what is wrong. Within one block every interactive element needs its own `action_id`
(slack-platform.md §14: two "Open" buttons sharing one get the whole message or view refused).
Only what the bot builds is covered; anything else is refused too, so a new kind of block in the
bot is a failing test until it is covered here.
"""

from __future__ import annotations

from typing import Any

SURFACE_BLOCKS = {
    "message": {"section", "context", "actions", "header", "divider", "image", "rich_text", "markdown"},
    "modal": {"section", "context", "actions", "header", "divider", "image", "input", "rich_text"},
    "home": {"section", "context", "actions", "header", "divider", "image", "input", "rich_text"},
}
MAX_BLOCKS = {"message": 50, "modal": 100, "home": 100}
SECTION_ACCESSORIES = {"button", "static_select", "image", "overflow", "checkboxes", "radio_buttons", "datepicker",
                       "timepicker", "users_select", "conversations_select", "channels_select"}
ACTION_ELEMENTS = {"button", "static_select", "overflow", "checkboxes", "radio_buttons", "datepicker", "timepicker",
                   "datetimepicker", "users_select", "conversations_select", "channels_select", "multi_users_select"}
INPUT_ELEMENTS = {"plain_text_input", "static_select", "checkboxes", "radio_buttons", "datepicker", "timepicker",
                  "datetimepicker", "users_select", "multi_users_select", "conversations_select", "channels_select",
                  "number_input", "email_text_input", "url_text_input", "multi_static_select", "file_input"}


class Invalid(Exception):
    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"{why} [json-pointer:{path}]")


def check_blocks(blocks: Any, surface: str = "message", where: str = "/blocks") -> None:
    """Raises `Invalid` naming the first thing Slack would refuse (`where`: the blocks' path)."""
    if not isinstance(blocks, list):
        raise Invalid(where, "must be an array")
    if len(blocks) > MAX_BLOCKS[surface]:
        raise Invalid(where, f"no more than {MAX_BLOCKS[surface]} items allowed")
    seen_ids: set[str] = set()
    for index, block in enumerate(blocks):
        path = f"{where}/{index}"
        kind = _kind(block, path)
        if kind not in SURFACE_BLOCKS[surface]:
            raise Invalid(f"{path}/type", f"block type {kind!r} is not allowed in a {surface}")
        block_id = block.get("block_id")
        if block_id is not None:
            _length(block_id, 255, f"{path}/block_id")
            if block_id in seen_ids:
                raise Invalid(f"{path}/block_id", "must be unique")
            seen_ids.add(block_id)
        _BLOCKS[kind](block, path)


def check_view(view: Any) -> None:
    if not isinstance(view, dict):
        raise Invalid("/view", "must be an object")
    kind = view.get("type")
    if kind not in ("modal", "home"):
        raise Invalid("/view/type", "must be modal or home")
    if kind == "modal":
        _text(view.get("title"), "/view/title", 24, plain=True)
        for button in ("submit", "close"):
            if button in view:
                _text(view[button], f"/view/{button}", 24, plain=True)
        if "submit" not in view and any(b.get("type") == "input" for b in view.get("blocks") or [] if isinstance(b, dict)):
            raise Invalid("/view/submit", "a modal with input blocks must have a submit button")
    _length(view.get("private_metadata", ""), 3000, "/view/private_metadata")
    _length(view.get("callback_id", ""), 255, "/view/callback_id")
    check_blocks(view.get("blocks"), kind, "/view/blocks")


def check_unfurls(unfurls: Any) -> None:
    if not isinstance(unfurls, dict):
        raise Invalid("/unfurls", "must be an object")
    for url, unfurl in unfurls.items():
        if not isinstance(unfurl, dict) or "blocks" not in unfurl:
            raise Invalid(f"/unfurls/{url}", "must have blocks")
        check_blocks(unfurl["blocks"], "message", f"/unfurls/{url}/blocks")


def _kind(node: Any, path: str) -> str:
    if not isinstance(node, dict) or not isinstance(node.get("type"), str):
        raise Invalid(f"{path}/type", "must be provided")
    return str(node["type"])


def _length(value: Any, most: int, path: str, least: int = 0) -> None:
    if not isinstance(value, str):
        raise Invalid(path, "must be a string")
    if len(value) > most:
        raise Invalid(path, f"must be less than {most + 1} characters")
    if len(value) < least:
        raise Invalid(path, f"must be more than {least - 1} characters")


def _text(node: Any, path: str, most: int, *, plain: bool = False) -> None:
    kind = _kind(node, path)
    if kind not in ("plain_text", "mrkdwn") or (plain and kind != "plain_text"):
        raise Invalid(f"{path}/type", "must be plain_text" if plain else "must be plain_text or mrkdwn")
    if kind == "plain_text" and "verbatim" in node:
        raise Invalid(f"{path}/verbatim", "is not allowed on plain_text")
    if kind == "mrkdwn" and "emoji" in node:
        raise Invalid(f"{path}/emoji", "is not allowed on mrkdwn")
    _length(node.get("text"), most, f"{path}/text", least=1)


def _section(block: dict[str, Any], path: str) -> None:
    if "text" not in block and "fields" not in block:
        raise Invalid(path, "must have text or fields")
    if "text" in block:
        _text(block["text"], f"{path}/text", 3000)
    fields = block.get("fields")
    if fields is not None:
        if not isinstance(fields, list) or not 1 <= len(fields) <= 10:
            raise Invalid(f"{path}/fields", "must have 1 to 10 items")
        for index, field in enumerate(fields):
            _text(field, f"{path}/fields/{index}", 2000)
    if "accessory" in block:
        _element(block["accessory"], f"{path}/accessory", SECTION_ACCESSORIES)


def _context(block: dict[str, Any], path: str) -> None:
    elements = block.get("elements")
    if not isinstance(elements, list) or not 1 <= len(elements) <= 10:
        raise Invalid(f"{path}/elements", "must have 1 to 10 items")
    for index, element in enumerate(elements):
        if _kind(element, f"{path}/elements/{index}") == "image":
            _length(element.get("alt_text"), 2000, f"{path}/elements/{index}/alt_text", least=1)
        else:
            _text(element, f"{path}/elements/{index}", 3000)


def _actions(block: dict[str, Any], path: str) -> None:
    elements = block.get("elements")
    if not isinstance(elements, list) or not 1 <= len(elements) <= 25:
        raise Invalid(f"{path}/elements", "must have 1 to 25 items")
    seen_ids: set[str] = set()
    for index, element in enumerate(elements):
        _element(element, f"{path}/elements/{index}", ACTION_ELEMENTS)
        action_id = element.get("action_id")
        if action_id is not None:
            if action_id in seen_ids:
                raise Invalid(f"{path}/elements/{index}/action_id", "must be unique within the block")
            seen_ids.add(action_id)


def _header(block: dict[str, Any], path: str) -> None:
    _text(block.get("text"), f"{path}/text", 150, plain=True)


def _input(block: dict[str, Any], path: str) -> None:
    _text(block.get("label"), f"{path}/label", 2000, plain=True)
    if "hint" in block:
        _text(block["hint"], f"{path}/hint", 2000, plain=True)
    _element(block.get("element"), f"{path}/element", INPUT_ELEMENTS)


def _image(block: dict[str, Any], path: str) -> None:
    _length(block.get("alt_text"), 2000, f"{path}/alt_text", least=1)
    _length(block.get("image_url"), 3000, f"{path}/image_url", least=1)


def _markdown(block: dict[str, Any], path: str) -> None:
    _length(block.get("text"), 12_000, f"{path}/text", least=1)


def _nothing(block: dict[str, Any], path: str) -> None:
    return None


_BLOCKS = {"section": _section, "context": _context, "actions": _actions, "header": _header, "divider": _nothing,
           "image": _image, "input": _input, "markdown": _markdown, "rich_text": _nothing}


def _element(element: Any, path: str, allowed: set[str]) -> None:
    kind = _kind(element, path)
    if kind not in allowed:
        raise Invalid(f"{path}/type", f"element type {kind!r} is not allowed here")
    if "action_id" in element:
        _length(element["action_id"], 255, f"{path}/action_id")
    if kind == "button":
        _text(element.get("text"), f"{path}/text", 75, plain=True)
        if "value" in element:
            _length(element["value"], 2000, f"{path}/value")
        if "url" in element:
            _length(element["url"], 3000, f"{path}/url", least=1)
        if element.get("style") not in (None, "primary", "danger"):
            raise Invalid(f"{path}/style", "must be primary or danger")
    if "confirm" in element:
        _confirm(element["confirm"], f"{path}/confirm")
    if "placeholder" in element:
        _text(element["placeholder"], f"{path}/placeholder", 150, plain=True)
    if kind in ("static_select", "checkboxes", "radio_buttons", "overflow", "multi_static_select"):
        options = element.get("options")
        most = {"checkboxes": 10, "radio_buttons": 10, "overflow": 5}.get(kind, 100)
        if not isinstance(options, list) or not 1 <= len(options) <= most:
            raise Invalid(f"{path}/options", f"must have 1 to {most} items")
        for index, option in enumerate(options):
            _text(option.get("text") if isinstance(option, dict) else None, f"{path}/options/{index}/text", 75)
            _length(option.get("value"), 150, f"{path}/options/{index}/value", least=1)
        initial = element.get("initial_option")
        if initial is not None and initial not in options:
            raise Invalid(f"{path}/initial_option", "must be one of the options")
    if kind == "plain_text_input" and not 0 <= int(element.get("max_length", 3000)) <= 3000:
        raise Invalid(f"{path}/max_length", "must be at most 3000")
    if kind == "file_input" and not 1 <= int(element.get("max_files", 10)) <= 10:
        raise Invalid(f"{path}/max_files", "must be between 1 and 10")
    if kind == "multi_users_select" and not 1 <= int(element.get("max_selected_items", 1)) <= 100:
        raise Invalid(f"{path}/max_selected_items", "must be between 1 and 100")


def _confirm(dialog: Any, path: str) -> None:
    """A confirmation dialog: title 100, text 300, its two buttons 30 characters each."""
    if not isinstance(dialog, dict):
        raise Invalid(path, "must be an object")
    _text(dialog.get("title"), f"{path}/title", 100, plain=True)
    _text(dialog.get("text"), f"{path}/text", 300)
    for button in ("confirm", "deny"):
        if button in dialog:
            _text(dialog[button], f"{path}/{button}", 30, plain=True)
    if dialog.get("style") not in (None, "primary", "danger"):
        raise Invalid(f"{path}/style", "must be primary or danger")
