"""When a planned room starts, from the words people type after `/room new`, in any language the bot
speaks (the catalogs' `typed.*` words, babel's weekday names).

`at 14:30 tomorrow`, `à 14h30 demain`, `on friday at 9`, `le 03/12 à 10h`, `every monday at 9:15`,
`chaque lundi à 9h15 pour 45 min`, `"Budget"`: the words are read here and the rest (level,
mentions) is left to the caller. The clock time is the person's own, in their Slack time zone; the
answer is a moment in UTC, or the catalog key saying what to type instead.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from zoneinfo import ZoneInfo

from handlers.core.grammar import MOST_WORDS, clock_time, hour, longest
from handlers.core.numbers import is_number
from handlers.i18n import LANGUAGES, typed

#: Slack keeps a scheduled message at most 120 days ahead; a meeting further out has no reminder.
MOST_DAYS_AHEAD = 120
DEFAULT_MINUTES = 60
MOST_MINUTES = 12 * 60


@cache
def _weekdays() -> dict[str, int]:
    """Weekday names and their short forms (Monday is 0) in every language the bot speaks, as
    babel's locale data has them: `friday`, `fri`, `vendredi`, `ven`, `freitag`…"""
    from babel.dates import get_day_names

    return {name.lower().rstrip("."): number for language in LANGUAGES for width in ("wide", "abbreviated")
            for number, name in get_day_names(width, locale=language).items()}


_ISO_DAY = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$", re.ASCII)
_SHORT_DAY = re.compile(r"^([0-9]{1,2})/([0-9]{1,2})(?:/([0-9]{4}))?$", re.ASCII)
_DURATION = re.compile(r"^(?:([0-9]{1,2}) ?h ?([0-9]{2})?|([0-9]{1,3}) ?(?:m|min|mn|mins|minutes)?"
                       r"|([0-9]{1,2}) ?(?:h|hr|hrs|hours?|heures?))$", re.ASCII)
#: a day as answers write it spans at most four words (`Thursday, December 3, 2026`, `jeudi 3 décembre 2026`)
_MOST_DAY_WORDS = 4
_QUOTED = re.compile(r"[\"“”«»„](.*?)[\"“”«»„]", re.DOTALL)
MOST_TOPIC = 150


@dataclass(frozen=True)
class Day:
    """A day as typed: an offset from today, a weekday (the next one), or a calendar date."""

    offset: int | None = None
    weekday: int | None = None
    date: tuple[int | None, int, int] | None = None  # (year or None, month, day)


@dataclass(frozen=True)
class Plan:
    at: dt.time
    day: Day | None = None
    weekly: bool = False
    minutes: int = DEFAULT_MINUTES
    topic: str = ""


@dataclass(frozen=True)
class Problem:
    """What was wrong, as a catalog key (`when.*`) and its parameters."""

    key: str
    params: dict[str, str | dt.date | dt.time] = field(default_factory=dict)  # a day or an hour is worded in the reader's language


@dataclass(frozen=True)
class Read:
    """What `read` found: the plan (None for a room for now), and the words it did not take."""

    plan: Plan | None
    rest: list[str]


def read(text: str) -> Read | Problem:
    """The time words of `text`, which holds no mention any more."""
    topic = ""
    quoted = _QUOTED.search(text)
    if quoted:
        topic = " ".join(quoted.group(1).split())[:MOST_TOPIC]
        text = text[: quoted.start()] + " " + text[quoted.end():]
    words = text.split()
    rest: list[str] = []
    found = _Found()
    index = 0
    while index < len(words):
        step = next((after for reader in _READERS if (after := reader(words, index, found)) is not None), None)
        if isinstance(step, Problem):
            return step
        if step is None:
            rest.append(words[index])
            step = index + 1
        index = step
    if found.at is None:
        if found.day is not None or found.minutes is not None or topic:
            return Problem("when.needs_time")
        return Read(None, rest)
    return Read(Plan(found.at, found.day, found.weekly, found.minutes or DEFAULT_MINUTES, topic), rest)


@dataclass
class _Found:
    """What `read` has found so far: each reader below adds its part."""

    at: dt.time | None = None
    day: Day | None = None
    weekly: bool = False
    minutes: int | None = None


def _word(word: str) -> str:
    return word.lower().rstrip(",")


def _marked(words: list[str], index: int, key: str) -> bool:
    """`words[index]` is one of the catalogs' `key` words (`at`, `à`…), and a word follows it."""
    return index + 1 < len(words) and _word(words[index]) in typed(key)


# Each reader takes what `words` hold at `index` if it is its part, and says where the next part
# starts — or what is wrong with the words after its marker — or None when the words are not its.

def _after(marker: str, reader: Callable[[str], object], problem: str, part: str, most: int = MOST_WORDS) -> _Reader:
    """A reader of the words after one of `marker`'s words (`at 14:30`, `pour 1 h 30`, `le 03/12`)."""
    def read(words: list[str], index: int, found: _Found) -> int | Problem | None:
        if not _marked(words, index, marker):
            return None
        taken = longest(words[index + 1:], reader, most)  # `for 45 min`: number and unit apart
        if taken is None:
            return Problem(problem, {"words": words[index + 1]})
        setattr(found, part, taken[0])
        return index + 1 + taken[1]
    return read


def _bare_time(words: list[str], index: int, found: _Found) -> int | None:
    bare = clock_time(words[index:])
    if bare is None or (bare[1] == 1 and _word(words[index]).isdecimal()):  # a bare number is not a time: it may be anything
        return None
    found.at = bare[0]
    return index + bare[1]


def _every(words: list[str], index: int, found: _Found) -> int | Problem | None:
    if not _marked(words, index, "typed.every"):
        return None
    weekday = _word(words[index + 1]).rstrip("s")
    if weekday not in _weekdays():
        return Problem("when.bad_weekday", {"words": words[index + 1]})
    found.day, found.weekly = Day(weekday=_weekdays()[weekday]), True
    return index + 2


def _bare_day(words: list[str], index: int, found: _Found) -> int | None:
    day = longest(words[index:], _day, most=_MOST_DAY_WORDS)
    if day is None:
        return None
    found.day = day[0]
    return index + day[1]


def start_of(plan: Plan, now: dt.datetime, zone: ZoneInfo) -> dt.datetime | Problem:
    """The plan's first start, in UTC, for someone in `zone` at `now`; or why it cannot be."""
    today = now.astimezone(zone).date()
    match plan.day:
        case None:
            day = today
        case Day(offset=int(offset)):
            day = today + dt.timedelta(days=offset)
        case Day(weekday=int(weekday)):
            day = today + dt.timedelta(days=(weekday - today.weekday()) % 7)
            if _local(day, plan.at, zone) <= now:
                day += dt.timedelta(days=7)
        case Day(date=(year, month, number)):
            try:
                day = dt.date(year or today.year, month, number)
            except ValueError:
                return Problem("when.bad_day", {"words": f"{number:02d}/{month:02d}" + (f"/{year}" if year else "")})
            if year is None and day < today:  # this year's has passed: next year's (no 29/02 then: too far anyway)
                try:
                    day = day.replace(year=today.year + 1)
                except ValueError:
                    return Problem("when.too_far", {"days": str(MOST_DAYS_AHEAD)})
        case _:
            raise AssertionError(plan.day)
    start = _local(day, plan.at, zone)
    if start.astimezone(dt.UTC).astimezone(zone).replace(tzinfo=None) != dt.datetime.combine(day, plan.at):  # in a DST gap
        return Problem("when.no_such_time", {"time": plan.at, "day": day})
    if start <= now:
        return Problem("when.passed", {"time": plan.at, "day": day})
    if start > now + dt.timedelta(days=MOST_DAYS_AHEAD):
        return Problem("when.too_far", {"days": str(MOST_DAYS_AHEAD)})
    return start.astimezone(dt.UTC)


def start_problem(picked: object, now: dt.datetime) -> Problem | None:
    """What is wrong with a start picked on a calendar (the modals send a Unix time, or a forger
    anything): none, or later than now and within Slack's reminder reach."""
    if not isinstance(picked, int | str) or not is_number(str(picked), 11):
        return Problem("plan.pick_a_time")
    start = dt.datetime.fromtimestamp(int(picked), dt.UTC)
    if start <= now:
        return Problem("plan.pick_later")
    if start > now + dt.timedelta(days=MOST_DAYS_AHEAD):
        return Problem("when.too_far", {"days": str(MOST_DAYS_AHEAD)})
    return None


def _local(day: dt.date, at: dt.time, zone: ZoneInfo) -> dt.datetime:
    return dt.datetime.combine(day, at, tzinfo=zone)


def _day(word: str) -> Day | None:
    if word in typed("typed.today"):
        return Day(offset=0)
    if word in typed("typed.tomorrow"):
        return Day(offset=1)
    if word in _weekdays():
        return Day(weekday=_weekdays()[word])
    if match := _ISO_DAY.match(word):
        return Day(date=(int(match.group(1)), int(match.group(2)), int(match.group(3))))
    if match := _SHORT_DAY.match(word):
        year = int(match.group(3)) if match.group(3) else None
        return Day(date=(year, int(match.group(2)), int(match.group(1))))
    return _named_day(word)


def _named_day(words: str) -> Day | None:
    """A date as the bot's answers write it (babel's full date): `jeudi 3 décembre 2026`,
    `Thursday, December 3, 2026`, `3 December`, `1er décembre`; the weekday, if any, is not checked."""
    parts = words.replace(",", " ").replace(".", " ").split()
    if len(parts) > 2 and parts[0] in _weekdays():  # not `mar 3` (March, in English)
        parts = parts[1:]
    year = int(parts.pop()) if len(parts) == 3 and is_number(parts[-1], 4) and len(parts[-1]) == 4 else None
    if len(parts) != 2:
        return None
    if parts[0] in _months():  # December 3
        parts.reverse()
    number, month = parts[0].removesuffix("er"), _months().get(parts[1])
    if month is None or not is_number(number, 2):
        return None
    return Day(date=(year, month, int(number)))


@cache
def _months() -> dict[str, int]:
    """Month names and their short forms (January is 1) in every language the bot speaks, as babel's
    locale data has them: `december`, `dec`, `décembre`, `déc`…"""
    from babel.dates import get_month_names

    return {name.lower().rstrip("."): number for language in LANGUAGES for width in ("wide", "abbreviated")
            for number, name in get_month_names(width, locale=language).items()}


def _minutes(word: str) -> int | None:
    match = _DURATION.match(word)
    if not match:
        return None
    hours_minutes, extra, bare_minutes, bare_hours = match.groups()
    if hours_minutes is not None:
        minutes = int(hours_minutes) * 60 + int(extra or 0)
    elif bare_minutes is not None:
        minutes = int(bare_minutes)
    else:
        minutes = int(bare_hours) * 60
    return minutes if 5 <= minutes <= MOST_MINUTES else None


_Reader = Callable[[list[str], int, _Found], int | Problem | None]
#: in this order: `at 9` is an hour, not a day; a bare hour before a bare day (`9:30`, not `9`)
_READERS: tuple[_Reader, ...] = (
    _after("typed.at", hour, "when.bad_time", "at"), _bare_time, _every, _after("typed.for", _minutes, "when.bad_duration", "minutes"),
    _after("typed.on", _day, "when.bad_day", "day", most=_MOST_DAY_WORDS), _bare_day)
