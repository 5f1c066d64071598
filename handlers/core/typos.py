"""How a mistyped command is answered: besides what was not understood, the command meant."""

from __future__ import annotations

import difflib
from collections.abc import Sequence


def closest(word: str, verbs: Sequence[str]) -> str | None:
    """The verb `word` most likely meant (`nwe` → `new`), if one is close enough to bet on."""
    found = difflib.get_close_matches(word.lower(), verbs, n=1, cutoff=0.6)
    return found[0] if found else None


def corrected(command: str, text: str, verbs: Sequence[str]) -> str | None:
    """`/room nwe restricted` → `/room new restricted`; None when no verb is close."""
    words = text.split()
    verb = closest(words[0], verbs) if words else None
    return " ".join([command, verb, *words[1:]]) if verb else None
