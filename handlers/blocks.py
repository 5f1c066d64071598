"""Block Kit primitives every message builder shares: a reply, its limits, links, the Join button.

Built with slack_sdk.models, which checks Slack's limits as a message is turned into JSON (its
checks found once per class here: `_validate_json`) and raises rather than send: a text past a
limit would cost the whole answer. So texts enter blocks through `mrkdwn` and `header` here, which
cut them to Slack's limits with an ellipsis (`fit`): a démarche title of 3,000 characters, a
service's long words, shorten; the message still goes. Every mrkdwn text is sent `verbatim`: Slack
then turns no bare URL, channel name or mention in it into a link, so text from a service or a
person (a démarche title, an AI line, an error's words) shows as written; the bot's own links and
mentions are written out in full (`<url|label>`, `<@U…>`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.basic_objects import EMPTY_ALLOWED_TYPE_AND_PROPERTY_LIST, JsonObject
from slack_sdk.models.blocks import Block, ButtonElement, HeaderBlock, MarkdownTextObject, SectionBlock

from handlers.i18n import Mrkdwn, escape, text

ACTION_OPEN = "room_open"

_VALIDATORS: dict[type, tuple[str, ...]] = {}


def _validate_json(self: JsonObject) -> None:
    """slack_sdk's `JsonObject.validate_json`, with each class's validators found once.

    slack_sdk looks for them with `dir()` on every object each time it becomes JSON: 77 % of the
    CPU a message costs (20 blocks with buttons, a `/room list` of ten rooms: 7.9 ms → 1.8 ms).
    Validators are methods of the class, so the same ones run, in the same (sorted) order, and
    raise the same `SlackObjectFormationError`."""
    kind = type(self)
    names = _VALIDATORS.get(kind)
    if names is None:
        names = _VALIDATORS[kind] = tuple(name for name in dir(kind)
                                          if not name.startswith("__") and hasattr(getattr(kind, name, None), "validator"))
    for name in names:
        getattr(self, name)()


JsonObject.validate_json = _validate_json  # type: ignore[method-assign]

#: the (type, property) pairs whose empty list is sent (rich text's elements), as slack_sdk lists them
_EMPTY_ALLOWED = {(allowed["type"], allowed["property"]) for allowed in EMPTY_ALLOWED_TYPE_AND_PROPERTY_LIST}


def _non_null_attributes(self: JsonObject) -> dict[str, Any]:
    """slack_sdk's `JsonObject.get_non_null_attributes` (what `to_dict` returns once validated):
    the same keys, in the same sorted order, the same values, without the two closures it makes
    and the list of exceptions it walks for every attribute of every object. A new room's message
    built and made a dict: 94–102 → 64 µs; a page of ten rooms 391–421 → 274–281 µs (in-process)."""
    kind = getattr(self, "type", None)
    kept: dict[str, Any] = {}
    for name in sorted(self.attributes):
        value = self.get_object_attribute(name)
        if value is None:
            continue
        if getattr(value, "__len__", None) is not None and not len(value) and (kind, name) not in _EMPTY_ALLOWED:
            continue
        kept[name] = _compatible(value)
    return kept


#: values taken as they are, by exact type (a subclass may have a `to_dict`): most of a message's
_AS_THEY_ARE = {str, bool, int, float, dict, type(None)}


def _compatible(value: Any) -> Any:
    """A value as JSON takes it: objects by their `to_dict`, one level of their values too, as slack_sdk does."""
    if type(value) in _AS_THEY_ARE:
        return value
    if isinstance(value, (list, tuple)):
        return [_compatible(item) for item in value]
    to_dict = getattr(value, "to_dict", None)
    if to_dict and callable(to_dict):
        return {name: _compatible(item) for name, item in to_dict().items()}
    return value


JsonObject.get_non_null_attributes = _non_null_attributes  # type: ignore[method-assign]

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000  # a section's or a context element's text
MAX_HEADER_TEXT = 150
ELLIPSIS = "…"
_MIDDLE = " … "
#: a line cut in its middle keeps up to this much of its end: what follows a long title (its
#: number, what needs doing) stays in view
KEPT_TAIL = 200
WORD_SEARCH = 20  # a cut moves back this far at most to fall between words


@dataclass(frozen=True)
class Message:
    """A reply: notification text plus blocks, ready for `respond(**message.payload())`."""

    text: str
    blocks: list[Block]

    def payload(self, **extra: Any) -> dict[str, Any]:
        assert len(self.blocks) <= MAX_BLOCKS, "builders must keep under Slack's 50-block cap"
        return {"text": self.text, "blocks": [block.to_dict() for block in self.blocks], **extra}


def mrkdwn(words: str, most: int = MAX_SECTION_TEXT) -> MarkdownTextObject:
    """A section's or context's text, cut to `most` characters (`fit`)."""
    return MarkdownTextObject(text=fit(words, most), verbatim=True)


def header(words: str) -> HeaderBlock:
    """A header, its text cut to Slack's 150 characters."""
    return HeaderBlock(text=fit(words, MAX_HEADER_TEXT))


def plain(lang_text: str) -> Message:
    """One section of text, cut to Slack's limit (a builder's slip must not cost the answer)."""
    shown = fit(lang_text, MAX_SECTION_TEXT)
    return Message(text=shown, blocks=[SectionBlock(text=mrkdwn(shown))])


def fit(words: str, most: int) -> str:
    """`words` within `most` characters: the longest line shortened in its middle first (a card's
    facts and link, a line's end after a long title stay), else the end cut; an ellipsis where
    words were left out. No cut falls inside a link or mention (`<…>`) or an escape (`&amp;`),
    which Slack would show broken: those go whole."""
    while len(words) > most:
        lines = words.split("\n")
        longest = max(range(len(lines)), key=lambda index: len(lines[index]))
        keep = len(lines[longest]) - (len(words) - most) - len(_MIDDLE)
        if keep < 2 or (len(lines) == 1 and keep < KEPT_TAIL):
            return _head(words, most - len(ELLIPSIS)) + ELLIPSIS
        line = lines[longest]
        tail = min(KEPT_TAIL, keep // 2)
        lines[longest] = _head(line, keep - tail) + _MIDDLE + _tail(line, tail)
        words = "\n".join(lines)
    return words


def _head(words: str, most: int) -> str:
    """At most `most` characters from the start, ending outside any `<…>` and `&…;`."""
    kept = words[:max(most, 0)]
    space = kept.rfind(" ", len(kept) - WORD_SEARCH)
    if len(kept) < len(words) and space > 0 and words[len(kept)] != " ":  # a whole word, not half of one
        kept = kept[:space]
    opened = kept.rfind("<")
    if opened > kept.rfind(">"):
        kept = kept[:opened]
    amp = kept.rfind("&")
    if amp >= 0 and ";" not in kept[amp:] and ";" in words[amp:amp + 8]:
        kept = kept[:amp]
    return kept.rstrip()


def _tail(words: str, most: int) -> str:
    """At most `most` characters from the end, starting outside any `<…>` and `&…;`."""
    if most <= 0:
        return ""
    start = len(words) - most
    space = words.find(" ", start, start + WORD_SEARCH)
    if start > 0 and space >= 0 and words[start - 1] != " ":  # a whole word, not half of one
        start = space + 1
    kept = words[start:]
    closed = kept.find(">")
    if closed >= 0 and closed < (kept.find("<") if "<" in kept else len(kept)):
        kept = kept[closed + 1:]
    amp = words.rfind("&", 0, start)
    semi = words.find(";", start)
    if amp >= 0 and ";" not in words[amp:start] and 0 <= semi < amp + 8:
        kept = words[semi + 1:]
    return kept


def link_mrkdwn(url: str, label: str | None = None) -> Mrkdwn:
    """`<url|label>`; a `|` in the address is percent-encoded, or the service would pick the label."""
    return Mrkdwn(f"<{escape(url.replace('|', '%7C'))}|{escape(label or url)}>")


def join_button(lang: str, url: str, *, primary: bool = True) -> ButtonElement:
    return ButtonElement(text=text(lang, "button.open"), action_id=ACTION_OPEN, url=url, style="primary" if primary else None)


def join_button_json(lang: str, url: str) -> dict[str, Any]:
    """`join_button` as JSON (`button_json`), for the messages built so."""
    return button_json(text(lang, "button.open"), ACTION_OPEN, url=url, style="primary")


def view_input(view: dict[str, Any], block: str, action: str | None = None) -> dict[str, Any]:
    """What a submitted window holds for one input (its block, and its element: `action`, or the
    block's own id as the windows here name both alike); `{}` for anything missing or forged into
    another shape, so a listener reads Slack's answer without trusting its shape."""
    found: Any = view.get("state")
    for part in ("values", block, action or block):
        found = found.get(part) if isinstance(found, dict) else None
    return found if isinstance(found, dict) else {}


# --- Block Kit as plain JSON, for a hot path -------------------------------------------------
# A `/dossier` card is a reply of every look-up: making its ~15 slack_sdk objects and turning them
# into JSON (each attribute of each object read through its validators) was a tenth of the CPU a
# look-up costs (py-spy, bursts of 300). The helpers below make the same JSON as plain dicts and
# check the same limits as slack_sdk's validators, raising its `SlackObjectFormationError`: a
# builder's slip still fails loudly rather than reach Slack. Texts are taken as given: escaping is
# the caller's, as with slack_sdk's objects (`text()` escapes what it is handed).

MAX_ACTIONS = 25
MAX_CONTEXT = 10
MAX_OVERFLOW = 5
MAX_ID = 255  # block ids and action ids
MAX_BUTTON_TEXT = 75  # a button's label, an option's
MAX_BUTTON_VALUE = 2000
MAX_OPTION_VALUE = 150
MAX_URL = 3000
MAX_CONFIRM = {"title": 100, "text": 300, "confirm": 30, "deny": 30}


class Built(Block):
    """A block already in Slack's JSON, checked by the helpers below as it was made."""

    def __init__(self, value: dict[str, Any]) -> None:
        super().__init__(type=value["type"], block_id=value.get("block_id"))
        self.value = value

    def to_dict(self, *_: Any) -> dict[str, Any]:
        return self.value


def _check(holds: bool, what: str) -> None:
    if not holds:
        raise SlackObjectFormationError(what)


def _at_most(what: str, size: int, most: int, unit: str = "characters") -> None:
    """slack_sdk's size check, its words made only when it fails (a card makes some forty checks)."""
    if size > most:
        raise SlackObjectFormationError(f"{what} cannot exceed {most} {unit}")


def _plain_json(words: str, most: int, what: str) -> dict[str, Any]:
    _at_most(what, len(words), most)
    return {"type": "plain_text", "text": words, "emoji": True}


def mrkdwn_json(words: str, most: int = MAX_SECTION_TEXT) -> dict[str, Any]:
    """`mrkdwn` as JSON: cut to `most` characters (`fit`), sent verbatim."""
    return {"type": "mrkdwn", "text": fit(words, most), "verbatim": True}


def header_json(words: str) -> Built:
    """`header` as JSON: cut to Slack's 150 characters (`fit`)."""
    return Built({"type": "header", "text": {"type": "plain_text", "text": fit(words, MAX_HEADER_TEXT), "emoji": True}})


def section_json(words: str) -> Built:
    return Built({"type": "section", "text": mrkdwn_json(words)})


def context_json(*words: str) -> Built:
    _at_most("elements attribute", len(words), MAX_CONTEXT, "elements")
    return Built({"type": "context", "elements": [mrkdwn_json(said) for said in words]})


def actions_json(block_id: str, elements: list[dict[str, Any]]) -> Built:
    """An actions block (its elements left out when there are none, as slack_sdk does)."""
    _at_most("elements attribute", len(elements), MAX_ACTIONS, "elements")
    _at_most("block_id", len(block_id), MAX_ID)
    return Built({"type": "actions", "block_id": block_id, **({"elements": elements} if elements else {})})


def button_json(label: str, action_id: str, *, value: str | None = None, url: str | None = None,
                style: str | None = None, confirm: dict[str, Any] | None = None) -> dict[str, Any]:
    _at_most("action_id attribute", len(action_id), MAX_ID)
    _at_most("value attribute", len(value or ""), MAX_BUTTON_VALUE)
    _at_most("url attribute", len(url or ""), MAX_URL)
    _check(style in (None, "primary", "danger"), "style must be either 'primary' or 'danger'")
    button: dict[str, Any] = {"type": "button", "text": _plain_json(label, MAX_BUTTON_TEXT, "text attribute"),
                              "action_id": action_id}
    for name, given in (("value", value), ("url", url), ("style", style), ("confirm", confirm)):
        if given is not None:
            button[name] = given
    return button


def confirm_json(title: str, words: str, confirm: str, deny: str) -> dict[str, Any]:
    """Slack's confirm dialog: a plain title and buttons, a mrkdwn text."""
    return {"title": _plain_json(title, MAX_CONFIRM["title"], "title attribute"), "text": confirm_text_json(words),
            "confirm": _plain_json(confirm, MAX_CONFIRM["confirm"], "confirm attribute"),
            "deny": _plain_json(deny, MAX_CONFIRM["deny"], "deny attribute")}


def confirm_text_json(words: str) -> dict[str, Any]:
    """A confirm dialog's text: mrkdwn, within Slack's limit."""
    _at_most("text attribute", len(words), MAX_CONFIRM["text"])
    return {"type": "mrkdwn", "text": words}


def overflow_json(action_id: str, options: list[tuple[str, str, str]]) -> dict[str, Any]:
    """An overflow menu of links: each option its (value, label, url)."""
    _at_most("action_id attribute", len(action_id), MAX_ID)
    _check(1 <= len(options) <= MAX_OVERFLOW, f"options attribute must have between 1 and {MAX_OVERFLOW} items")
    shown = []
    for value, label, url in options:
        _at_most("value attribute", len(value), MAX_OPTION_VALUE)
        _at_most("url attribute", len(url), MAX_URL)
        shown.append({"text": _plain_json(label, MAX_BUTTON_TEXT, "text attribute"), "value": value, "url": url})
    return {"type": "overflow", "action_id": action_id, "options": shown}
