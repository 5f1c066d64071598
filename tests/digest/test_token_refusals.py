"""The dossier service's 2026 token rules (ds-graphql.md §10.1) as the stand-in answers them, and
how each refusal reaches the client, the digest's channel and the operator's log."""

from __future__ import annotations

import datetime as dt
import logging

import httpx
import pytest

from bot.demo.ds import FakeDS
from clients.dossiers.digest_store import Outcome
from tests.conftest import text_of
from tests.fakes.slack import FakeSlack

CHANNEL = "C0DIGEST"
WITHOUT_TOKEN = {"errors": [{"message": "Without a token, only the public getDemarcheDescriptor and getDemarcheDescriptors "
                                        "queries and introspection are allowed", "extensions": {"code": "forbidden"}}],
                 "data": None}
EXPIRED = {"errors": [{"message": "Token expired", "extensions": {"code": "unauthorized"}}], "data": None}


def network(address: str) -> dict:
    return {"errors": [{"message": f"Request issued from a forbidden network. Add {address} to your allowed adresses in your "
                                   "/profil", "extensions": {"code": "forbidden"}}], "data": None}


async def ask(ds: FakeDS, token: str | None = None) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.post(ds.url, headers={"Authorization": f"Bearer {token or ds.token}"},
                                 json={"query": "query getDemarcheTitle($n: Int!) { demarche(number: $n) { title } }",
                                       "variables": {"n": 101}, "operationName": "getDemarcheTitle"})


async def test_the_stand_in_answers_each_token_rule_in_the_services_words(ds: FakeDS) -> None:
    ds.add_demarche(101, "Un")
    answer = await ask(ds, "a-token-nobody-made")
    assert (answer.status_code, answer.json()) == (403, WITHOUT_TOKEN)
    ds.ip_filtering = True  # a token made since July 2026, no network declared: its first caller's address
    ds.caller = "2001:db8::1"
    ds.expires_on = dt.date.today() - dt.timedelta(days=2)
    answer = await ask(ds)  # locked first, even though expired: the lock comes before the expiry check
    assert (answer.status_code, answer.json()) == (401, EXPIRED)
    assert ds.networks == ["2001:0db8:0000:0000:0000:0000:0000:0001/128"]  # unabbreviated, as the service writes it
    ds.caller = "203.0.113.7"
    answer = await ask(ds)  # outside the network: said before the expiry
    assert (answer.status_code, answer.json()) == (403, network("203.0.113.7/32"))
    assert ds.stored_ips == {"2001:db8::1", "203.0.113.7"}  # refused callers are recorded too
    ds.networks.append("203.0.113.0/24")  # declared in the profile afterwards
    ds.expires_on = dt.date.today() + dt.timedelta(days=2)
    assert (await ask(ds)).status_code == 200
    ds.revoked.add(ds.token)
    answer = await ask(ds)
    assert (answer.status_code, answer.json()) == (403, WITHOUT_TOKEN)


@pytest.mark.parametrize(("refusal", "reason"), [
    ("revoked", "the dossier service does not know the token (revoked or mistyped): a new one is needed"),
    ("expired", "the dossier service token has expired: a new one is needed"),
    ("network", "the dossier service refuses the bot's network address: the token must list every address the bot leaves from"),
])
async def test_the_first_refusal_says_which_and_what_is_needed_in_the_digest_and_the_log(
        jobs, ds: FakeDS, slack: FakeSlack, caplog, refusal: str, reason: str) -> None:
    ds.add_demarche(101, "Un", dossiers=1)
    ds.add_demarche(102, "Deux", dossiers=1)
    if refusal == "revoked":
        ds.revoked.add(ds.token)
    elif refusal == "expired":
        ds.expires_on = dt.date.today() - dt.timedelta(days=2)
    else:
        ds.networks = ["203.0.113.7/32"]  # locked to the laptop that made the first call
    with caplog.at_level(logging.ERROR):
        assert await jobs().run(dt.date(2026, 1, 5)) is Outcome.POSTED
    [post] = slack.posted(CHANNEL)
    assert f"*Démarche n° 101*: not included, {reason}." in text_of(post)
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR and "101 not counted" in r.getMessage()]
    assert logged and reason in logged[0], logged
    if refusal == "network":
        assert "Add 127.0.0.1/32 to your allowed adresses" in logged[0]  # the address to declare, in the service's words
