"""What a `/digest` asks, and where and by whom it was typed.

Read apart from the listener and from the work each sub-command does: the grammar's words become one
plain `Request` that every part (the help, subscribing, the list, `now`) reads the same way, and that
the manual's tests read with no Slack at all. A wrong text becomes a `problem` (a catalog key and its
values), answered with the help; words that are not numbers are kept so the rest is still done.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from clients.dossiers.accounts import DossierAccount
from handlers.core import grammar
from handlers.core.numbers import number_words
from handlers.i18n import quoted


@dataclass(frozen=True)
class Request:
    """One `/digest` as typed: what it asks for, or what was wrong with its words."""

    verb: str  # subscribe | unsubscribe | list | now | help | unknown
    numbers: tuple[int, ...] = ()
    at: dt.time | None = None
    force: bool = False
    problem: tuple[str, dict[str, str]] | None = None  # catalog key and values when the text is wrong
    not_numbers: tuple[str, ...] = ()  # words among the numbers that are none: reported, the rest still done
    group: int | None = None  # `subscribe <n> group <g>`: that groupe instructeur's dossiers only


VERBS = ("subscribe", "unsubscribe", "list", "now", "help")


def parse(command_text: str) -> Request:
    """Every text gets a `Request`: an unknown or misplaced word makes an `unknown` one, never an error."""
    typed = grammar.command(command_text)
    verb, rest = typed.verb, typed.words
    if verb in ("subscribe", "unsubscribe"):
        return _numbers(verb, rest)
    if verb == "list" and not rest:
        return Request("list")
    if verb == "now" and rest in ([], ["force"]):
        return Request("now", force=bool(rest))
    if verb == "help" and not rest:
        return Request("help")
    return Request("unknown", problem=grammar.unknown("/digest", command_text, VERBS, "digest_cmd.unknown_words"))


def _numbers(verb: str, words: list[str]) -> Request:
    """`subscribe|unsubscribe <démarche> …`; `subscribe` also takes `at <hour>` (read as /room reads it:
    `at 08:30`, `à 8h30`, `at 8:30am`) and `group <n>`, and the numbers as `/digest list` shows them."""
    at, group = None, None
    if verb == "subscribe":
        hour = grammar.marked_time(words)
        if isinstance(hour, grammar.NotRead):
            return Request(verb, problem=("digest_cmd.bad_time", {"time": quoted(hour.words, 20)}))
        at, words = hour
    words = number_words(words)  # `les démarches n° 101 et n° 102`, as `/digest list` shows them
    if verb == "subscribe":
        found = grammar.marked_number(words, "typed.group", 9)
        if isinstance(found, grammar.NotRead):
            return Request(verb, problem=("digest_cmd.bad_group", {"words": quoted(found.words, 20)}))
        group, words = found
    numbers = grammar.numbers(words, 9)
    if not numbers.numbers and not numbers.others:
        return Request(verb, problem=("digest_cmd.no_numbers", {}))
    if group is not None and len(numbers.numbers) != 1:
        return Request(verb, problem=("digest_cmd.group_one", {}))
    return Request(verb, numbers.numbers, at, not_numbers=numbers.others, group=group)


@dataclass(frozen=True)
class Where:
    """The conversation a `/digest` was typed in, and who typed it."""

    channel: str
    user: str
    email: str
    lang: str
    team: str  # the workspace: a channel's subscriptions are its workspace's
    account: DossierAccount  # the token that reads for it
