"""Secrets stay secret (logs, replies, metrics, Redis) and are encrypted at rest on request;
logs are JSON lines off a terminal, with a request id and upstream durations."""

from __future__ import annotations

import datetime as dt
import io
import json
import logging

import pytest
from cryptography.fernet import Fernet
from pydantic import SecretStr

from bot import logs
from bot.config import ConfigError, load_settings
from bot.demo.albert import BOOTSTRAP
from bot.inference import joined, rotate
from clients.inference.key_store import KeyStore
from clients.redis_keys import key as redis_key
from clients.retry import RetryPolicy
from clients.secret_box import SecretBox
from tests.conftest import make_digest_job, start_bot, text_of
from tests.slack_requests import (
    SIGNING_SECRET,
    event_body,
    signed_headers,
    view_submission_body,
)


@pytest.fixture
def encrypted(settings):
    return settings.model_copy(update={"token_encryption_key": SecretStr(Fernet.generate_key().decode())})


async def test_tokens_are_encrypted_at_rest_and_still_reused(encrypted, redis, slack, meet, alice):
    async for bot in start_bot(encrypted, redis, slack):
        await bot.reply("list")
        await bot.reply("list")
    [token] = meet.tokens
    assert len(meet.token_requests) == 1
    values = [await redis.get(name) for name in await redis.keys(redis_key("token:*"))]
    assert values and all(value.startswith("fernet:") and token not in value for value in values)


async def test_a_changed_encryption_key_reads_as_a_cache_miss(encrypted, redis, slack, meet, alice):
    async for bot in start_bot(encrypted, redis, slack):
        await bot.reply("list")
    rekeyed = encrypted.model_copy(update={"token_encryption_key": SecretStr(Fernet.generate_key().decode())})
    async for bot in start_bot(rekeyed, redis, slack):
        assert "no video room yet" in text_of(await bot.reply("list"))
    assert len(meet.token_requests) == 2


async def test_the_bots_inference_key_is_encrypted_at_rest(redis, albert):
    box = SecretBox(SecretStr(Fernet.generate_key().decode()))
    keys = KeyStore(redis, SecretStr(BOOTSTRAP), box)
    ai = joined(keys, albert.url, "albert-small")
    new = (await rotate(ai, expires_in_days=30)).new
    raw = await redis.get(redis_key("albert:active-key"))
    assert raw.startswith("fernet:") and new.secret.get_secret_value() not in raw
    assert (await keys.current()).get_secret_value() == new.secret.get_secret_value()
    await ai.service.aclose()


def test_a_malformed_encryption_key_stops_start_up_naming_the_variable(monkeypatch):
    monkeypatch.setenv("TOKEN_ENCRYPTION_KEY", "not-a-fernet-key")
    with pytest.raises(ConfigError, match=r"TOKEN_ENCRYPTION_KEY is malformed: .*Fernet") as caught:
        load_settings(_env_file=None)
    assert "not-a-fernet-key" not in str(caught.value)


async def test_no_secret_reaches_logs_replies_metrics_or_redis(encrypted, redis, slack, meet, alice, ds, albert, caplog):
    """Runs the main flows with known secrets and looks for them everywhere a person or an operator reads."""
    settings = encrypted.model_copy(update={"ds_api_url": ds.url, "ds_api_token": SecretStr(ds.token),
                                            "digest_channel": "C0DIGEST", "digest_demarches": [101],
                                            "albert_api_key": SecretStr(BOOTSTRAP)})
    slack.add_user("U0BOB", "bob@example.gouv.fr", locale="fr-FR")
    ds.add_demarche(101, "Un", dossiers=12)
    with caplog.at_level(logging.DEBUG):
        async for bot in start_bot(settings, redis, slack):
            await bot.reply("new restricted")
            room = next(iter(meet.rooms.values()))
            meet.expire_tokens()  # forces the 401 → refresh path
            await bot.reply("list")
            await bot.click("room_share_channel", room["id"])
            await bot.click("room_send_dm", room["id"])
            await bot.runtime.tasks.drain(5)
            modal = slack.called("views.open")[0].args["view"]
            modal = json.loads(modal) if isinstance(modal, str) else modal
            values = {"people": {"people": {"type": "multi_users_select", "selected_users": ["U0BOB"]}}}
            await bot.post(view_submission_body(modal["callback_id"], values, modal["private_metadata"], "U0ALICE"))
            for event_id, event in (("Ev1", {"type": "app_home_opened", "user": "U0ALICE", "tab": "home"}),
                                    ("Ev2", {"type": "link_shared", "channel": "C0CHAN", "user": "U0ALICE", "message_ts": "1.2",
                                             "links": [{"url": room["url"], "domain": "x"}]})):
                body = event_body(event, event_id=event_id)
                await bot.post(body, signed_headers(body))
            await bot.runtime.tasks.drain(5)
            meet.app_config.client_secret = "changed-on-the-server"  # a misconfiguration, reported to the log
            await bot.reply("new")
            metrics = (await bot.http.get("/metrics")).text

        joint = joined(KeyStore(redis, settings.albert_api_key, settings.secret_box), albert.url, "albert-small",
                       RetryPolicy(attempts=2))
        rotated = (await rotate(joint, expires_in_days=30)).new
        job, service = make_digest_job(settings, redis, ds, bot.runtime.app.client, joint.service)
        await job.run(dt.date(2026, 1, 5))
        await service.aclose()
        await joint.service.aclose()

    secrets = {
        "slack bot token": settings.slack_bot_token.get_secret_value(),
        "signing secret": SIGNING_SECRET,
        "room-service secret": "app-secret-value",
        "dossier token": ds.token,
        "bootstrap inference key": BOOTSTRAP,
        "rotated inference key": rotated.secret.get_secret_value(),
        "encryption key": settings.token_encryption_key.get_secret_value(),
        **{f"access token {i}": token for i, token in enumerate(meet.tokens)},
    }
    assert len(meet.tokens) >= 2 and slack.posted("C0DIGEST") and albert.chats
    seen_by_people = json.dumps([slack.responses, [c.args for c in slack.calls]])
    names = await redis.keys("*")
    redis_names = " ".join(names)
    redis_values = " ".join([str(await redis.get(k)) for k in names if await redis.type(k) == "string"])
    places = {"logs": caplog.text, "Slack": seen_by_people, "metrics": metrics, "Redis key names": redis_names,
              "Redis values": redis_values}
    leaks = [(what, where) for what, secret in secrets.items() for where, text in places.items() if secret in text]
    assert leaks == []


async def test_json_log_lines_carry_the_request_id_and_upstream_durations(bot, alice, meet, restore_logging, monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    logs.configure("INFO", json_lines=True)
    await bot.reply("list")
    await bot.reply("list")
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    calls = [line for line in lines if line.get("service") == "rooms"]
    assert {"time", "level", "logger", "message", "request_id", "status", "duration_ms"} <= set(calls[0])
    assert calls[0]["message"].startswith("rooms answered 200 in")
    ids = [line["request_id"] for line in calls]
    assert "-" not in ids and len(set(ids)) == 2  # the token and list calls of the first command share one id


def test_on_a_terminal_lines_are_readable(restore_logging, monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    logs.configure("INFO", json_lines=False)
    logging.getLogger("roombot.test").info("hello %s", "there")
    assert stream.getvalue().rstrip().endswith("INFO    [-] roombot.test: hello there")


@pytest.mark.parametrize("json_lines", [True, False])
async def test_no_email_address_in_any_log_line_even_at_debug(settings, redis, alice, meet, slack, restore_logging,
                                                               monkeypatch, json_lines):
    """At DEBUG, Bolt's per-request client logs whole `users.info` answers: profiles with e-mails."""
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    logs.configure("DEBUG", json_lines=json_lines)  # as `serve` does, before the app is built
    slack.add_user("U0BOB", "bob.durand@example.gouv.fr", locale="fr-FR")  # no room-service account
    async for bot in start_bot(settings, redis, slack):
        await bot.reply("new")
        await bot.reply("list", user="U0BOB")
        meet.app_config.client_secret = "changed-on-the-server"  # a misconfiguration, reported to the log
        await bot.reply("list", user="U0BOB")
    written = stream.getvalue()
    assert "users.info" in written and len(written.splitlines()) > 20  # DEBUG really was on
    assert "@example.gouv.fr" not in written.lower() and "xoxb-" not in written
