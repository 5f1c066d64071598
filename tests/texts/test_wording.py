"""Slips a rule can catch, read in every catalog text of every language: what a person is told to
type is what the bot reads in that language, counts agree with their nouns, times and zones read as
people say them, and the help names the shortcuts as Slack shows them."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo

import pytest
import yaml

from handlers.i18n import LANGUAGES, catalog, counted, shown_word, typed, zone_words
from tests.conftest import ROOT

#: placeholders that hold how many of something
COUNTS = ("count", "latest", "shown", "total", "minutes")
#: texts whose count is never one, and why
NEVER_ONE = {
    "home.summary": "said only when some rooms of several are shown; else home.summary_all",
    "cli.reused": "a fixed window (RUN_WINDOW), never one minute",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_count_followed_by_a_plural_noun_has_a_singular_form(lang):
    theirs = catalog(lang)
    lacking = [key for key, words in theirs.items() if not key.endswith(".one") and key not in NEVER_ONE
               and re.search(rf"\{{(?:{'|'.join(COUNTS)})\}}\*? \w+[sx]\b", words) and f"{key}.one" not in theirs]
    assert lacking == []
    assert [key for key, words in theirs.items() if "(s)" in words] == []  # "démarche(s)": a form per number instead


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_word_before_an_hour_is_the_one_the_bot_reads_in_that_language(lang):
    at = shown_word(lang, "typed.at")
    assert at in typed("typed.at")
    shown = {word for words in catalog(lang).values() for word in re.findall(r"[`\[](\w+) (?:HH:MM|\d\d:\d\d)", words)}
    assert shown <= {at}, f"told to type {shown - {at}} in {lang}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_text_shows_seconds_a_zone_id_or_babels_region_words(lang):
    for key, words in catalog(lang).items():
        assert not re.search(r"\d:\d\d:\d\d|Europe/|\(heure : ", words), key


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_help_names_the_shortcuts_as_slack_shows_them(lang):
    manifest = yaml.safe_load((ROOT / "manifest.yml").read_text())
    for shortcut in manifest["features"]["shortcuts"]:
        assert f"*{shortcut['name']}*" in catalog(lang)["help.body"], shortcut["name"]


@pytest.mark.parametrize(("lang", "one", "many", "zone"), [
    ("en", "1 room · page 1 of 1", "2 rooms · page 1 of 1", "Paris time"),
    ("fr", "1 salle · page 1 sur 1", "2 salles · page 1 sur 1", "heure de Paris"),
])
def test_counts_and_zones_read_as_people_say_them(lang, one, many, zone):
    assert counted(lang, "list.summary", 1, page=1, pages=1) == one
    assert counted(lang, "list.summary", 2, page=1, pages=1) == many
    assert zone_words(lang, ZoneInfo("Europe/Paris")) == zone
    assert counted(lang, "home.summary_all", 1) in ("Your room", "Votre salle")
