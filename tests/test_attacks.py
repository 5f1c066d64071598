"""The bot under replays, bursts, crashes and hostile input: nothing twice, nothing lost, always
an answer, never a 500."""

from __future__ import annotations

import asyncio

from tests.conftest import text_of
from tests.fakes.meet import FakeMeet
from tests.fakes.slack import FakeSlack
from tests.slack_requests import command_body, signed_headers

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


def test_redis_down_during_the_digest_command_is_one_line_and_exit_1(monkeypatch, capsys, tmp_path, ds, meet, slack):
    from bot.cli import main
    from tests.conftest import bot_env
    from tests.processes import free_port

    env = {**bot_env(meet, slack), "DS_API_URL": ds.url, "DS_API_TOKEN": ds.token, "DIGEST_CHANNEL": "C0DIGEST",
           "DIGEST_DEMARCHES": "101", "DATA_DIR": str(tmp_path), "REDIS_URL": f"redis://:hunter2@127.0.0.1:{free_port()}/0"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    ds.add_demarche(101, "Subvention", dossiers=3)
    for flags in (["digest"], ["digest", "--dry-run"]):
        assert main(flags) == 1
        err = capsys.readouterr().err
        said = [line for line in err.splitlines() if line.startswith("roombot:")]
        assert len(said) == 1 and "Redis does not answer" in said[0] and "REDIS_URL" in said[0]
        assert "Traceback" not in err and "hunter2" not in err
