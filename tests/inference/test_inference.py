"""The inference service: one retry policy, every error shape, cut streams, key routes, rotation,
and the digest's AI line — against a loopback fake with Albert's real shapes and faults."""

from __future__ import annotations

import datetime as dt
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot import operator_advice as advice
from bot.commands.keys import mask
from bot.config import Settings
from bot.demo.albert import BOOTSTRAP, MASTER, FakeAlbert
from bot.inference import ExpiryWatch, Inference, Rotation, joined, rotate
from clients.inference.api_keys import ApiKey
from clients.inference.errors import (
    AccountRefused,
    InferenceError,
    InferenceRefused,
    InferenceUnavailable,
    InferenceUnreachable,
    KeyRejected,
    ModelUnreachable,
    NotAUserKey,
    QuotaExhausted,
)
from clients.inference.key_store import ActiveKey, KeyStore
from clients.inference.service import InferenceService
from clients.retry import RetryPolicy
from tests.conftest import ROOT

MESSAGES = [{"role": "user", "content": "Bonjour"}]


def _pair(rotation: Rotation) -> tuple[ApiKey, ActiveKey | None]:
    return rotation.new, rotation.previous


def explain(error: Exception, url: str) -> str:
    """What the operator reads of `error`, with the service at `url`."""
    assert isinstance(error, InferenceError)
    return advice.inference(error, Settings(_env_file=None, albert_api_url=url))


class Sleeps(list):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
async def service(albert: FakeAlbert, sleeps: Sleeps):
    async def bootstrap() -> SecretStr:
        return SecretStr(BOOTSTRAP)

    client = InferenceService(albert.url, bootstrap, model="albert-small",
                              policy=RetryPolicy(attempts=3, budget=60, sleep=sleeps, jitter=lambda: 1.0, base_delay=1.0))
    yield client
    await client.aclose()


async def test_completion(service: InferenceService, albert: FakeAlbert):
    assert await service.complete(MESSAGES) == albert.reply
    assert albert.chats[0]["model"] == "albert-small" and "stream" not in albert.chats[0]


async def test_429_without_retry_after_backs_off_then_succeeds(service, albert: FakeAlbert, sleeps):
    albert.faults = ["429", "429"]
    assert await service.complete(MESSAGES) == albert.reply
    assert sleeps == [1.0, 2.0] and len(albert.chats) == 3


async def test_a_per_minute_429_without_reset_information_is_outwaited_within_the_budget(service, albert: FakeAlbert, sleeps):
    """Three attempts would give up after ~3 s of a 30 s budget and lose the AI line."""
    albert.faults = ["429"] * 5
    assert await service.complete(MESSAGES) == albert.reply
    assert len(albert.chats) == 6 and sleeps == [1.0, 2.0, 4.0, 8.0, 8.0]


async def test_daily_quota_429_is_reported_not_retried(service, albert: FakeAlbert, sleeps):
    albert.faults = ["429day"]
    with pytest.raises(QuotaExhausted, match="per day"):
        await service.complete(MESSAGES)
    assert len(albert.chats) == 1 and sleeps == []


async def test_503_waits_its_retry_after(service, albert: FakeAlbert, sleeps):
    albert.faults = ["503"]
    assert await service.complete(MESSAGES) == albert.reply
    assert sleeps == [10.0]


async def test_html_504_is_retried_and_never_shown(service, albert: FakeAlbert, sleeps):
    albert.faults = ["504html"]
    assert await service.complete(MESSAGES) == albert.reply
    albert.faults = ["504html"] * 3
    with pytest.raises(InferenceUnavailable) as caught:
        await service.complete(MESSAGES)
    assert caught.value.detail == "504 Gateway Timeout"


async def test_invalid_key_is_its_own_error(service, albert: FakeAlbert):
    albert.keys[1]["revoked"] = True
    with pytest.raises(KeyRejected, match="Invalid API key"):
        await service.complete(MESSAGES)
    assert len(albert.chats) == 0


async def test_a_complete_stream(service, albert: FakeAlbert):
    assert await service.stream(MESSAGES) == albert.reply
    assert albert.chats[0]["stream"] is True


@pytest.mark.parametrize("cut", ["cut_detail", "cut_event", "cut_drop"])
async def test_a_cut_stream_is_retried_whole_and_its_partial_text_never_returned(service, albert: FakeAlbert, sleeps, cut):
    albert.faults = [cut]
    assert await service.stream(MESSAGES) == albert.reply  # the second, complete stream; not partial + complete
    assert len(albert.chats) == 2 and len(sleeps) == 1
    albert.faults = [cut] * 3
    with pytest.raises(InferenceUnavailable):
        await service.stream(MESSAGES)


@pytest.mark.parametrize("generation", [0, 1, 2, 3])
async def test_key_routes_of_every_generation(service, albert: FakeAlbert, generation: int):
    albert.generation = generation
    for index in range(4):
        albert._add_key(f"extra-{index}", f"sk-extra-secret-number-{index}-padding", None)
    expires = int(dt.datetime.now(dt.UTC).timestamp()) + 86400
    created = await service.api_keys.create("roombot-test", expires)
    assert created.secret is not None and created.secret.get_secret_value().startswith("sk-")
    listed = await service.api_keys.all(limit=2)  # pages of 2: with or without `total`
    assert [k.name for k in listed] == ["operator", "extra-0", "extra-1", "extra-2", "extra-3", "roombot-test"]
    assert all("..." in k.secret.get_secret_value() for k in listed if k.secret)  # masked by the service
    fetched = await service.api_keys.get(created.id)
    assert fetched.name == "roombot-test" and fetched.expires == expires
    await service.api_keys.revoke(created.id)
    assert albert.keys[int(created.id)]["revoked"] is True
    assert albert.route in {path for _, path, _ in albert.calls}


async def test_rotation_uses_the_new_key_revokes_the_bots_previous_one_and_keeps_the_bootstrap(albert: FakeAlbert, redis, sleeps):
    keys = KeyStore(redis, SecretStr(BOOTSTRAP))
    ai = Inference(InferenceService(albert.url, keys.current, model="albert-small", policy=RetryPolicy(sleep=sleeps)), keys)
    first, previous = _pair(await rotate(ai, expires_in_days=30, today=dt.date(2026, 11, 22)))
    assert previous is None and first.name == "roombot-2026-11-22"
    assert (await keys.current()).get_secret_value() == first.secret.get_secret_value()
    assert albert.calls[-1][2] == first.secret.get_secret_value()  # proved with a real call using the new key

    second, previous = _pair(await rotate(ai, expires_in_days=30, today=dt.date(2026, 11, 23)))
    assert previous is not None and previous.id == first.id
    assert albert.keys[int(first.id)]["revoked"] is True
    assert albert.live(BOOTSTRAP) and albert.live(second.secret.get_secret_value())
    await ai.service.complete(MESSAGES)
    assert albert.calls[-1][2] == second.secret.get_secret_value()
    await ai.service.aclose()


async def test_a_new_key_that_does_not_work_is_revoked_and_the_old_one_kept(albert: FakeAlbert, redis, sleeps):
    keys = KeyStore(redis, SecretStr(BOOTSTRAP))
    ai = Inference(InferenceService(albert.url, keys.current, model="albert-small", policy=RetryPolicy(sleep=sleeps)), keys)
    albert.new_keys_work = False
    with pytest.raises(KeyRejected):
        await rotate(ai, expires_in_days=30)
    assert await keys.active() is None and (await keys.current()).get_secret_value() == BOOTSTRAP
    assert all(k["revoked"] for k in albert.keys.values() if k["name"].startswith("roombot-"))
    await ai.service.aclose()


async def test_expiry_warning_once_a_day_within_seven_days(albert: FakeAlbert, redis, caplog):
    keys = KeyStore(redis, SecretStr(BOOTSTRAP))
    from clients.inference.api_keys import ApiKey

    soon = int(dt.datetime.now(dt.UTC).timestamp()) + 3 * 86400
    await keys.activate(ApiKey(id=7, name="roombot-2026-08-24", secret=SecretStr("sk-x" * 10), expires=soon))
    watch = ExpiryWatch(keys)
    with caplog.at_level(logging.WARNING):
        await watch(dt.date(2026, 11, 22))
        await watch(dt.date(2026, 11, 22))
        await watch(dt.date(2026, 11, 23))
    warnings = [r for r in caplog.records if "expires on" in r.getMessage()]
    assert len(warnings) == 2 and "keys rotate" in warnings[0].getMessage()
    assert "sk-x" not in caplog.text


def stored_service(albert: FakeAlbert, redis, sleeps) -> Inference:
    return joined(KeyStore(redis, SecretStr(BOOTSTRAP)), albert.url, "albert-small", RetryPolicy(sleep=sleeps))


async def test_a_revoked_rotated_key_falls_back_to_the_bootstrap_key(albert: FakeAlbert, redis, sleeps, caplog):
    ai = stored_service(albert, redis, sleeps)
    new = (await rotate(ai, expires_in_days=30)).new
    albert.keys[int(new.id)]["revoked"] = True  # revoked by hand in the service, or expired
    with caplog.at_level(logging.WARNING):
        assert await ai.service.complete(MESSAGES) == albert.reply
        assert await ai.service.complete(MESSAGES) == albert.reply
    assert albert.calls[-1][2] == BOOTSTRAP and await ai.keys.active() is None
    said = [r.getMessage() for r in caplog.records if "refused the bot's key" in r.getMessage()]
    assert len(said) == 1 and "ALBERT_API_KEY" in said[0] and "keys rotate" in said[0]
    assert new.secret.get_secret_value() not in caplog.text
    assert next(k.name for k in await ai.service.api_keys.all()) == "operator"  # `keys list` keeps working
    second, previous = _pair(await rotate(ai, expires_in_days=30))  # and so does `keys rotate`
    assert previous is None and (await ai.keys.current()).get_secret_value() == second.secret.get_secret_value()
    await ai.service.aclose()


@pytest.mark.parametrize("generation", [0, 2, 3])
async def test_a_capped_expiry_is_read_back_from_the_service(albert: FakeAlbert, redis, sleeps, generation: int):
    """A server with a maximum key lifetime caps `expires: null` without saying so in its reply."""
    albert.generation, albert.max_expiry_days = generation, 90
    ai = stored_service(albert, redis, sleeps)
    new = (await rotate(ai, expires_in_days=0)).new
    in_90_days = dt.datetime.now(dt.UTC).timestamp() + 90 * 86400
    assert new.expires is not None and abs(new.expires - in_90_days) < 60
    active = await ai.keys.active()
    assert active is not None and active.expires == new.expires
    assert active.expires_within(91, dt.datetime.now(dt.UTC))  # so the expiry warning can fire
    await ai.service.aclose()


def test_secrets_masked_by_the_service_are_shown_as_they_came():
    assert mask("sk-eyJhb...SGsZyhiw") == "sk-eyJhb...SGsZyhiw"
    assert mask("sk-" + "x" * 40 + "abcd") == "sk-xxx…abcd"


@pytest.mark.parametrize(("fault", "kind", "words"), [
    ("500connect", ModelUnreachable, "cannot reach its model"),
    ("504busy", ModelUnreachable, "cannot reach its model"),
])
async def test_which_side_failed_is_said(service, albert: FakeAlbert, fault, kind, words):
    albert.faults = [fault] * 3
    with pytest.raises(kind) as raised:
        await service.complete(MESSAGES)
    assert words in explain(raised.value, albert.url)


async def test_an_unreachable_service_and_a_refusal_are_told_apart(albert: FakeAlbert, sleeps):
    from tests.processes import free_port

    async def key() -> SecretStr:
        return SecretStr(BOOTSTRAP)

    url = f"http://127.0.0.1:{free_port()}"
    closed = InferenceService(url, key, model="albert-small", policy=RetryPolicy(sleep=sleeps))
    with pytest.raises(InferenceUnreachable) as raised:
        await closed.complete(MESSAGES)
    assert f"cannot reach the inference service at {url}" in explain(raised.value, url)
    await closed.aclose()
    refused = InferenceService(albert.url, key, model="no-such-model", policy=RetryPolicy(sleep=sleeps))
    albert.faults = []
    with pytest.raises(InferenceRefused):
        await refused.api_keys.get(999_999)
    await refused.aclose()


async def test_the_master_key_on_key_routes_is_explained(albert: FakeAlbert, sleeps):
    async def master() -> SecretStr:
        return SecretStr(MASTER)

    service = InferenceService(albert.url, master, model="albert-small", policy=RetryPolicy(sleep=sleeps))
    assert await service.complete(MESSAGES) == albert.reply  # it may chat...
    with pytest.raises(NotAUserKey) as raised:
        await service.api_keys.all()  # ...but owns no keys
    assert "master key" in explain(raised.value, albert.url)
    await service.aclose()


def test_keys_commands(tmp_path: Path, albert: FakeAlbert):
    root = ROOT
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "ALBERT_API_URL": albert.url, "ALBERT_API_KEY": BOOTSTRAP,
           "DATA_DIR": str(tmp_path)}

    def keys(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "bot", "keys", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=60)

    first = keys("rotate", "--expires-in-days", "30")
    assert first.returncode == 0, first.stderr
    assert "now using roombot-" in first.stdout and "bootstrap key ALBERT_API_KEY is kept" in first.stdout
    second = keys("rotate")
    assert "revoked the bot's previous key" in second.stdout
    listing = keys("list")
    assert listing.returncode == 0, listing.stderr
    assert "bootstrap (ALBERT_API_KEY)" in listing.stdout and "active (rotated)" in listing.stdout
    # piped, as in a cron mail: whole tab-separated rows, each key's masked secret as the service masked it
    rows = listing.stdout.splitlines()
    assert rows[1] == "id\tname\tsecret\texpires\tcreated\tused by the bot"
    live = [k for k in albert.keys.values() if not k["revoked"]]
    for key in live:
        assert any(row.split("\t")[:3] == [str(key["id"]), key["name"], f"{key['secret'][:8]}...{key['secret'][-8:]}"] for row in rows)
    every_secret = [k["secret"] for k in albert.keys.values()]
    for output in (first.stdout, second.stdout, listing.stdout, first.stderr, listing.stderr):
        assert not any(secret in output for secret in every_secret)
    assert albert.live(BOOTSTRAP)
    missing = subprocess.run([sys.executable, "-m", "bot", "keys", "list"], cwd=tmp_path,
                             env={k: v for k, v in env.items() if k != "ALBERT_API_KEY"}, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "ALBERT_API_KEY" in missing.stderr
    master = subprocess.run([sys.executable, "-m", "bot", "keys", "list"], cwd=tmp_path,
                            env={**env, "ALBERT_API_KEY": MASTER, "DATA_DIR": str(tmp_path / "no-rotated-key")},
                            capture_output=True, text=True, timeout=60)
    assert master.returncode == 1 and "master key" in master.stderr and "Traceback" not in master.stderr


def test_the_openapi_spec_has_the_routes_we_call():
    from tests.conftest import DATA

    spec = json.loads((DATA / "albert-openapi.json").read_text())
    assert {"/v1/chat/completions", "/v1/models", "/v1/me/keys", "/v1/me/keys/{key}"} <= set(spec["paths"])
    create = spec["paths"]["/v1/me/keys"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    fields = spec["components"]["schemas"][create.rsplit("/", 1)[1]]["properties"]
    assert {"name", "expires"} <= set(fields)


def _keys_command(tmp_path: Path, albert: FakeAlbert, *args: str, key: str = BOOTSTRAP) -> subprocess.CompletedProcess:
    root = ROOT
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "ALBERT_API_URL": albert.url, "ALBERT_API_KEY": key,
           "DATA_DIR": str(tmp_path)}
    return subprocess.run([sys.executable, "-m", "bot", "keys", *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)


def test_the_master_key_is_told_apart_even_where_its_listing_answers_200_empty(tmp_path: Path, albert: FakeAlbert):
    albert.generation = 0  # the 0.1.x gateway: root /tokens routes, and 200 `data: []` for the master key
    listed = _keys_command(tmp_path, albert, "list", key=MASTER)
    assert listed.returncode == 1 and "master key" in listed.stderr and "inference API keys" not in listed.stdout
    rotated = _keys_command(tmp_path, albert, "rotate", key=MASTER)
    assert rotated.returncode == 1 and "master key" in rotated.stderr  # the same words for both


async def test_an_expired_account_is_not_mistaken_for_a_revoked_key(albert: FakeAlbert, redis, sleeps):
    ai = stored_service(albert, redis, sleeps)
    new = (await rotate(ai, expires_in_days=30)).new
    albert.account_expired = True  # every key of the account is refused, the bootstrap key too
    with pytest.raises(AccountRefused) as raised:
        await ai.service.complete(MESSAGES)
    active = await ai.keys.active()
    assert active is not None and str(active.id) == str(new.id)  # kept: good again once the account is
    assert "the account itself is refused" in explain(raised.value, albert.url)
    albert.account_expired = False
    assert await ai.service.complete(MESSAGES) == albert.reply and albert.calls[-1][2] == new.secret.get_secret_value()
    await ai.service.aclose()


async def test_a_key_given_up_on_is_revoked_at_the_next_rotation(albert: FakeAlbert, redis, sleeps):
    ai = stored_service(albert, redis, sleeps)
    new = (await rotate(ai, expires_in_days=30)).new
    albert.keys[int(new.id)]["disabled"] = True  # refused for a while (the bootstrap key works): given up on
    assert await ai.service.complete(MESSAGES) == albert.reply
    assert await ai.keys.active() is None and await ai.keys.forgotten() == [str(new.id)]
    albert.keys[int(new.id)]["disabled"] = False  # it still exists, and works: nobody should hold it unknowingly
    rotation = await rotate(ai, expires_in_days=30)
    assert rotation.revoked_forgotten == (str(new.id),) and albert.keys[int(new.id)]["revoked"]
    assert await ai.keys.forgotten() == []
    await ai.service.aclose()


def test_a_gateway_capping_key_lifetimes_gets_the_longest_it_allows(tmp_path: Path, albert: FakeAlbert):
    albert.max_expiry_days = 30
    rotated = _keys_command(tmp_path, albert, "rotate")  # 90 days by default: refused by this gateway
    assert rotated.returncode == 0, rotated.stderr
    assert "allows keys of 30 days at most (not 90)" in rotated.stdout
    [created] = [k for k in albert.keys.values() if k["name"].startswith("roombot-")]
    in_30_days = dt.datetime.now(dt.UTC).timestamp() + 30 * 86400
    until = dt.datetime.fromtimestamp(created["expires"], dt.UTC).date()
    assert abs(created["expires"] - in_30_days) < 60 and f"until {until}" in rotated.stdout


async def test_a_providers_html_page_and_a_cut_stream_are_said_in_words(service, albert: FakeAlbert, caplog):
    albert.faults = ["502html"] * 3
    with caplog.at_level(logging.INFO), pytest.raises(ModelUnreachable) as raised:
        await service.complete(MESSAGES)
    assert raised.value.detail == "502 Bad Gateway" and "<html" not in caplog.text.lower()
    albert.faults = ["cut_detail"] * 3
    with pytest.raises(InferenceUnavailable) as cut:
        await service.stream(MESSAGES)
    assert "the gateway cut the answer: Model is too busy (RemoteProtocolError)" in cut.value.detail


def test_the_bootstrap_key_is_no_fallback_once_the_bots_key_is_gone(tmp_path: Path, albert: FakeAlbert):
    assert _keys_command(tmp_path, albert, "rotate").returncode == 0
    rows = _keys_command(tmp_path, albert, "list").stdout
    assert "bootstrap (ALBERT_API_KEY), fallback" in rows and "active (rotated)" in rows
    for key in albert.keys.values():
        if key["name"].startswith("roombot-"):
            key["revoked"] = True  # revoked by hand on the service
    rows = _keys_command(tmp_path, albert, "list").stdout
    assert "bootstrap (ALBERT_API_KEY), active" in rows and "fallback" not in rows
