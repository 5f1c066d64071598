"""French as a person reads it, in the messages and the shell the bot renders (not catalog look-ups):
démarches named with their article, hours written `8 h 30`, sizes in `o` and `ko`, Slack's words for
a required field, a scheduled message said in French in the person's zone, and the demo's AI line
in the language asked (the dossier card's implicit decision: tests/desk/test_card.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from freezegun import freeze_time

from tests.conftest import ROOT, text_of
from tests.digest.commands import ALICE, digest


def _demo(tmp_path: Path, lang: str, *typed: str) -> str:
    """`shell --demo` in `lang`, as a newcomer runs it: what it printed."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "bot", "shell", "--demo", "--lang", lang], input="\n".join([*typed, "quit"]) + "\n",
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stdout + done.stderr, done.stderr
    return done.stdout


def test_the_demo_in_french_reads_as_french(tmp_path):
    out = _demo(tmp_path, "fr", "/room new restricted", "2", "", "@bob", "",  # the window's required field skipped once
                '/room new à 14h30 demain "Budget" @bob', "/digest subscribe 12345 à 08:30", "/digest list", "/digest now")
    # a required field, in Slack's French words
    assert "Ce champ est obligatoire." in out
    # démarches with their article; hours as French writes them
    assert "@you a abonné ce canal au résumé quotidien de la démarche n° 12345, à 8 h 30 (heure de Paris)." in out
    assert re.search(r"Ce canal recevra chaque jour à 8 h 30 \(heure de Paris\) un résumé de la démarche n° 12345\. "
                     r"Prochain : \w+ \d+ \w+ \d{4} à 8 h 30\.", out)
    assert "Ce canal suit la démarche n° 12345 (mise en place par @you), chaque jour à 8 h 30" in out
    assert "de n° 12345" not in out and "08:30" not in out
    # the meeting's times, and when Slack will post its reminders: in French, in the person's zone
    assert re.search(r"Budget · \w+ \d+ \w+ \d{4}, 14 h 30–15 h 30 \(heure de Paris\)", out)
    assert "Budget commence à 14 h 30, dans 10 minutes." in out
    assert re.search(r"--- message direct pour @bob · programmé par Slack pour le \w+ \d+ \w+ \d{4} à 14 h 20 \(heure de Paris\) :", out)
    assert "UTC" not in out and "Slack publiera dans" not in out
    # sizes in French units
    assert re.search(r"\[fichier d'agenda : Budget, \d+ o\]", out) and re.search(r"\[graphique : .*, \d+ ko\]", out)
    assert " kB]" not in out and " B]" not in out
    # the AI line in French only
    assert "Démo : plus de dossiers déposés que traités" in out and "Demo:" not in out


def test_the_demo_in_english_keeps_english(tmp_path):
    out = _demo(tmp_path, "en", '/room new at 14:30 tomorrow "Budget" @bob', "/digest subscribe 12345", "/digest now")
    assert "Demo: more dossiers deposited than decided" in out and "Démo" not in out.replace("DEMO", "")
    assert re.search(r"--- Slack will post in direct message to @bob on \w+, \w+ \d+, \d{4} at 14:20 \(Paris time\):", out)
    assert re.search(r"\[calendar file: Budget, \d+ B\]", out) and re.search(r"\[chart: .*, \d+ kB\]", out)
    assert "UTC" not in out


@pytest.mark.parametrize(("typed", "said"), [
    ("new à 8h aujourd'hui", "Le mercredi 24 mars 2027 à 8 h est passé."),
    ("new à 2h30 le 2027-03-28", "2 h 30 n'existe pas le dimanche 28 mars 2027 dans votre fuseau horaire"),
    ("new à 10h le 2027-12-01", "C'est dans plus de 120 jours : Slack ne garde pas un rappel aussi longtemps."),
])
async def test_a_time_that_cannot_be_is_said_in_french_hours(bot, slack, alice, typed, said):
    slack.users["U0ALICE"]["locale"] = "fr-FR"
    with freeze_time("2027-03-24 09:00:00", real_asyncio=True):  # 10 h in Paris; summer time on Sunday the 28th
        reply = await bot.reply(typed)
    assert said in text_of(reply)


async def test_one_demarche_set_up_by_someone_else_is_said_in_the_singular(digest_bot, ds, slack):
    ds.add_demarche(101, "Subvention", dossiers=3, admins=(ALICE,))
    ds.add_demarche(666, "Ressources humaines", dossiers=3, admins=("drh@example.gouv.fr",))
    slack.add_user("U0DRH", "drh@example.gouv.fr", locale="fr-FR")
    await digest(digest_bot, "subscribe 101 at 09:00")
    said = await digest(digest_bot, "subscribe 666 à 15:00", user="U0DRH")
    assert ("L'heure reste 9 h : la démarche n° 101 a été mise en place ici par quelqu'un d'autre, et seule cette "
            "personne, ou un administrateur ou instructeur de la démarche, peut la changer.") in said
    assert "Ce canal recevra chaque jour à 9 h (heure de Paris) un résumé des démarches n° 101 et n° 666." in said
