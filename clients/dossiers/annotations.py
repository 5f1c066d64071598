"""A dossier's private annotations as an instructeur edits them: each field's descriptor (from the
dossier's revision: its type, label, whether required, its options) beside the champ that holds its
value now, and the key of `AnnotationValueInput` each type takes (ds-graphql.md §10.4). A type this
module cannot edit (repetition, piece justificative, address, …) stays in the list, named, with no
key: the window shows it as not editable here rather than leave it out."""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationError

from clients.dossiers import errors
from clients.tolerant import Tolerant

#: the descriptor's type → the key its value takes in `AnnotationValueInput` (@oneOf: that key only)
KEYS = {"TextChampDescriptor": "text", "TextareaChampDescriptor": "textarea", "CheckboxChampDescriptor": "checkbox",
        "YesNoChampDescriptor": "yesNo", "DateChampDescriptor": "date", "DatetimeChampDescriptor": "datetime",
        "IntegerNumberChampDescriptor": "integerNumber", "DecimalNumberChampDescriptor": "decimalNumber",
        "DropDownListChampDescriptor": "dropDownList", "MultipleDropDownListChampDescriptor": "multipleDropDownList"}

# each champ's value under an alias of its own: the types' `value` fields differ (Boolean!, BigInt, Float…)
GET_ANNOTATIONS = """query getDossierAnnotations($dossierNumber: Int!) {
  dossier(number: $dossierNumber) {
    id number
    demarche { number revision { annotationDescriptors {
      __typename id label description required
      ... on DropDownListChampDescriptor { options otherOption }
      ... on MultipleDropDownListChampDescriptor { options }
    } } }
    annotations {
      __typename id champDescriptorId stringValue
      ... on TextChamp { text: value }
      ... on CheckboxChamp { checked: value }
      ... on YesNoChamp { yes: value }
      ... on DateChamp { date }
      ... on DatetimeChamp { datetime }
      ... on IntegerNumberChamp { integer: value }
      ... on DecimalNumberChamp { decimal: value }
      ... on DropDownListChamp { chosen: value }
      ... on MultipleDropDownListChamp { values }
    }
  }
}"""


class Descriptor(Tolerant):
    typename: str = Field(default="", alias="__typename")
    id: str = ""
    label: str = ""
    description: str | None = None
    required: bool = False
    options: list[str] | None = None
    otherOption: bool | None = None


class Champ(Tolerant):
    typename: str = Field(default="", alias="__typename")
    id: str = ""
    champDescriptorId: str = ""
    stringValue: str | None = None
    text: str | None = None
    checked: bool | None = None
    yes: bool | None = None
    date: str | None = None
    datetime: str | None = None
    integer: str | int | None = None  # BigInt: a string on the wire
    decimal: float | None = None
    chosen: str | None = None
    values: list[str] | None = None

    def value(self) -> Any:
        """The value as the window shows it (None when blank)."""
        for name in ("text", "checked", "yes", "date", "datetime", "integer", "decimal", "chosen", "values"):
            found = getattr(self, name)
            if found is not None and found != []:
                return found
        return None


class AnnotationField(Tolerant):
    """One private annotation: what it is, its champ now (None when the dossier holds none for it:
    a field hidden by its condition), and the input key it takes (None: not editable here)."""

    descriptor: Descriptor
    champ: Champ | None = None

    @property
    def key(self) -> str | None:
        return KEYS.get(self.descriptor.typename) if self.champ is not None else None


def fields_of(data: dict[str, Any]) -> tuple[int, list[AnnotationField]]:
    """(the dossier's démarche, its annotations in the revision's order) from GET_ANNOTATIONS' answer."""
    dossier = data.get("dossier") or {}
    try:
        demarche = int(((dossier.get("demarche") or {}).get("number")) or 0)
        descriptors = [Descriptor.model_validate(d) for d in
                       (((dossier.get("demarche") or {}).get("revision") or {}).get("annotationDescriptors") or [])]
        champs = [Champ.model_validate(c) for c in dossier.get("annotations") or []]
    except (ValidationError, TypeError, ValueError):
        raise errors.DossierServiceUnavailable("the dossier service sent annotations we cannot read") from None
    by_descriptor = {champ.champDescriptorId: champ for champ in champs}
    return demarche, [AnnotationField(descriptor=d, champ=by_descriptor.get(d.id)) for d in descriptors]
