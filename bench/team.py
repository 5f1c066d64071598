"""A team space for 50 instructeurs, every service answering each request in 100 ms (the dossier
service, the room service, and each Slack method the set-up calls): from the signed `/dossier team`
to the answer on its `response_url`, the first run (all made) and a second (all found, nothing made),
next to the 50 look-ups alone one after another (5 s) and the 10 s asked of it (issue 45).
The bot runs in this process over real HTTP fakes and a real Redis, as the tests run it.
"""

from __future__ import annotations

import time

from bench.progress import step
from bench.stand_ins import among_stand_ins
from bot.config import Settings
from bot.demo.ds import FakeDS
from bot.demo.meet import FakeMeet
from tests.conftest import Bot, bot_env, make_digest_job, start_bot
from tests.fakes.slack import FakeSlack
from tests.slack_requests import command_body

LATENCY, PEOPLE, WITHOUT_ACCOUNT = 0.1, 50, 5
ADA = "ada@example.gouv.fr"
SLACK_METHODS = ("users.info", "auth.test", "conversations.create", "conversations.info", "conversations.members",
                 "conversations.invite", "users.lookupByEmail", "chat.postMessage", "pins.add")


async def main() -> list[tuple[str, str, str]]:
    return await among_stand_ins("team", _measure)


async def _measure(ds: FakeDS, meet: FakeMeet, slack: FakeSlack, redis_url: str) -> list[tuple[str, str, str]]:
    import redis.asyncio as aioredis
    from pydantic import SecretStr
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.serving.slack_app import configure_slack_client

    redis = aioredis.Redis.from_url(redis_url)
    slack.add_user("U0ADA", ADA, locale="en-US")
    meet.add_user(ADA)
    people = [f"instructeur{n}@example.gouv.fr" for n in range(PEOPLE)]
    for n, email in enumerate(people[WITHOUT_ACCOUNT:]):
        slack.add_user(f"U0P{n:04d}", email, locale="en-US")
    ds.add_demarche(101, "Subvention", admins=(ADA,), groups={1: ("Nord", people)})
    values = {name.lower(): value for name, value in bot_env(meet, slack).items()}
    settings = Settings(_env_file=None, **values, ds_api_url=ds.url, ds_api_token=SecretStr(ds.token),  # type: ignore[arg-type]
                        default_language="en", ds_requests_per_minute=100_000)
    job, service = make_digest_job(settings, redis, ds, configure_slack_client(AsyncWebClient(token="xoxb-test-bot-token"), settings))
    ds.latency, meet.delay = LATENCY, LATENCY
    slack.slow = dict.fromkeys(SLACK_METHODS, LATENCY)
    rows = []
    async for bot in start_bot(settings, redis, slack, digests=job):
        async def run(bot: Bot = bot) -> tuple[float, int, int, int]:
            before, asked, calls, room_calls = len(slack.responses), len(ds.queries), len(slack.calls), len(meet.log)
            started = time.perf_counter()
            await bot.post(command_body("team 101", "U0ADA", slack.response_url("bench"), command="/dossier"))
            await slack.wait_responses(before + 1, timeout=60)
            return (time.perf_counter() - started, len(slack.calls) - calls, len(meet.log) - room_calls,
                    len(ds.queries) - asked)

        step("team", f"/dossier team for {PEOPLE} instructeurs, every service at {LATENCY * 1000:.0f} ms a request")
        first = await run()
        again = await run()
        assert "ready" in str(slack.responses[-1]), slack.responses[-1]
        for name, (took, calls, rooms, asked) in (("first run: all made", first), ("second run: all found", again)):
            rows.append((f"/dossier team, {PEOPLE} instructeurs, {name} (every service 100 ms a request)",
                         f"{took:.2f} s ({calls} Slack calls, {rooms} room-service, {asked} dossier requests)",
                         f"target ≤ 10 s; the {PEOPLE} look-ups one after another: {PEOPLE * LATENCY:.1f} s alone"))
    await service.aclose()
    await redis.aclose()
    return rows
