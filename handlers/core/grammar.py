"""One way to read what people type after `/room`, `/dossier` and `/digest`.

A command is a verb and its words. The words hold numbers (ASCII digits only: handlers/core/numbers.py),
links (a room's: handlers/core/room_refs.py; a dossier's: handlers/core/dossier_links.py), `@people` and
`#channels` as Slack escapes them, clock times (here; days, durations and plans: handlers/core/when.py), and the catalogs' typed words
(`typed.*`, in every language the bot speaks). A verb no command knows is answered with the one it
likely meant (handlers/core/typos.py). Each reader here takes what it knows out of the words and gives
back the rest, so a command reads its words in any order, each part once.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from handlers.core.numbers import is_number
from handlers.core.typos import corrected
from handlers.i18n import quoted, typed

# every time the bot shows or teaches, typed back: `14:30`, `14h30`, `14h`, `14 h 30`, `9`, `9am`, `2:30pm`,
# `8:30 AM` (Slack's English clock, babel's narrow space split as a space), `8 h 30` (French typography)
_HOUR = re.compile(r"^([0-9]{1,2})(?: ?[:h] ?([0-9]{2})?)? ?(am|pm|a\.m\.|p\.m\.)?$", re.ASCII)
#: a time or a duration spans at most this many words (`8 h 30`)
MOST_WORDS = 3
_T = TypeVar("_T")
_PERSON = re.compile(r"<@([UW][A-Z0-9]{2,20})(?:\|[^<>]*)?>")
_CHANNEL = re.compile(r"<#([CG][A-Z0-9]{2,20})(?:\|[^<>]*)?>")


@dataclass(frozen=True)
class Command:
    """A command's text: its verb (lower case; `help` when nothing was typed) and what follows it."""

    verb: str
    words: list[str]  # the words after the verb, as typed
    rest: str  # the text after the verb, whole: a link Slack wrapped may hold spaces in its label
    text: str  # all that was typed, stripped


@dataclass(frozen=True)
class Mentions:
    people: tuple[str, ...]  # user ids, each once, in the order typed
    channels: tuple[str, ...]
    text: str  # the text without them


@dataclass(frozen=True)
class Numbers:
    numbers: tuple[int, ...]  # each once, in the order typed
    others: tuple[str, ...]  # the words that are no number, each once and shortened to repeat back


@dataclass(frozen=True)
class NotRead:
    """The word after a marker (`at`, `group`…) that is not what the marker announces."""

    words: str


def command(text: str) -> Command:
    """The verb (help for none, and for `aide` or `?` in any language the bot speaks) and the rest."""
    words = text.split()
    verb = words[0].lower() if words else "help"
    if is_typed(verb, "typed.help"):
        verb = "help"
    stripped = text.strip()
    return Command(verb, words[1:], stripped[len(words[0]):].strip() if words else "", stripped)


def is_typed(word: str, key: str) -> bool:
    """`word` is one of the catalogs' words for `key` (`typed.at`: `at`, `à`…), a trailing comma aside."""
    return word.lower().rstrip(",") in typed(key)


def mentions(text: str) -> Mentions:
    """The `@people` and `#channels` of `text`, as Slack escapes them (`<@U123|name>`, `<#C123|name>`)."""
    people = tuple(dict.fromkeys(_PERSON.findall(text)))
    channels = tuple(_CHANNEL.findall(text))
    return Mentions(people, channels, _CHANNEL.sub(" ", _PERSON.sub(" ", text)))


def numbers(words: Sequence[str], most_digits: int) -> Numbers:
    found = tuple(dict.fromkeys(int(word) for word in words if is_number(word, most_digits)))
    others = tuple(dict.fromkeys(quoted(word, 30) for word in words if not is_number(word, most_digits)))
    return Numbers(found, others[:10])


def marked_time(words: Sequence[str], marker: str = "typed.at") -> tuple[dt.time | None, list[str]] | NotRead:
    """The hour after the last `marker` word that has a word after it (`at 08:30`, `à 8 h 30`), and the
    other words; the hour is None when no marker is there."""
    marks = [index for index, word in enumerate(words[:-1]) if is_typed(word, marker)]
    if not marks:
        return None, list(words)
    found = clock_time(words[marks[-1] + 1:])
    if found is None:
        return NotRead(words[marks[-1] + 1])
    return found[0], [*words[:marks[-1]], *words[marks[-1] + 1 + found[1]:]]


def marked_number(words: Sequence[str], marker: str, most_digits: int) -> tuple[int | None, list[str]] | NotRead:
    """The number after the first `marker` word (`group 42`), and the other words; None when no marker is there."""
    index = next((index for index, word in enumerate(words) if is_typed(word, marker)), None)
    if index is None:
        return None, list(words)
    after = words[index + 1] if index + 1 < len(words) else ""
    if not is_number(after, most_digits):
        return NotRead(after or words[index].lower())
    return int(after), [*words[:index], *words[index + 2:]]


def unknown(name: str, text: str, verbs: Sequence[str], key: str) -> tuple[str, dict[str, str]]:
    """What to answer to a text a command does not understand, as a catalog key and its values: the
    command it likely meant when its first word is near a verb (`usage.unknown_meant`), else `key`."""
    words = text.split()
    meant = corrected(name, text, verbs) if words and words[0].lower() not in verbs else None
    if meant:
        return "usage.unknown_meant", {"words": quoted(text.strip()), "command": quoted(meant)}
    return key, {"words": quoted(text.strip())}


def clock_time(words: Sequence[str]) -> tuple[dt.time, int] | None:
    """The clock time `words` start with, as the bot shows times and people type them back (`14:30`,
    `14h30`, `8 h 30`, `9`, `9am`, `8:30 AM`), and how many words it took; None when they start with
    none. `/room … at` and `/digest subscribe … at` both read their hour here."""
    return longest(words, hour)


def longest(words: Sequence[str], reader: Callable[[str], _T | None], most: int = MOST_WORDS) -> tuple[_T, int] | None:
    """What `reader` makes of the most words (up to `most`) at the start of `words`, and how many."""
    for count in range(min(most, len(words)), 0, -1):
        found = reader(" ".join(word.lower().rstrip(",") for word in words[:count]))
        if found is not None:
            return found, count
    return None


def hour(word: str) -> dt.time | None:
    """One hour as typed (`14:30`, `8 h 30` joined by spaces), or None."""
    match = _HOUR.match(word)
    if not match:
        return None
    hours, minute, half = int(match.group(1)), int(match.group(2) or 0), match.group(3)
    if half:
        if not 1 <= hours <= 12:
            return None
        hours = hours % 12 + (12 if half.startswith("p") else 0)
    if hours > 23 or minute > 59:
        return None
    return dt.time(hours, minute)
