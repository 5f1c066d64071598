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
