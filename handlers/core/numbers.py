"""Numbers as people type them: ASCII digits only.

Python's `int()` and `str.isdecimal()` also take fullwidth (`１２３４５`) and Arabic-Indic (`١٢٣٤٥`)
digits, which no service shows: such a word is not read as a number (it is reported back as not
understood), so that what the bot looks up is what the person can read in its answer.
"""

from __future__ import annotations

import functools

from handlers.i18n import LANGUAGES, counted, text


def is_number(word: str, most_digits: int) -> bool:
    """`word` is a number of at most `most_digits` ASCII digits."""
    return 0 < len(word) <= most_digits and word.isascii() and word.isdecimal()


def typed_number(word: str, most_digits: int) -> int | None:
    return int(word) if is_number(word, most_digits) else None


#: the signs the bot writes before a number (`Dossier n° 12345`) and people put before one (`#12345`)
_SIGNS = ("n°", "nº", "#")


def number_words(words: list[str]) -> list[str]:
    """`words` with the numbers as the bot writes them made bare: `les démarches n° 101 et n° 102` → `101`,
    `102` (`n°101` and `#101` too), so that what `/digest list` or a card shows can be typed back."""
    bare = []
    for word in words:
        word = word.rstrip(",")
        if word.lower() in words_around_numbers():
            continue
        sign = next((sign for sign in _SIGNS if word.lower().startswith(sign)), "")
        if word[len(sign):]:
            bare.append(word[len(sign):])
    return bare


@functools.cache
def words_around_numbers() -> frozenset[str]:
    """The words `/digest` writes around démarche numbers, in every language (`les démarches n° 101
    et n° 102`, handlers/digest/messages.py): typed back, they are read as nothing, not as mistakes."""
    from babel.lists import format_list

    words: set[str] = set()
    for lang in LANGUAGES:
        for key in ("demarches.named", "demarches.of"):
            for form in (text(lang, key, numbers=""), counted(lang, key, 1, numbers="")):
                words.update(form.lower().split())
        words.update(format_list(["", ""], locale=lang).lower().split())
    return frozenset(words)
