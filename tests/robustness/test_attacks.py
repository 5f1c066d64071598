"""The bot under replays, bursts, crashes and hostile input: nothing twice, nothing lost, always
an answer, never a 500."""

from __future__ import annotations

import asyncio
import json
import re

from bot.demo.meet import FakeMeet
from tests.conftest import text_of
from tests.fakes.slack import FakeSlack
from tests.slack_requests import action_body, command_body, signed_headers

ROOMS = "/external-api/v1.0/rooms/"


async def test_a_replayed_slash_command_acts_once(bot, slack: FakeSlack, meet: FakeMeet, alice):
    """A captured `/room new` stays validly signed for 5 minutes: replaying it makes no room."""
    body = command_body("new", "U0ALICE", slack.response_url())
    headers = signed_headers(body)
    answers = [await bot.post(body, headers) for _ in range(5)]
    assert [a.status_code for a in answers] == [200] * 5
    await bot.runtime.tasks.drain(5)
    assert len(meet.rooms) == 1 and meet.count("POST", ROOMS) == 1
    assert len(slack.responses) == 1 and "Your video room is ready" in text_of(slack.responses[0])


async def test_copies_of_a_command_sent_at_once_act_once_whichever_round_trip_claims_them(bot, slack: FakeSlack,
                                                                                         meet: FakeMeet, alice):
    """Claims that come together go in one Redis round trip (`Once`, `Batched`): copies of one
    command in the same round trip, or in the next, still make one room."""
    body = command_body("new", "U0ALICE", slack.response_url())
    headers = signed_headers(body)
    answers = await asyncio.gather(*(bot.post(body, headers) for _ in range(12)))
    assert [a.status_code for a in answers] == [200] * 12
    await bot.runtime.tasks.drain(5)
    assert len(meet.rooms) == 1 and meet.count("POST", ROOMS) == 1
    assert len(slack.responses) == 1 and "Your video room is ready" in text_of(slack.responses[0])


async def test_a_burst_of_commands_from_a_few_people_costs_one_token_each(bot, slack: FakeSlack, meet: FakeMeet):
    people = [f"U0P{index}" for index in range(5)]
    for index, user in enumerate(people):
        slack.add_user(user, f"person{index}@example.gouv.fr", locale="en-US")
        meet.add_user(f"person{index}@example.gouv.fr")
    meet.delay = 0.05
    answers = await asyncio.gather(*(bot.command("list", people[i % 5]) for i in range(300)))
    assert all(a.status_code == 200 for a in answers)
    replies = await slack.wait_responses(300, timeout=60)
    assert all("no video room yet" in text_of(r) for r in replies), {text_of(r) for r in replies}
    assert len(meet.token_requests) == 5


def test_redis_down_during_the_digest_command_is_one_line_and_exit_1(monkeypatch, capsys, tmp_path, ds, meet, slack,
                                                                     restore_logging):
    from bot.cli import main
    from tests.conftest import bot_env
    from tests.processes import free_port

    env = {**bot_env(meet, slack), "DS_API_URL": ds.url, "DS_API_TOKEN": ds.token, "DIGEST_CHANNEL": "C0DIGEST",
           "DIGEST_DEMARCHES": "101", "DATA_DIR": str(tmp_path), "REDIS_URL": f"redis://:hunter2@127.0.0.1:{free_port()}/0"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    ds.add_demarche(101, "Subvention", dossiers=3)
    for flags, sentinels, names in ((["digest"], None, "REDIS_URL"), (["digest", "--dry-run"], None, "REDIS_URL"),
                                    (["digest"], f"127.0.0.1:{free_port()}", "REDIS_SENTINELS and REDIS_SENTINEL_MASTER")):
        if sentinels:
            monkeypatch.setenv("REDIS_SENTINELS", sentinels)
        assert main(flags) == 1
        err = capsys.readouterr().err
        said = [line for line in err.splitlines() if line.startswith("roombot:")]
        assert len(said) == 1 and "cannot connect to Redis: check" in said[0] and f"check {names} and" in said[0], said
        assert "Traceback" not in err and "hunter2" not in err


async def test_hostile_bodies_get_400_401_or_413_never_500_and_one_log_line(bot, slack: FakeSlack, meet: FakeMeet, alice, caplog):
    import logging

    truncated = "payload=" + '{"type": "block_actions", "user": {"id": "U0ALICE"'
    bad_utf8 = b"payload=%7B%7D\xff\xfe"
    cases = [
        ("x" * (5 * 1024 * 1024), None, 413),  # unsigned and huge: refused before it is read
        (truncated, None, 401),  # unsigned: nothing is parsed
        (truncated, signed_headers(truncated), 400),  # signed but unreadable
        (bad_utf8, None, 401),
        ("text=new", {**signed_headers("text=new"), "x-slack-request-timestamp": "soon"}, 401),
        ("text=new", {"content-type": "application/x-www-form-urlencoded"}, 401),
    ]
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            for body, headers, expected in cases:
                response = await bot.http.post("/slack/events", content=body, headers=headers or {})
                assert response.status_code == expected, (body[:40], response.text)
        signed_bad = bad_utf8
        ts = signed_headers("x")["x-slack-request-timestamp"]
        import hashlib
        import hmac

        from tests.slack_requests import SIGNING_SECRET
        digest = hmac.new(SIGNING_SECRET.encode(), f"v0:{ts}:".encode() + signed_bad, hashlib.sha256).hexdigest()
        response = await bot.http.post("/slack/events", content=signed_bad, headers={
            "content-type": "application/x-www-form-urlencoded", "x-slack-request-timestamp": ts, "x-slack-signature": f"v0={digest}"})
        assert response.status_code in (400, 401)  # signed over bytes no Slack request can hold
    mine = [r for r in caplog.records if r.name == "bot.serving.slack_endpoint"]
    assert len(mine) <= 1 and all(r.exc_info is None for r in caplog.records)
    assert "Traceback" not in caplog.text
    assert "Your video room is ready" in text_of(await bot.reply("new"))  # the next real request works


async def test_a_body_that_arrives_too_slowly_is_cut_off(settings, redis, slack: FakeSlack):
    """A client sending its body byte by byte does not hold a request open for ever."""
    from bot.serving.slack_app import build_app
    from bot.serving.slack_endpoint import SlackEndpoint
    from clients.rooms.service import RoomService
    from tests.slack_requests import SIGNING_SECRET

    rooms = RoomService(str(settings.meet_api_url), settings.meet_client_id, settings.meet_client_secret)
    runtime = build_app(settings, redis, rooms)
    endpoint = SlackEndpoint(runtime.app, SIGNING_SECRET, body_seconds=0.3)
    sent: list[dict] = []

    async def receive() -> dict:
        await asyncio.sleep(0.1)
        return {"type": "http.request", "body": b"x", "more_body": True}  # one byte at a time, never done

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/slack/events", "headers": [(b"content-length", b"500")],
             "query_string": b"", "server": ("bot", 80), "scheme": "http", "root_path": ""}
    from starlette.requests import Request
    response = await asyncio.wait_for(endpoint.handle(Request(scope, receive)), 5)
    await runtime.aclose()
    await rooms.aclose()
    assert response.status_code == 408 and response.headers["connection"] == "close"


async def test_a_hostile_slug_is_escaped_in_every_field_slack_parses(bot, slack: FakeSlack, meet: FakeMeet, alice):
    """`<!channel>` from the room service must never reach Slack as a mention, in any field."""
    from tests.slack_requests import home_opened, send_event

    room = meet.add_room(alice, slug="<!channel>&<x>")
    await bot.reply(f"show {room['id']}")
    await bot.reply("list")
    body = action_body("room_share_channel", room["id"], "U0ALICE", slack.response_url("action"), channel="C0PUBLIC")
    assert (await bot.post(body)).status_code == 200
    await bot.runtime.tasks.drain(5)
    await send_event(bot, home_opened())
    await send_event(bot, {"type": "link_shared", "channel": "C0CHAN", "user": "U0ALICE", "message_ts": "1.2",
                           "links": [{"url": f"https://visio.example.gouv.fr/{room['id']}", "domain": "visio.example.gouv.fr"}]},
                     event_id="Ev0002")
    sent = json.dumps([slack.responses, [call.args for call in slack.calls]])
    assert slack.posted("C0PUBLIC") and slack.called("views.publish") and slack.called("chat.unfurl")
    at = sent.find("<!channel>")
    assert at == -1 and "&lt;!channel&gt;" in sent, sent[max(0, at - 300) : at + 50]


async def test_forged_oversized_interactions_are_acked_and_answered_in_words(bot, slack: FakeSlack, meet: FakeMeet, alice):
    from tests.slack_requests import home_choice, view_submission_body

    forged = "A" * 10_000
    for action in ("room_share_channel", "room_send_dm", "room_show", "room_list_page_next"):
        before = len(slack.responses)
        response = await bot.post(action_body(action, forged, "U0ALICE", slack.response_url("action")))
        assert response.status_code == 200, (action, response.status_code)
        [reply] = (await slack.wait_responses(before + 1, timeout=10))[before:]
        words = text_of(reply)
        assert words.strip() and forged not in words and len(words) < 1500, (action, words[:200])
    response = await bot.post(view_submission_body("room_send_dm_modal", {}, forged, "U0ALICE"))
    assert response.status_code == 200
    assert forged not in response.text and len(response.text) < 3000
    published = len(slack.called("views.publish"))
    response = await bot.post(home_choice(forged))
    assert response.status_code == 200
    await bot.runtime.tasks.drain(5)
    [view] = slack.called("views.publish")[published:]
    assert forged not in json.dumps(view.args) and "Your video rooms" in json.dumps(view.args)


async def test_link_previews_cannot_be_turned_into_many_room_service_calls(bot, slack: FakeSlack, meet: FakeMeet, alice):
    """10 messages × 50 unknown room links once cost 2,500 calls; now: one walk, then nothing."""
    from tests.slack_requests import send_event

    for index in range(90):  # five pages of rooms to walk through
        meet.add_room(alice, slug=f"aaa-{index:04d}-aaa")
    links = [{"url": f"https://visio.example.gouv.fr/zzz-{i:04d}-zzz", "domain": "visio.example.gouv.fr"} for i in range(50)]
    for number in range(10):
        await send_event(bot, {"type": "link_shared", "channel": "C0CHAN", "user": "U0ALICE", "message_ts": f"1.{number}",
                               "links": links}, event_id=f"EvLinks{number}")
    room_calls = [call for call in meet.log if call[1].startswith("/external-api/v1.0/rooms")]
    assert len(room_calls) == 5  # one walk of the five pages, for the first message only
    assert len(slack.called("chat.unfurl")) == 10  # every message still gets its (plain) previews


def _mrkdwn_objects(node: object) -> list[dict]:
    """Every mrkdwn text object of a message, wherever it sits."""
    found: list[dict] = []
    if isinstance(node, dict):
        if node.get("type") == "mrkdwn":
            found.append(node)
        for value in node.values():
            found += _mrkdwn_objects(value)
    elif isinstance(node, list):
        for item in node:
            found += _mrkdwn_objects(item)
    return found


async def test_service_text_reaches_slack_inert(settings, redis, ds, slack: FakeSlack, albert):
    """A démarche title and an AI line that try to broadcast, link and mention reach Slack as text."""
    import datetime as dt

    from pydantic import SecretStr
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.demo.albert import BOOTSTRAP
    from bot.serving.slack_app import configure_slack_client
    from clients.inference.service import InferenceService
    from tests.conftest import instant_policy, make_digest_job

    async def key() -> SecretStr:
        return SecretStr(BOOTSTRAP)

    hostile = "Aides @here @channel <!everyone> <https://evil.example|cliquez> https://evil.example/x"
    ds.add_demarche(101, hostile, dossiers=3)
    albert.reply = "Hausse nette. @channel voir https://evil.example <@U0BOSS>"
    digest_settings = settings.model_copy(update={"ds_api_url": ds.url, "ds_api_token": SecretStr(ds.token),
                                                  "digest_channel": "C0DIGEST", "digest_demarches": [101]})
    ai = InferenceService(albert.url, key, model="albert-small", policy=instant_policy())
    job, service = make_digest_job(digest_settings, redis, ds, configure_slack_client(AsyncWebClient(token="xoxb-t"), settings), ai)
    await job.run(dt.date(2026, 1, 5))
    await service.aclose()
    await ai.aclose()
    [post] = slack.posted("C0DIGEST")
    texts = _mrkdwn_objects(post["blocks"])
    assert texts and all(t.get("verbatim") is True for t in texts)  # Slack links no bare URL, name or mention in them
    said = "\n".join([post["text"], *(t["text"] for t in texts)])
    assert "@here" not in said and "@channel" not in said and "@\u2060here" in said and "@\u2060channel" in said
    assert "<!everyone>" not in said and "<https://evil.example|" not in said and "<@U0BOSS>" not in said
    assert "&lt;https://evil.example|cliquez&gt;" in said and "https://evil.example/x" in said  # shown, as written


async def test_a_link_target_cannot_choose_its_own_label(bot, slack: FakeSlack, meet: FakeMeet, alice):
    meet.room_base_url = "https://visio.example.gouv.fr/r?x=|Votre compte est suspendu, cliquez"
    reply = await bot.reply("new")
    links = re.findall(r"<(https://visio[^>]*)>", json.dumps(reply["blocks"]))
    assert links and all(link.split("|")[0].count("%7C") == 1 for link in links)  # the service's `|` stays in the address
    assert all(link.split("|", 1)[1].startswith("https://visio.example.gouv.fr/r?x=") for link in links)  # the label is the URL


async def test_a_command_with_the_word_payload_in_it_is_answered(bot, slack: FakeSlack, meet: FakeMeet, alice):
    """Bolt reads any form body holding the word "payload" as an interaction's, whose field a command
    lacks: `/room payload` got a 404 and Slack's "did not respond" (found by the fuzzer)."""
    assert "payload" in text_of(await bot.reply("payload"))  # the help names what was not understood
    assert "show" in text_of(await bot.reply("show payload"))
