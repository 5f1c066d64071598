"""One way to read what people type after `/room`, `/dossier` and `/digest`.

A command is a verb and its words. The words hold numbers (ASCII digits only: handlers/core/numbers.py),
links (a room's: handlers/core/room_refs.py; a dossier's: handlers/core/dossier_links.py), `@people` and
`#channels` as Slack escapes them, times and dates (handlers/core/when.py), and the catalogs' typed words
(`typed.*`, in every language the bot speaks). A verb no command knows is answered with the one it
likely meant (handlers/core/typos.py). Each reader here takes what it knows out of the words and gives
back the rest, so a command reads its words in any order, each part once.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

from handlers.core.numbers import is_number
from handlers.core.typos import corrected
from handlers.core.when import clock_time
from handlers.i18n import quoted, typed

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
    words = text.split()
    verb = words[0].lower() if words else "help"
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
