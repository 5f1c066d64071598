"""Whatever the interface shows, typed back, is understood — in each language: the access levels as
rooms show them, the hours as answers and examples write them (`/room` and `/digest` read them with
one reader), and numbers in ASCII digits only (issue 41 item 17, issue 40 item 11)."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

import pytest
from babel.dates import format_date, format_time

from clients.rooms.models import AccessLevel
from handlers.core import when
from handlers.core.dossier_links import read_dossier_link
from handlers.core.grammar import command
from handlers.desk.command import parse as parse_dossier
from handlers.digest.messages import named_demarches
from handlers.digest.request import parse as parse_digest
from handlers.i18n import LANGUAGES, catalog, text, typed
from handlers.rooms.command import List, New
from handlers.rooms.command import parse as parse_room

HOURS = (dt.time(8, 30), dt.time(14, 30), dt.time(9, 0), dt.time(0, 5), dt.time(23, 59))


def shown_hours(lang: str) -> list[tuple[str, dt.time]]:
    """An hour as the bot's answers write it: babel's short time (`8:30 AM` with Slack's narrow
    space in English), the digest's `08:30`, and French typography (`8 h 30`)."""
    shown = [(format_time(hour, "short", locale=lang), hour) for hour in HOURS]
    shown += [(hour.strftime("%H:%M"), hour) for hour in HOURS]
    if lang == "fr":
        shown += [(f"{hour.hour} h {hour.minute:02d}", hour) for hour in HOURS] + [("8 h", dt.time(8, 0)), ("8h30", dt.time(8, 30))]
    else:
        shown += [("8:30am", dt.time(8, 30)), ("8:30 AM", dt.time(8, 30)), ("2 pm", dt.time(14, 0)), ("2:30pm", dt.time(14, 30))]
    return shown


def catalog_examples(lang: str) -> list[str]:
    """The hours the catalog's texts give as examples (`à 14h30`, `at 2:30pm`), with their `at`."""
    at = "|".join(re.escape(word) for word in typed("typed.at"))
    return sorted({found.strip() for message in catalog(lang).values() for span in re.findall(r"`([^`]*)`", message)
                   for found in re.findall(rf"(?:^|\s)((?:{at}) [0-9][^\[\]\"`]*?)(?=\s\[|\s\"|$)", span)})


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_hour_shown_is_read_back_the_same_by_room_and_digest(lang):
    at = catalog(lang)["typed.at"].split("|")[0]
    for shown, hour in shown_hours(lang):
        room = when.read(f"{at} {shown}")
        assert isinstance(room, when.Read) and room.plan is not None and room.plan.at == hour and room.rest == [], shown
        assert parse_digest(f"subscribe 101 {at} {shown}") == parse_digest(f"subscribe 101 at {hour:%H:%M}"), shown
        assert parse_digest(f"subscribe 101 {at} {shown}").at == hour, shown


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_example_hour_of_the_catalogs_is_understood(lang):
    examples = catalog_examples(lang)
    assert len(examples) >= 3, examples  # the help's, the refusals' (`à 14h30`, `à 8h30`, `at 2:30pm`…)
    for example in examples:
        room = when.read(example)
        assert isinstance(room, when.Read) and room.plan is not None, example
        digest = parse_digest(f"subscribe 101 {example}")
        assert digest.problem is None and digest.at == room.plan.at, example


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_access_level_shown_is_understood(lang):
    for level in AccessLevel:
        shown = {catalog(lang)[f"level_short.{level.value}"], catalog(lang)[f"level.{level.value}"].split(":")[0], level.value}
        for words in shown:
            assert parse_room(f"new {words}") == New(level), words
            assert parse_room(f"new {words} at 14:30").level == level, words


@pytest.mark.parametrize("text", ["subscribe 12345 à 8h30", "subscribe 12345 at 8:30am", "subscribe 12345 à 8 h 30"])
def test_the_digest_hours_the_issue_found_refused(text):
    assert parse_digest(text).at == dt.time(8, 30) and parse_digest(text).numbers == (12345,)


FULLWIDTH, ARABIC_INDIC = "１２３４５", "١٢٣٤٥"


@pytest.mark.parametrize("digits", [FULLWIDTH, ARABIC_INDIC, "１２3", "۱۲۳"])
def test_numbers_are_ascii_digits_only_wherever_one_is_typed(digits):
    assert parse_dossier(command(digits), None).verb == "unknown"
    assert parse_dossier(command(f"n°{digits}"), None).verb == "unknown"
    assert parse_dossier(command(f"watch {digits}"), None).verb == "unknown"
    assert read_dossier_link(f"https://ds.example/procedures/{digits}/dossiers/{digits}", "https://ds.example") is None
    assert read_dossier_link(f"https://ds.example/dossiers/{digits}", "https://ds.example") is None
    digest = parse_digest(f"subscribe {digits}")
    assert digest.numbers == () and digest.not_numbers == (digits,)
    assert parse_digest(f"subscribe 101 group {digits}").problem is not None
    assert not isinstance(parse_room(f"list {digits[:2]}"), List)
    assert isinstance(when.read(f"at {digits[:2]}:30"), when.Problem)
    assert isinstance(when.read(f"at 9 on {digits[:2]}/12"), when.Problem)
    assert isinstance(when.read(f"at 9 for {digits[:2]} min"), when.Problem)
    assert when.start_problem(digits + "00000", dt.datetime(2026, 1, 1, tzinfo=dt.UTC)) is not None
    # the same in ASCII digits is read
    assert parse_dossier(command("12345"), None).number == 12345 and parse_digest("subscribe 12345").numbers == (12345,)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_numbers_as_the_bot_writes_them_are_read_back(lang):
    shown = str(named_demarches(lang, (101, 102)))  # `/digest list`, the announcements
    assert parse_digest(f"unsubscribe {shown}").numbers == (101, 102) and parse_digest(f"unsubscribe {shown}").not_numbers == ()
    assert parse_digest(f"subscribe {named_demarches(lang, (101,))} group n° 2").group == 2
    assert parse_dossier(command(f"watch {shown}"), None).demarches == (101, 102)
    for key in ("desk.button.open", "dossier.title"):
        written = text(lang, key, number=12345)  # a card's title, an Open button
        assert parse_dossier(command(written.split(" ", 1)[1] if written.startswith("Dossier") else written), None).number == 12345
    assert parse_dossier(command("#12345"), None).number == 12345


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_day_as_answers_write_it_is_read_back(lang):
    now, zone = dt.datetime(2026, 11, 25, 20, 0, tzinfo=dt.UTC), ZoneInfo("Europe/Paris")
    on, at = (catalog(lang)[key].split("|")[0] for key in ("typed.on", "typed.at"))
    for day in (dt.date(2026, 12, 3), dt.date(2026, 12, 1), dt.date(2027, 3, 3), dt.date(2027, 1, 15)):
        for shown in (format_date(day, shape, locale=lang) for shape in ("full", "long", "d MMMM")):
            for typed_text in (f"{on} {shown} {at} 10:00", f"{at} 10:00 {shown}"):
                found = when.read(typed_text)
                assert isinstance(found, when.Read) and found.plan is not None and found.rest == [], typed_text
                start = when.start_of(found.plan, now, zone)
                assert start == dt.datetime.combine(day, dt.time(10, 0), tzinfo=zone).astimezone(dt.UTC), typed_text
