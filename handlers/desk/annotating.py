"""The private annotations window: one input per field the service lets `dossierModifierAnnotations`
set here — text, long text, checkbox, yes/no, date, date and time, integer, decimal, drop-down,
multiple drop-down — showing its value now; every other field (a repetition, a piece justificative,
an address, a drop-down of more choices than Slack shows…) named in the window as edited on the
service, never left out. On submission each value is checked as the service checks it — a whole
number within GraphQL's Int, a decimal, a real date, a choice among the field's options, and no
emptying of a field whose input takes no empty value (the service takes no null in its @oneOf
input) — each refusal beside its field; only the fields that changed are sent.

Each input's block id is `<input key>|<champ id>`: the submission reads, from the window as drawn,
what each field is and was; a forged window can only send what its sender may set anyway (who acts
is read again when it comes) and what the service refuses by type."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from typing import Any

from slack_sdk.models.blocks import (
    Block,
    CheckboxesElement,
    ContextBlock,
    DatePickerElement,
    DateTimePickerElement,
    InputBlock,
    InputInteractiveElement,
    NumberInputElement,
    Option,
    PlainTextInputElement,
    RadioButtonsElement,
    SectionBlock,
    StaticMultiSelectElement,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from clients.dossiers.annotations import AnnotationField
from clients.dossiers.desk import Act, AnnotationEdit
from handlers.blocks import fit, mrkdwn
from handlers.desk.forms import MOST_OPTIONS, OPTION_TEXT, OPTION_VALUE, WINDOWS
from handlers.i18n import text

VALUE = "value"  # every input's action id (its block id tells the fields apart)
MOST_FIELDS = 96  # a view's 100 blocks less the intro, the list of the others, and room to spare
MOST_TEXT = 3000  # Slack's most for a text input
INT_RANGE = (-(2**31), 2**31 - 1)  # GraphQL's Int, which `integerNumber` is
#: the keys whose input takes no empty value: once set, such a field is emptied on the service only
NOT_EMPTIED = ("yesNo", "date", "datetime", "integerNumber", "decimalNumber", "dropDownList")


def annotations_window(lang: str, number: int, fields: list[AnnotationField]) -> View:
    editable = [f for f in fields if _element(lang, f) is not None][:MOST_FIELDS]
    others = [f for f in fields if f not in editable]
    blocks: list[Block] = [SectionBlock(text=mrkdwn(text(lang, "desk.window.annotations.intro", number=number)))]
    for annotation in editable:
        element = _element(lang, annotation)
        assert element is not None and annotation.key is not None and annotation.champ is not None
        descriptor = annotation.descriptor
        hint = fit(descriptor.description, 2000) if descriptor.description else None
        blocks.append(InputBlock(block_id=f"{annotation.key}|{annotation.champ.id}", label=fit(descriptor.label or "?", 2000),
                                 element=element, optional=True, hint=hint))
    if others:
        names = ", ".join(f"« {f.descriptor.label} »" for f in others)
        blocks.append(ContextBlock(elements=[mrkdwn(fit(text(lang, "desk.window.annotations.others", names=names), 2000))]))
    if not editable and not others:
        blocks.append(ContextBlock(elements=[mrkdwn(text(lang, "desk.window.annotations.none"))]))
    callback, _ = WINDOWS[Act.ANNOTATE]
    return View(type="modal", callback_id=callback, private_metadata=f"{Act.ANNOTATE.name}:{number}",
                title=text(lang, "desk.window.annotations.title"), close=text(lang, "desk.cancel"),
                submit=text(lang, "desk.window.annotations.submit") if editable else None, blocks=blocks)


def _options(values: list[str]) -> list[Option] | None:
    """A menu's options, or None when Slack cannot show them all as they are (then edited on the service)."""
    if not values or len(values) > MOST_OPTIONS or any(len(v) > OPTION_VALUE or not v for v in values):
        return None
    return [Option(value=v, text=fit(v, OPTION_TEXT)) for v in values]


def _element(lang: str, annotation: AnnotationField) -> InputInteractiveElement | None:
    key, champ = annotation.key, annotation.champ
    if key is None or champ is None:
        return None
    return ELEMENTS[key](lang, champ.value(), annotation.descriptor.options or [], key)


def _text_input(lang: str, now: Any, options: list[str], key: str) -> InputInteractiveElement:
    return PlainTextInputElement(action_id=VALUE, multiline=key == "textarea", max_length=MOST_TEXT,
                                 initial_value=str(now)[:MOST_TEXT] if now else None)


def _checkbox_input(lang: str, now: Any, options: list[str], key: str) -> InputInteractiveElement:
    box = Option(value="true", text=text(lang, "desk.window.annotations.checked"))
    return CheckboxesElement(action_id=VALUE, options=[box], initial_options=[box] if now else None)


def _yes_no_input(lang: str, now: Any, options: list[str], key: str) -> InputInteractiveElement:
    yes, no = (Option(value="true", text=text(lang, "desk.yes")), Option(value="false", text=text(lang, "desk.no")))
    return RadioButtonsElement(action_id=VALUE, options=[yes, no], initial_option=None if now is None else yes if now else no)


def _date_input(lang: str, now: Any, options: list[str], key: str) -> InputInteractiveElement:
    return DatePickerElement(action_id=VALUE, initial_date=str(now)[:10] if now else None)


def _datetime_input(lang: str, now: Any, options: list[str], key: str) -> InputInteractiveElement:
    moment = _moment(now)
    return DateTimePickerElement(action_id=VALUE, initial_date_time=int(moment.timestamp()) if moment else None)


def _number_input(lang: str, now: Any, options: list[str], key: str) -> InputInteractiveElement:
    return NumberInputElement(action_id=VALUE, is_decimal_allowed=key == "decimalNumber",
                              initial_value=str(now) if now is not None else None)


def _menu_input(lang: str, now: Any, options: list[str], key: str) -> InputInteractiveElement | None:
    shown = _options(options)
    if shown is None:
        return None
    if key == "dropDownList":
        return StaticSelectElement(action_id=VALUE, options=shown, initial_option=next((o for o in shown if o.value == now), None))
    initial = [o for o in shown if o.value in (now or [])]
    return StaticMultiSelectElement(action_id=VALUE, options=shown, initial_options=initial or None)


#: each input key's element in the window (None: Slack cannot show it, then edited on the service)
ELEMENTS: dict[str, Callable[[str, Any, list[str], str], InputInteractiveElement | None]] = {
    "text": _text_input, "textarea": _text_input, "checkbox": _checkbox_input, "yesNo": _yes_no_input, "date": _date_input,
    "datetime": _datetime_input, "integerNumber": _number_input, "decimalNumber": _number_input,
    "dropDownList": _menu_input, "multipleDropDownList": _menu_input}


def _moment(value: Any) -> dt.datetime | None:
    try:
        moment = dt.datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None
    return moment.replace(tzinfo=moment.tzinfo or dt.UTC) if moment else None


class Refused(ValueError):
    """A value the service would not take: the catalog key of why."""


def read_annotations(view: dict[str, Any]) -> tuple[list[AnnotationEdit], dict[str, str]]:
    """(the changed fields' new values, each refused field's reason as a catalog key by block id)."""
    edits: list[AnnotationEdit] = []
    refused: dict[str, str] = {}
    state = (view.get("state") or {}).get("values") or {}
    for block in view.get("blocks") or []:
        try:
            edit = _changed(block, state) if isinstance(block, dict) else None
        except Refused as why:
            refused[str(block.get("block_id"))] = str(why)
            continue
        if edit is not None:
            edits.append(edit)
    return edits, refused


def _changed(block: dict[str, Any], state: dict[str, Any]) -> AnnotationEdit | None:
    """The field's new value when it changed; `Refused` when the service would not take it."""
    block_id = str(block.get("block_id") or "")
    key, _, champ = block_id.partition("|")
    if block.get("type") != "input" or not champ or key not in KINDS:
        return None
    element = block.get("element") or {}
    given = (state.get(block_id) or {}).get(VALUE) or {}
    before = KINDS[key](_drawn(element), element)
    after = KINDS[key](given if isinstance(given, dict) else {}, element)
    if after == before:
        return None
    if after is None and key in NOT_EMPTIED:
        raise Refused("desk.window.annotations.not_emptied")
    label = str(((block.get("label") or {}).get("text")) or "?")
    return AnnotationEdit(champ, label, key, "" if after is None else after)


def _drawn(element: dict[str, Any]) -> dict[str, Any]:
    """The element's initial value, in the shape Slack sends a value."""
    return {"value": element.get("initial_value"), "selected_options": element.get("initial_options"),
            "selected_option": element.get("initial_option"), "selected_date": element.get("initial_date"),
            "selected_date_time": element.get("initial_date_time")}


def _text(given: dict[str, Any], element: dict[str, Any]) -> str | None:
    words = str(given.get("value") or "")
    if len(words) > MOST_TEXT:
        raise Refused("desk.window.annotations.too_long")
    return words or None


def _checkbox(given: dict[str, Any], element: dict[str, Any]) -> bool:
    return bool(given.get("selected_options"))


def _yes_no(given: dict[str, Any], element: dict[str, Any]) -> bool | None:
    chosen = (given.get("selected_option") or {}).get("value")
    return None if chosen is None else chosen == "true"


def _date(given: dict[str, Any], element: dict[str, Any]) -> str | None:
    day = given.get("selected_date")
    if not day:
        return None
    try:
        return dt.date.fromisoformat(str(day)).isoformat()
    except ValueError:
        raise Refused("desk.window.annotations.date") from None


def _datetime(given: dict[str, Any], element: dict[str, Any]) -> str | None:
    stamp = given.get("selected_date_time")
    if stamp in (None, ""):
        return None
    try:
        return dt.datetime.fromtimestamp(int(stamp), dt.UTC).isoformat()
    except (ValueError, OverflowError, OSError):
        raise Refused("desk.window.annotations.date") from None


def _integer(given: dict[str, Any], element: dict[str, Any]) -> int | None:
    typed = str(given.get("value") or "").strip()
    if not typed:
        return None
    try:
        number = int(typed)
    except ValueError:
        raise Refused("desk.window.annotations.integer") from None
    if not INT_RANGE[0] <= number <= INT_RANGE[1]:
        raise Refused("desk.window.annotations.integer")
    return number


def _decimal(given: dict[str, Any], element: dict[str, Any]) -> float | None:
    typed = str(given.get("value") or "").strip().replace(",", ".")
    if not typed:
        return None
    try:
        number = float(typed)
    except ValueError:
        raise Refused("desk.window.annotations.decimal") from None
    if not math.isfinite(number):
        raise Refused("desk.window.annotations.decimal")
    return number


def _offered(element: dict[str, Any]) -> set[str]:
    return {str(o.get("value")) for o in element.get("options") or [] if isinstance(o, dict)}


def _drop_down(given: dict[str, Any], element: dict[str, Any]) -> str | None:
    chosen = (given.get("selected_option") or {}).get("value")
    if chosen is not None and str(chosen) not in _offered(element):
        raise Refused("desk.window.annotations.option")
    return None if chosen is None else str(chosen)


def _drop_downs(given: dict[str, Any], element: dict[str, Any]) -> list[str]:
    chosen = sorted(str(o.get("value")) for o in given.get("selected_options") or [] if isinstance(o, dict))
    if not set(chosen) <= _offered(element):
        raise Refused("desk.window.annotations.option")
    return chosen


KINDS = {"text": _text, "textarea": _text, "checkbox": _checkbox, "yesNo": _yes_no, "date": _date, "datetime": _datetime,
         "integerNumber": _integer, "decimalNumber": _decimal, "dropDownList": _drop_down, "multipleDropDownList": _drop_downs}
