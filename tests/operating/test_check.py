"""`python -m bot check`: one line per configured service, ✓ or ✗ with what to do; exit 1 on any ✗."""

from __future__ import annotations

import asyncio
import logging
import re

import pytest

from bot.cli import main
from bot.commands.check import log_failures
from bot.config import load_settings
from bot.demo.albert import BOOTSTRAP, FakeAlbert
from bot.demo.ds import FakeDS
from bot.demo.meet import FakeMeet
from bot.scopes import REQUIRED_SCOPES
from tests.conftest import ROOT, VERSION, bot_env
from tests.fakes.slack import FakeSlack


@pytest.fixture
def configured(monkeypatch, tmp_path, redis_url, redis, meet: FakeMeet, slack: FakeSlack, ds: FakeDS, albert: FakeAlbert,
               restore_logging):
    """The environment of an operator who configured every service."""
    slack.scopes |= REQUIRED_SCOPES
    env = {**bot_env(meet, slack), "REDIS_URL": redis_url, "DATA_DIR": str(tmp_path), "DS_API_URL": ds.url,
           "DS_API_TOKEN": ds.token, "DIGEST_CHANNEL": "C0DIGEST", "DIGEST_DEMARCHES": "101,102",
           "ALBERT_API_URL": albert.url, "ALBERT_API_KEY": BOOTSTRAP}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    ds.add_demarche(101, "Un", dossiers=1)
    ds.add_demarche(102, "Deux", dossiers=1)
    meet.add_user("alice@example.gouv.fr")
    return env


def check(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["check", *args])
    version, *lines = capsys.readouterr().out.strip().splitlines()
    assert version == f"roombot {VERSION}"  # which notes of CHANGELOG.md apply
    for line in lines:  # words for the operator, never the name of an exception class
        assert not re.search(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b", line), line
    return code, lines


def part(lines: list[str], name: str) -> str:
    [line] = [line for line in lines if line[2:].startswith(name + ":")]
    return line


def test_every_part_passes_when_the_configuration_works(configured, capsys):
    code, lines = check(capsys, "--as", "alice@example.gouv.fr")
    assert code == 0, lines
    assert [line.split(":")[0] for line in lines] == ["✓ Redis", "✓ Slack", "✓ room service", "✓ dossier service",
                                                     "✓ inference service"]
    assert "persistence: AOF" in lines[0] and "their 0 room(s)" in lines[2] and "2 configured démarche(s)" in lines[3]


def test_each_failure_is_one_line_with_what_to_do(configured, capsys, slack: FakeSlack, ds: FakeDS, albert: FakeAlbert,
                                                  monkeypatch):
    slack.scopes.discard("files:write")
    ds.out_of_scope.add(102)
    monkeypatch.setenv("ALBERT_MODEL", "no-such-model")
    code, lines = check(capsys, "--as", "nobody@example.gouv.fr")
    assert code == 1
    failed = {line.split(":")[0]: line for line in lines if line.startswith("✗")}
    assert set(failed) == {"✗ Slack", "✗ room service", "✗ dossier service", "✗ inference service"}
    assert "files:write" in failed["✗ Slack"] and "reinstall" in failed["✗ Slack"]
    assert "no account for nobody@example.gouv.fr" in failed["✗ room service"]
    assert "n° 102 (the token may not read it)" in failed["✗ dossier service"]
    assert "set ALBERT_MODEL" in failed["✗ inference service"]
    assert not any(secret in "\n".join(lines) for secret in (BOOTSTRAP, ds.token, "xoxb-test-bot-token"))


def test_a_missing_optional_scope_is_a_warning_that_says_what_it_gives(configured, capsys, slack: FakeSlack):
    slack.scopes.discard("files:read")
    code, lines = check(capsys)
    assert code == 0, lines
    [said] = [line for line in lines if line.startswith("⚠ Slack")]
    assert "without files:read" in said and "/dossier window" in said and "acts go without files" in said
    assert "reinstall the app" in said


async def test_serve_logs_each_failure_in_one_line_and_goes_on(configured, redis, slack: FakeSlack, caplog):
    slack.scopes.discard("links:write")
    with caplog.at_level(logging.WARNING):
        await log_failures(load_settings(_env_file=None), redis)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("start-up check")]
    assert len(lines) == 1 and "links:write" in lines[0]


def test_a_redis_that_keeps_nothing_is_a_failure_even_though_info_shows_a_save_time(configured, capsys, monkeypatch, tmp_path):
    from tests.processes import free_port
    from tests.redis_topologies import Servers

    port = free_port()
    with Servers(tmp_path / "bare") as servers:  # --save "" --appendonly no
        servers.start(port)
        monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{port}/0")
        code, lines = check(capsys)
    assert code == 1 and lines[0].startswith("✗ Redis") and "no persistence: enable AOF" in lines[0], lines


@pytest.mark.parametrize(("broken", "says"), [
    ({"client_secret": "wrong"}, "knows no application with this MEET_CLIENT_ID (roombot-app) and MEET_CLIENT_SECRET"),
    ({"inactive": True}, "the application roombot-app is inactive on the room service: ask its administrator"),
    ({"url": "/api/v1.0"}, "MEET_API_URL must end in /external-api/v1.0"),
    ({"external_api": False}, "must run with EXTERNAL_API_ENABLED=True"),
    ({"applications": False}, "runs with APPLICATION_ENABLED=False"),
    ({"unreachable": True}, "cannot reach 127.0.0.1:"),
])
def test_without_a_person_the_room_service_credentials_are_proved(configured, capsys, monkeypatch, meet: FakeMeet, broken, says):
    meet.app_config.active = not broken.get("inactive")
    meet.external_api_enabled = broken.get("external_api", True)
    meet.applications_enabled = broken.get("applications", True)
    if "client_secret" in broken:
        monkeypatch.setenv("MEET_CLIENT_SECRET", broken["client_secret"])
    if "url" in broken:
        monkeypatch.setenv("MEET_API_URL", meet.base + broken["url"])
    if broken.get("unreachable"):
        from tests.processes import free_port

        monkeypatch.setenv("MEET_API_URL", f"http://127.0.0.1:{free_port()}/external-api/v1.0")
    code, lines = check(capsys)
    assert code == 1 and part(lines, "room service").startswith("✗") and says in part(lines, "room service"), lines


def test_right_credentials_are_proved_without_acting_for_anyone(configured, capsys, meet: FakeMeet):
    code, lines = check(capsys)
    assert code == 0, lines
    assert "application roombot-app accepted" in part(lines, "room service") and "--as EMAIL" in part(lines, "room service")
    assert meet.token_requests == ["roombot-check"] and meet.rooms == {}


@pytest.mark.parametrize(("scopes", "lacking"), [
    ("rooms:list", "rooms:retrieve, rooms:create"),
    ("rooms:list rooms:retrieve", "rooms:create"),
    (None, "rooms:list, rooms:retrieve, rooms:create"),  # an application without any: no `scope` in the reply
])
def test_the_applications_scopes_are_checked_with_a_persons_token(configured, capsys, meet: FakeMeet, scopes, lacking):
    meet.app_config.scopes = scopes
    code, lines = check(capsys, "--as", "alice@example.gouv.fr")
    line = part(lines, "room service")
    assert code == 1 and line.startswith("✗") and f"lacks the scope(s) {lacking}:" in line and "administrator" in line


def test_an_optional_scope_lacking_is_a_warning_naming_the_command_it_serves(configured, capsys, meet: FakeMeet, monkeypatch):
    """A verb whose call not every room service routes yet (OPTIONAL_SCOPES): its scope missing
    leaves every deployment working, so `check` warns instead of failing."""
    monkeypatch.setattr("bot.commands.checks.rooms.ROOM_OPTIONAL_SCOPES", {"rooms:delete": "/room delete"})
    meet.app_config.scopes = "rooms:list rooms:retrieve rooms:create"  # what the service grants today
    code, lines = check(capsys, "--as", "alice@example.gouv.fr")
    line = part(lines, "room service")
    assert code == 0 and line.startswith("⚠") and "lacks rooms:delete: /room delete will say it is not available" in line
    meet.expires_in = 5  # a second warning adds to the first, never hides it
    line = part(check(capsys, "--as", "alice@example.gouv.fr")[1], "room service")
    assert "lacks rooms:delete" in line and "tokens last 5 s" in line


def test_tokens_too_short_to_cache_are_a_warning(configured, capsys, meet: FakeMeet):
    meet.expires_in = 5
    code, lines = check(capsys, "--as", "alice@example.gouv.fr")
    line = part(lines, "room service")
    assert code == 0 and line.startswith("⚠") and "tokens last 5 s" in line and "APPLICATION_JWT_EXPIRATION_SECONDS" in line


async def test_a_digest_without_a_dossier_token_is_a_failure_and_serve_says_so(configured, capsys, monkeypatch, redis, caplog):
    monkeypatch.delenv("DS_API_TOKEN")
    with caplog.at_level(logging.WARNING):  # first: main() below configures logging its own way
        await log_failures(load_settings(_env_file=None), redis)
    logged = [r.getMessage() for r in caplog.records if "DS_API_TOKEN" in r.getMessage()]
    code, lines = await _in_thread(check, capsys)
    line = part(lines, "dossier service")
    assert code == 1 and line.startswith("✗") and "DIGEST_CHANNEL and DIGEST_DEMARCHES set but not DS_API_TOKEN" in line
    assert logged == [f"start-up check: {line}"]


def test_check_says_whether_the_dossier_token_may_act(configured, capsys, ds: FakeDS):
    code, lines = check(capsys)
    assert code == 0 and part(lines, "dossier service").endswith("; it may act on dossiers (/dossier)")
    ds.read_only.add(ds.token)
    code, lines = check(capsys)
    line = part(lines, "dossier service")
    assert code == 0 and line.startswith("⚠") and "it may only read" in line and "read and write access" in line
    assert [name for name, _ in ds.acts.done] == ["dossierBasculeSuivi", "dossierBasculeSuivi"]  # on a dossier that exists nowhere
    assert all(not d.followers for demarche in ds.demarches.values() for d in demarche.dossiers)


def test_half_an_operators_digest_is_a_failure(configured, capsys, monkeypatch):
    monkeypatch.delenv("DIGEST_DEMARCHES")
    code, lines = check(capsys)
    assert code == 1 and "the operator's digest is off: set DIGEST_DEMARCHES" in part(lines, "dossier service")


def test_a_dossier_token_alone_is_proved_without_a_demarche(configured, capsys, monkeypatch, ds: FakeDS):
    monkeypatch.delenv("DIGEST_CHANNEL")
    monkeypatch.delenv("DIGEST_DEMARCHES")
    assert check(capsys)[0] == 0
    ds.token = "another-token"
    code, lines = check(capsys)
    assert code == 1 and "DS_API_TOKEN is unknown to the dossier service (revoked" in part(lines, "dossier service")


def test_http_mode_without_a_signing_secret_fails_as_serve_would(configured, capsys, monkeypatch):
    monkeypatch.delenv("SLACK_SIGNING_SECRET")
    code, lines = check(capsys)
    assert code == 1 and part(lines, "Slack").startswith("✗ Slack: set SLACK_SIGNING_SECRET")
    assert main([]) == 2 and "SLACK_SIGNING_SECRET" in capsys.readouterr().err  # serve refuses the same
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1-socket")  # Socket Mode needs no signing secret
    assert part(check(capsys)[1], "Slack").startswith("✓")


def test_slack_out_of_reach_names_the_host(configured, capsys, monkeypatch):
    from tests.processes import free_port

    port = free_port()
    monkeypatch.setenv("SLACK_API_URL", f"http://127.0.0.1:{port}/api/")
    code, lines = check(capsys)
    assert code == 1 and f"cannot reach Slack at 127.0.0.1:{port}: check SLACK_API_URL" in part(lines, "Slack")


def test_a_model_alias_is_accepted_and_a_model_the_key_may_not_use_is_not(configured, capsys, monkeypatch, albert: FakeAlbert):
    monkeypatch.setenv("ALBERT_MODEL", "openweight-small")
    code, lines = check(capsys)
    assert code == 0 and "model openweight-small answers" in part(lines, "inference service")
    assert albert.chats[-1]["model"] == "openweight-small" and albert.chats[-1]["max_completion_tokens"] == 1
    albert.unlimited_models.add("albert-small")
    code, lines = check(capsys)
    line = part(lines, "inference service")
    assert code == 1 and "may not use the model 'openweight-small'" in line and "ALBERT_MODEL" in line


async def _in_thread(function, *args):
    """main() runs its own event loop: from an async test it runs in a thread of its own."""
    import asyncio

    return await asyncio.to_thread(function, *args)


def test_an_empty_variable_is_unset_not_an_empty_secret(configured, capsys, monkeypatch):
    monkeypatch.setenv("DS_API_TOKEN", "")  # as left in a copied .env.example
    code, lines = check(capsys)
    assert code == 1 and "DIGEST_CHANNEL and DIGEST_DEMARCHES set but not DS_API_TOKEN" in part(lines, "dossier service")


def test_a_dossier_service_out_of_reach_is_one_line_not_one_per_demarche(configured, capsys, monkeypatch):
    from tests.processes import free_port

    port = free_port()
    monkeypatch.setenv("DS_API_URL", f"http://127.0.0.1:{port}/api/v2/graphql")
    code, lines = check(capsys)
    said = part(lines, "dossier service")
    assert code == 1 and said == f"✗ dossier service: cannot reach 127.0.0.1:{port}: check DS_API_URL and the network"


def test_a_services_words_reach_the_terminal_without_control_characters(configured, capsys, meet: FakeMeet):
    from bot.demo.meet import Fault

    meet.faults.append(Fault("POST", "/external-api/v1.0/application/token/", 502, {"detail": "bad \x1b]0;pwned\x07\x1b[2J gateway"},
                             times=5))  # past the retries
    code, lines = check(capsys)
    line = part(lines, "room service")
    assert code == 1 and "bad ]0;pwned[2J gateway)" in line and "\x1b" not in line and "\x07" not in line


def test_check_is_not_fooled_about_the_inference_key(configured, capsys, monkeypatch, albert: FakeAlbert, tmp_path) -> None:
    from bot.demo.albert import MASTER

    monkeypatch.setenv("ALBERT_API_KEY", MASTER)  # it chats, but owns no key: the bot could never rotate
    line = part(check(capsys)[1], "inference service")
    assert line.startswith("✗") and "master key" in line and "ALBERT_API_KEY" in line

    monkeypatch.setenv("ALBERT_API_KEY", BOOTSTRAP)
    assert main(["keys", "rotate"]) == 0  # the bot's own key now
    capsys.readouterr()
    albert.keys[1]["revoked"] = True  # ALBERT_API_KEY revoked on the service meanwhile
    code, lines = check(capsys)
    line = part(lines, "inference service")
    assert code == 0 and line.startswith("⚠") and "the bot's key roombot-" in line and "ALBERT_API_KEY itself is refused" in line
    assert main(["keys", "list"]) == 0
    assert "ALBERT_API_KEY is not among the account's keys" in capsys.readouterr().out

    albert.account_expired = True  # every key of the account: no rotation helps
    line = part(check(capsys)[1], "inference service")
    assert line.startswith("✗") and "the account itself is refused" in line and "rotate" not in line


def test_check_names_a_v1_suffix_and_a_moved_gateway(configured, capsys, monkeypatch, albert: FakeAlbert) -> None:
    monkeypatch.setenv("ALBERT_API_URL", albert.url + "/v1")
    line = part(check(capsys)[1], "inference service")
    assert line.startswith("✗") and "ends in /v1" in line and f"ALBERT_API_URL={albert.url}" in line
    monkeypatch.setenv("ALBERT_API_URL", albert.url)
    albert.moved_to = "https://albert.example.gouv.fr"
    line = part(check(capsys)[1], "inference service")
    assert line.startswith("✗") and "is redirected (301) to https://albert.example.gouv.fr/v1/models" in line
    assert "set ALBERT_API_URL=https://albert.example.gouv.fr (its base address" in line


def test_check_names_the_setting_when_the_address_is_not_the_gateway(configured, capsys, monkeypatch, meet: FakeMeet) -> None:
    """Seen trying it: another service's address answered `404 Not Found`, and the line said only
    "refused" without what to set."""
    monkeypatch.setenv("ALBERT_API_URL", meet.base)
    line = part(check(capsys)[1], "inference service")
    assert line.startswith("✗") and "404" in line and "set ALBERT_API_URL to the gateway's address" in line


def test_the_operators_digest_with_oauth_installs_is_a_failure(configured, capsys, monkeypatch) -> None:
    from cryptography.fernet import Fernet

    monkeypatch.delenv("SLACK_BOT_TOKEN")
    oauth = {"SLACK_CLIENT_ID": "1111.2222", "SLACK_CLIENT_SECRET": "s", "TOKEN_ENCRYPTION_KEY": Fernet.generate_key().decode()}
    for name, value in oauth.items():
        monkeypatch.setenv(name, value)
    code, lines = check(capsys)
    line = part(lines, "dossier service")
    assert code == 1 and line.startswith("✗") and "never posted with OAuth installs" in line and "/digest subscribe" in line


async def test_check_as_a_person_learns_where_people_sign_in(configured, capsys, meet: FakeMeet, redis) -> None:
    from clients.redis_keys import application_tag
    from clients.rooms.site import RoomSite

    meet.add_room("alice@example.gouv.fr")  # its link is on the web app's host, not the API's
    code, _ = await asyncio.to_thread(check, capsys, "--as", "alice@example.gouv.fr")
    assert code == 0
    site = RoomSite(redis, application_tag(meet.app_config.client_id), "http://the-api-origin")
    assert await site.origin() == "https://visio.example.gouv.fr"  # before any room link reached Slack


def test_the_example_address_copied_from_env_example_is_named_not_the_network(configured, capsys, monkeypatch):
    """After `cp .env.example .env` and the application's id and secret filled in."""
    [example] = [line.split("=", 1)[1] for line in (ROOT / ".env.example").read_text().splitlines()
                 if line.startswith("MEET_API_URL=")]
    monkeypatch.setenv("MEET_API_URL", example)
    code, lines = check(capsys)
    room = part(lines, "room service")
    assert code == 1 and "MEET_API_URL is still .env.example's address (visio.example.gouv.fr)" in room, room
    assert "network" not in room


def test_check_makes_no_data_folder_where_it_is_run(configured, capsys, monkeypatch, tmp_path):
    """No Redis configured and nothing kept yet: its embedded Redis lives in a temporary folder."""
    monkeypatch.delenv("REDIS_URL")
    monkeypatch.delenv("DATA_DIR")
    here = tmp_path / "anywhere"
    here.mkdir()
    monkeypatch.chdir(here)
    _, lines = check(capsys)
    assert part(lines, "Redis").startswith("✓ Redis: version"), lines
    assert list(here.iterdir()) == []


@pytest.mark.parametrize(("refusal", "says", "never"), [
    ("unknown", "DS_API_TOKEN is unknown to the dossier service (revoked, mistyped", "has expired"),
    ("revoked", "DS_API_TOKEN is unknown to the dossier service (revoked, mistyped", "has expired"),
    ("expired", "DS_API_TOKEN has expired (the service knows it, so it is not revoked", "unknown"),
])
def test_an_expired_token_is_told_apart_from_a_revoked_or_unknown_one(configured, capsys, monkeypatch, ds: FakeDS,
                                                                        refusal, says, never):
    import datetime as dt

    if refusal == "unknown":
        monkeypatch.setenv("DS_API_TOKEN", "a-token-nobody-made")
    elif refusal == "revoked":
        ds.revoked.add(ds.token)
    else:
        ds.expires_on = dt.date.today() - dt.timedelta(days=2)  # whatever the hour in Paris
    code, lines = check(capsys)
    line = part(lines, "dossier service")
    assert code == 1 and line.startswith("✗") and says in line and never not in line, line
    assert "declare there every address the deployment leaves from before its first call" in line


def test_a_token_locked_to_the_network_of_its_first_call_is_told_apart_from_an_unknown_one(configured, capsys, ds: FakeDS):
    """A token made since July 2026 without declared networks: the first pod to call locks it to its
    address; the deployment's other pods, leaving from another address, are refused."""
    ds.ip_filtering = True
    ds.caller = "203.0.113.7"  # the first pod
    assert check(capsys)[0] == 0
    assert ds.networks == ["203.0.113.7/32"]
    ds.caller = "198.51.100.9"  # another node of the cluster
    code, lines = check(capsys)
    line = part(lines, "dossier service")
    assert code == 1 and "refuses DS_API_TOKEN from this machine's address (198.51.100.9/32)" in line
    assert "locked to the address of its first call" in line and "every address the deployment leaves from" in line
    assert "unknown" not in line and "expired" not in line


def test_check_says_when_the_bots_key_was_refused_and_it_fell_back(configured, capsys, albert: FakeAlbert) -> None:
    assert main(["keys", "rotate"]) == 0
    capsys.readouterr()
    for key in albert.keys.values():
        key["revoked"] = key["revoked"] or key["name"].startswith("roombot-")  # revoked by hand on the gateway
    code, lines = check(capsys)
    line = part(lines, "inference service")
    assert code == 0 and line.startswith("⚠ inference service: ALBERT_API_KEY accepted"), line
    assert "the bot's key roombot-" in line and "was refused (revoked or expired): the bot now uses ALBERT_API_KEY" in line
    assert "keys rotate" in line


def test_a_revoked_bootstrap_key_does_not_hide_the_bots_key_expiring(configured, capsys, albert: FakeAlbert) -> None:
    assert main(["keys", "rotate", "--expires-in-days", "3"]) == 0
    capsys.readouterr()
    albert.keys[1]["revoked"] = True  # ALBERT_API_KEY
    line = part(check(capsys)[1], "inference service")
    assert line.startswith("⚠") and "ALBERT_API_KEY itself is refused" in line and "expires within 7 days" in line, line


async def test_check_as_ends_the_bots_refusals_of_a_scope_granted_again_and_says_so(configured, capsys, meet: FakeMeet, redis):
    """A fresh token refused for a scope is believed for minutes: granted again, the bot kept
    refusing while check said ✓."""
    from clients.json_cache import JsonCache
    from clients.redis_keys import application_tag
    from clients.rooms.user_rooms import SCOPE_MISSING, SCOPE_MISSING_TTL

    marks = JsonCache(redis, SCOPE_MISSING, SCOPE_MISSING_TTL)  # as the bot marks a scope the service refused
    tag = application_tag(meet.app_config.client_id)
    await marks.put("Insufficient permissions. Required scope: 'rooms:create'", tag, "rooms:create")
    code, lines = await asyncio.to_thread(check, capsys, "--as", "alice@example.gouv.fr")
    line = part(lines, "room service")
    assert code == 0 and "the bot had been refusing what needs rooms:create" in line and "it works again" in line, line
    assert await marks.get(tag, "rooms:create") is None  # /room new is not refused any more
    line = part((await asyncio.to_thread(check, capsys, "--as", "alice@example.gouv.fr"))[1], "room service")
    assert "had been refusing" not in line


def test_check_as_someone_without_rooms_says_what_it_could_not_learn_and_what_it_made(configured, capsys, meet: FakeMeet,
                                                                                        monkeypatch):
    monkeypatch.delenv("MEET_ROOM_BASE_URL", raising=False)
    line = part(check(capsys, "--as", "alice@example.gouv.fr")[1], "room service")
    assert "with no room of theirs, the bot learnt no web address" in line and "set MEET_ROOM_BASE_URL" in line, line
    assert "on a room service that creates accounts (APPLICATION_ALLOW_USER_CREATION), this check made" in line
    meet.add_room("alice@example.gouv.fr")
    line = part(check(capsys, "--as", "alice@example.gouv.fr")[1], "room service")
    assert "no room of theirs" not in line and "creates accounts" not in line


def test_with_redis_out_of_reach_the_dossier_token_is_still_checked_and_said_so(configured, capsys, monkeypatch, caplog):
    """The channels' subscriptions live in Redis: out of reach, the line says they were not read
    (Redis's own line says what to set) rather than 'an unexpected error' and a traceback."""
    from tests.processes import free_port

    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{free_port()}/0")
    monkeypatch.setenv("REDIS_CLUSTER", "false")
    code, lines = check(capsys)
    assert code == 1 and part(lines, "Redis").startswith("✗") and "REDIS_URL" in part(lines, "Redis")
    said = part(lines, "dossier service")
    assert said.startswith("⚠") and "2 configured démarche(s)" in said and "subscriptions not read" in said, said
    assert not [record for record in caplog.records if record.levelname == "ERROR"]
