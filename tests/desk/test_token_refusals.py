"""`/dossier` when the dossier service refuses the bot's token (ds-graphql.md §10.1): the person
is told which refusal it is, in their language, and to tell the operator."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from tests.conftest import Bot, text_of
from tests.desk.conftest import dossier


@pytest.mark.parametrize(("refusal", "english", "french"), [
    ("network", "refuses the bot's network address: the token must list every address the bot leaves from",
     "refuse l'adresse réseau du bot : le jeton doit déclarer chaque adresse d'où le bot sort"),
    ("expired", "token has expired: a new one is needed", "a expiré : il en faut un nouveau"),
    ("revoked", "does not know the token (revoked or mistyped)", "ne connaît pas le jeton (révoqué ou mal recopié)"),
])
async def test_a_refused_token_is_told_apart_to_the_person(digest_bot: Bot, ds: FakeDS, demarche: FakeDemarche,
                                                          refusal: str, english: str, french: str) -> None:
    found = ds.deposit(101, "en_instruction")
    if refusal == "network":
        ds.networks = ["203.0.113.7/32"]  # locked to the laptop of the token's first call
    elif refusal == "expired":
        ds.expires_on = dt.date.today() - dt.timedelta(days=2)
    else:
        ds.revoked.add(ds.token)
    words = text_of(await dossier(digest_bot, str(found.number)))
    assert english in words and "operator" in words, words
    words = text_of(await dossier(digest_bot, str(found.number), user="U0BOB"))  # French
    assert french in words and "exploitant" in words, words
