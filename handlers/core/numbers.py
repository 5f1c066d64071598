"""Numbers as people type them: ASCII digits only.

Python's `int()` and `str.isdecimal()` also take fullwidth (`１２３４５`) and Arabic-Indic (`١٢٣٤٥`)
digits, which no service shows: such a word is not read as a number (it is reported back as not
understood), so that what the bot looks up is what the person can read in its answer.
"""

from __future__ import annotations


def is_number(word: str, most_digits: int) -> bool:
    """`word` is a number of at most `most_digits` ASCII digits."""
    return 0 < len(word) <= most_digits and word.isascii() and word.isdecimal()


def typed_number(word: str, most_digits: int) -> int | None:
    return int(word) if is_number(word, most_digits) else None
