"""What the operator reads when the gateway refuses, wherever it is met (`check`, `keys list`,
`keys rotate`, the digest's log): the same words, from one place, naming what to change."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.config import Settings
from bot.demo.albert import BOOTSTRAP, FakeAlbert
from bot.demo.meet import FakeMeet
from bot.inference import inference, rotate
from clients.dossiers.counts import DemarcheCounts
from domain.dossiers.lines import DigestLine
from domain.dossiers.summary import summary_sentence
from tests.inference.test_inference import _keys_command

ACCOUNT = "the account itself is refused (expired or disabled). Ask the gateway's administrators"
LINES = [DigestLine(DemarcheCounts(101, "Un", {"en_construction": 3}, 0, True), None, [3])]


def settings_for(url: str) -> Settings:
    return Settings(_env_file=None, albert_api_url=url, albert_api_key=SecretStr(BOOTSTRAP))


@pytest.mark.parametrize(("moved_to", "base"), [
    ("https://albert.example.gouv.fr", "https://albert.example.gouv.fr"),
    ("https://api.example.gouv.fr/albert", "https://api.example.gouv.fr/albert"),
])
def test_a_moved_gateways_advice_names_its_base_address_not_the_routes(tmp_path: Path, albert: FakeAlbert, moved_to, base):
    """Following the route's own address (…/v1/models) as ALBERT_API_URL gives …/v1/models/v1/models:
    a false "no model" afterwards."""
    albert.moved_to = moved_to
    for action in ("list", "rotate"):
        said = _keys_command(tmp_path, albert, action).stderr
        assert f"set ALBERT_API_URL={base} (its base address" in said, said
        assert "set ALBERT_API_URL to that address" not in said


def test_an_expired_account_is_said_so_by_keys_list_and_keys_rotate(tmp_path: Path, albert: FakeAlbert):
    assert _keys_command(tmp_path, albert, "rotate").returncode == 0  # the bot's own key, ALBERT_API_KEY beside it
    albert.account_expired = True
    for action in ("list", "rotate"):
        done = _keys_command(tmp_path, albert, action)
        assert done.returncode == 1 and ACCOUNT in done.stderr, done.stderr
        assert "set ALBERT_API_KEY to a working key" not in done.stderr  # no key can fix it


def test_keys_list_on_an_address_that_is_not_the_gateway_says_what_to_set(tmp_path: Path, albert: FakeAlbert, meet: FakeMeet):
    albert.url = meet.base  # another service's address: 404 on every route
    done = _keys_command(tmp_path, albert, "list")
    assert done.returncode == 1 and "answers 404 Not Found on the inference service's routes" in done.stderr
    assert "set ALBERT_API_URL to the gateway's address" in done.stderr


@pytest.mark.parametrize(("setup", "level", "words"), [
    (lambda albert: setattr(albert, "faults", ["500cut"] * 5), logging.WARNING,
     "the inference service answered but cannot reach its model (RemoteProtocolError): try again later"),
    (lambda albert: setattr(albert, "url", albert.url + "/not-the-gateway"), logging.ERROR,
     "answers 404 Not Found on the inference service's routes: set ALBERT_API_URL to the gateway's address"),
    (lambda albert: setattr(albert, "account_expired", True), logging.ERROR, ACCOUNT),
])
async def test_the_digests_no_ai_line_log_says_what_to_do(albert: FakeAlbert, redis, caplog, setup, level, words):
    async with inference(settings_for(albert.url), redis) as ai:
        await rotate(ai, expires_in_days=30)  # the bot's key, ALBERT_API_KEY its fallback
    setup(albert)
    async with inference(settings_for(albert.url), redis) as ai:
        ai.service.gateway.policy = replace(ai.service.gateway.policy, sleep=_no_wait)  # the retries, without their waits
        with caplog.at_level(logging.INFO):
            assert await summary_sentence(ai.service, "Say what changed.", LINES) is None
    [line] = [r for r in caplog.records if r.getMessage().startswith("no AI line in the digest")]
    assert line.levelno == level and words in line.getMessage(), line.getMessage()


async def _no_wait(seconds: float) -> None:
    return None
