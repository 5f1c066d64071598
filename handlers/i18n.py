"""Texts people read, from the gettext catalogs in `locales/`, in French or English.

Catalog ids are stable keys (`room.ready`), so code never carries the words. Values that came
from a person or a service are escaped for Slack (`&`, `<`, `>`) when they are put in a text;
pre-built mrkdwn is passed as `Mrkdwn` to stay as it is.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo

_LOCALES = Path(__file__).parent / "locales"
#: The languages the bot speaks: one per catalog on disk (English is the reference catalog).
LANGUAGES = tuple(sorted(path.parent.parent.name for path in _LOCALES.glob("*/LC_MESSAGES/messages.po")))


class Mrkdwn(str):
    """Text already safe for Slack mrkdwn."""


_BROADCAST = re.compile(r"@(here|channel|everyone)\b", re.IGNORECASE)


def escape(text: str) -> str:
    """Text a person or a service wrote, made inert for Slack: `&`, `<`, `>` escaped (no link, no
    mention, no `<!here>`), and a plain `@here`, `@channel` or `@everyone` broken with an invisible
    word joiner so that no client reads it as a broadcast."""
    if "&" in text or "<" in text or ">" in text:  # most texts hold none: a card escapes a dozen
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _BROADCAST.sub("@\u2060\\1", text) if "@" in text else text


@cache
def catalog(language: str) -> dict[str, str]:
    # babel's reader is loaded on the first text, not on import: `python -m bot --help` needs
    # LANGUAGES only, and starts within 3× a bare interpreter
    from babel.messages.pofile import read_po

    with open(_LOCALES / language / "LC_MESSAGES" / "messages.po", "rb") as po:
        return {str(message.id): str(message.string) for message in read_po(po) if message.id and message.string}


@cache
def typed(key: str) -> frozenset[str]:
    """The words people may type for `key` (a `typed.*` text: alternatives between `|`), in every
    language the bot speaks: whoever writes in any of them is understood, whatever their Slack
    language. A new catalog brings its own words."""
    return frozenset(word.strip().lower() for language in LANGUAGES for word in catalog(language).get(key, "").split("|")
                     if word.strip())


def shown_word(language: str, key: str) -> str:
    """The word of `key` the help shows in `language`: the first of its alternatives."""
    return catalog(language if language in LANGUAGES else "en")[key].split("|")[0].strip()


def quoted(words: str, most: int = 80) -> str:
    """What a person (or a forged request) wrote, short enough to repeat back in a message."""
    return words if len(words) <= most else words[: most - 1] + "…"


def text(language: str, key: str, **params: object) -> str:
    if not params:
        return _bare(language if language in LANGUAGES else "en", key)
    template = catalog(language if language in LANGUAGES else "en")[key]
    safe = {name: value if isinstance(value, Mrkdwn) else escape(str(value)) for name, value in params.items()}
    return template.format(**safe)


@cache
def _bare(language: str, key: str) -> str:
    """A text without values, formatted once (a card reads a dozen: its buttons, its words)."""
    return catalog(language)[key].format()


def counted(language: str, key: str, count: int, **params: object) -> str:
    """The text of `key` for `count` things: its `key.one` form where the language's plural rule
    puts `count` (1 in English; 0 and 1 in French), else `key`, so no text reads "1 rooms". The text
    gets `count` as `{count}` unless `params` gives its own (a formatted number)."""
    lang = language if language in LANGUAGES else "en"
    singular = f"{key}.one"
    chosen = singular if _plural_form(lang, count) == "one" and singular in catalog(lang) else key
    return text(lang, chosen, **{"count": count, **params})


@cache
def _plural_rule(language: str) -> Callable[[int], str]:
    from babel import Locale

    return Locale.parse(language).plural_form


def _plural_form(language: str, count: int) -> str:
    return _plural_rule(language)(count)


def clock(language: str, moment: dt.time | dt.datetime) -> str:
    """An hour as the language writes it: `8 h 30`, `14 h` in French (its typography), `08:30` in
    English; the patterns are the catalog's (`clock.pattern`, and `clock.pattern_hour` on the hour)."""
    from babel.dates import format_time

    lang = language if language in LANGUAGES else "en"
    pattern = catalog(lang)["clock.pattern_hour" if moment.minute == 0 else "clock.pattern"]
    return format_time(moment, pattern, locale=lang)


def day_at(language: str, moment: dt.datetime) -> str:
    """A day and its hour: `samedi 28 novembre 2026 à 8 h 30`, `Saturday, November 28, 2026 at 08:30`."""
    from babel.dates import format_date

    lang = language if language in LANGUAGES else "en"
    return text(lang, "clock.day_at", day=format_date(moment, "full", locale=lang), hour=clock(lang, moment))


def zone_words(language: str, zone: ZoneInfo) -> str:
    """A time zone as people say it: "Paris time", "heure de Paris" (not `Europe/Paris`, nor
    babel's "heure : France")."""
    from babel.dates import get_timezone_location

    return text(language, "zone.city", city=get_timezone_location(zone, locale=language if language in LANGUAGES else "en",
                                                                  return_city=True))


def file_text(language: str, key: str, **params: object) -> str:
    """A text for a file people open elsewhere (a calendar file): nothing escaped for Slack."""
    return catalog(language if language in LANGUAGES else "en")[key].format(**params)


def language_for(locale: str | None, default: str) -> str:
    """Slack locales look like `fr-FR`, `en-GB`; one without a catalog gets the configured default
    (`DEFAULT_LANGUAGE`, itself checked against the catalogs at start)."""
    prefix = (locale or "").split("-")[0].lower()
    return prefix if prefix in LANGUAGES else default
