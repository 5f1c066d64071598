"""The token's allowance by priority: an instructeur's act finds room within seconds however many
look-ups flood the minute; look-ups past their share are told to try again, rather than wait; a
forged "Show them" value costs a few member lists, not one per click."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
import redis.asyncio as aioredis
from slack_sdk.web.async_client import AsyncWebClient

from bot.demo.ds import FakeDS
from bot.demo.ds_data import FakeDemarche
from bot.serving.slack_app import configure_slack_client
from clients.dossiers.rate_limit import RateLimiter
from tests.conftest import Bot, eventually, make_digest_job, start_bot, text_of
from tests.fakes.slack import FakeSlack
from tests.slack_requests import action_body, command_body

A_FEW_SECONDS = 5.0


@dataclass
class Minutes:
    """The limiter's time: frozen at a window's start. A wait of more than a few seconds blocks, as
    a real one would for most of a minute, until the test lets time pass."""

    now: float = 600.0
    waits: list[float] = field(default_factory=list)
    blocked: int = 0
    passing: asyncio.Event = field(default_factory=asyncio.Event)

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        if seconds > A_FEW_SECONDS:
            self.blocked += 1
            await self.passing.wait()
            self.blocked -= 1
        self.now += seconds


@pytest.fixture
async def minutes() -> AsyncIterator[Minutes]:
    kept = Minutes()
    yield kept
    kept.passing.set()


@pytest.fixture
async def tight_bot(channel_settings, redis: aioredis.Redis, slack: FakeSlack, ds: FakeDS, alice: str,
                    minutes: Minutes) -> AsyncIterator[Bot]:
    """The desk with a token allowed 40 requests a minute (39 after the margin)."""
    limiter = RateLimiter(40, redis=redis, name="tight", clock=minutes.clock, sleep=minutes.sleep)
    slack_client = configure_slack_client(AsyncWebClient(token="xoxb-test-bot-token"), channel_settings)
    job, service = make_digest_job(channel_settings, redis, ds, slack_client, limiter=limiter)
    async for bot in start_bot(channel_settings, redis, slack, digests=job):
        yield bot
        minutes.passing.set()  # whatever still waits may go, and end
    await service.aclose()


async def test_a_flood_of_look_ups_leaves_an_act_its_room(tight_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                         demarche: FakeDemarche, minutes: Minutes) -> None:
    looked = [ds.deposit(101).number for _ in range(8)]
    started = ds.deposit(101, "en_construction")
    people = [f"U0P{index}" for index in range(1, 8)]
    for index, user in enumerate(people, 1):
        slack.add_user(user, f"p{index}@example.gouv.fr", locale="en-US")
        demarche.groups[0].instructeurs.append(f"p{index}@example.gouv.fr")
    for user in people:  # seven people, eight look-ups each, as fast as Slack delivers them: 56 cards for 39 tickets
        for number in looked:
            body = command_body(str(number), user, slack.response_url(f"look-{user}"), command="/dossier")
            assert (await tight_bot.post(body)).status_code == 200
    await eventually(lambda: len(slack.responses) + minutes.blocked >= 56, "every look-up answered or waiting")

    click = action_body("dossier_start", str(started.number), "U0ALICE", slack.response_url("card-U0ALICE"))
    assert (await tight_bot.post(click)).status_code == 200  # Alice starts a review in the same minute
    await eventually(lambda: any(name == "dossierPasserEnInstruction" for name, _ in ds.acts.done),
                     "Alice's act sent", timeout=10)
    assert all(wait <= A_FEW_SECONDS for wait in minutes.waits)
    busy = [reply for reply in slack.responses if "no room for this request this minute" in text_of(reply)]
    cards = [reply for reply in slack.responses if "Dossier n°" in text_of(reply) and reply not in busy]
    assert len(busy) + len(cards) >= 56 and 0 < len(cards) <= 10  # look-ups take a quarter of the minute at most


async def test_forged_show_them_values_cost_a_few_member_lists(digest_bot: Bot, ds: FakeDS, slack: FakeSlack,
                                                               demarche: FakeDemarche) -> None:
    for number in range(5000, 5200):  # 200 forged values naming démarches that do not exist, in a burst
        assert (await digest_bot.post(action_body("digest_show_needs", f"{number}:", "U0ALICE",
                                                  slack.response_url("show-alice")))).status_code == 200
    for _ in range(8):  # the same unknown démarche, again and again
        assert (await digest_bot.post(action_body("digest_show_needs", "4999:", "U0BOB",
                                                  slack.response_url("show-bob")))).status_code == 200
    await digest_bot.runtime.tasks.drain(30)
    asked = [q["variables"]["demarcheNumber"] for q in ds.queries if q.get("operationName") == "getDemarcheMembers"]
    assert len([n for n in asked if n != 4999]) <= 10 and asked.count(4999) == 1
    said = [text_of(reply) for reply in slack.responses]
    assert any("You asked for 10 of these lists in the last minute" in words for words in said)


async def test_watching_unknown_numbers_asks_the_service_once_a_minute_about_each(digest_bot: Bot, ds: FakeDS,
                                                                                  demarche: FakeDemarche) -> None:
    unknown = " ".join(str(number) for number in range(7000, 7020))
    for user in ("U0ALICE", "U0BOB", "U0ALICE"):  # two people, twenty numbers that name no démarche
        await digest_bot.post(command_body(f"watch {unknown}", user, digest_bot.slack.response_url(f"w-{user}"), command="/dossier"))
        await digest_bot.runtime.tasks.drain(20)
    assert sum(1 for q in ds.queries if q.get("operationName") == "getDemarcheMembers") == 20
    assert all("Not watched" in text_of(reply) or "Non surveillé" in text_of(reply) for reply in digest_bot.slack.responses[-3:])


async def test_a_burst_of_asks_of_one_demarche_costs_one_members_request(settings, redis, ds: FakeDS, slack: FakeSlack,
                                                                         demarche: FakeDemarche) -> None:
    """Asks that come while the démarche is being read share that read, known or not (each used to
    cost a request: the forged Show-them burst above read the same unknown démarche 2 or 3 times)."""
    from clients.dossiers.errors import DemarcheNotFound

    job, service = make_digest_job(settings, redis, ds, slack)
    access = job.operator.access
    ds.slow[demarche.number] = ds.slow[4999] = 0.3  # each read takes long enough for the others to come meanwhile
    try:
        known = await asyncio.gather(*(access.membership(demarche.number) for _ in range(8)))
        unknown = await asyncio.gather(*(access.membership(4999) for _ in range(8)), return_exceptions=True)
    finally:
        await service.aclose()
    asked = [q["variables"]["demarcheNumber"] for q in ds.queries if q.get("operationName") == "getDemarcheMembers"]
    assert sorted(asked) == sorted([demarche.number, 4999])
    assert len({m.title for m in known}) == 1 and all(isinstance(e, DemarcheNotFound) for e in unknown)
