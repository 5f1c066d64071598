"""`/dossier watch` at scale: 1,000 watchers over 100 démarches of 200 dossiers, against the
dossier-service stand-in, 5 % of the dossiers changing an hour (an applicant's message, or their
answers changed, on a dossier one or two of the group follow).

The clock is simulated: each round is given its moment (`Watching.round(now)`), one every
DS_WATCH_SECONDS = 60 simulated seconds, and the stand-in dates each change at a random moment of
the minute before; a change's latency is the round's moment less the change's, plus the real time the
round took until that DM was accepted by Slack's fake. Nothing waits real minutes. Measured: requests
a round (with and without changes), DMs a round, median and p95 change → DM latency, and the CPU
time of a round — of this process, which also runs the stand-in and Slack's fake answering it.
"""

from __future__ import annotations

import datetime as dt
import random
import statistics
import time

from bench.progress import step
from bench.rooms import percentile
from bench.stand_ins import among_stand_ins
from bot.config import Settings
from bot.demo.ds import FakeDS
from bot.demo.meet import FakeMeet
from clients.dossiers.watch import Watches
from handlers.desk.news import Watching
from tests.conftest import bot_env, make_digest_job, start_bot
from tests.fakes.slack import FakeSlack

DEMARCHES, PEOPLE_EACH, DOSSIERS_EACH, ROUNDS, SECONDS = 100, 10, 200, 30, 60
CHANGING_AN_HOUR = 0.05


async def main() -> list[tuple[str, str, str]]:
    return await among_stand_ins("watch", _measure)


async def _measure(ds: FakeDS, meet: FakeMeet, slack: FakeSlack, redis_url: str) -> list[tuple[str, str, str]]:
    import redis.asyncio as aioredis
    from pydantic import SecretStr
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.serving.slack_app import configure_slack_client

    rng = random.Random(43)
    redis = aioredis.Redis.from_url(redis_url)
    step("watch", f"{DEMARCHES} démarches × {DOSSIERS_EACH} dossiers, {DEMARCHES * PEOPLE_EACH} watchers")
    start = dt.datetime(2026, 11, 2, 8, 0, tzinfo=dt.UTC)
    ds.now = start - dt.timedelta(days=30)
    watchers: dict[int, list[str]] = {}
    for number in range(1, DEMARCHES + 1):
        emails = [f"p{number}.{i}@example.gouv.fr" for i in range(PEOPLE_EACH)]
        demarche = ds.add_demarche(number, f"D{number}", groups={1: ("G", emails)})
        for _ in range(DOSSIERS_EACH):
            ds.deposit(number).followers.update(rng.sample(emails, rng.choice((1, 2))))
        watchers[number] = [f"U{number:03d}{i}" for i in range(PEOPLE_EACH)]
        for user, email in zip(watchers[number], emails, strict=True):
            slack.add_user(user, email, locale="fr-FR")
        assert demarche.dossiers
    values = {name.lower(): value for name, value in bot_env(meet, slack).items()}
    settings = Settings(_env_file=None, **values, ds_api_url=ds.url, ds_api_token=SecretStr(ds.token),  # type: ignore[arg-type]
                        default_language="en", ds_requests_per_minute=100_000, ds_watch_seconds=SECONDS)
    job, service = make_digest_job(settings, redis, ds, configure_slack_client(AsyncWebClient(token="xoxb-test-bot-token"), settings))
    rows: list[tuple[str, str, str]] = []
    async for bot in start_bot(settings, redis, slack, digests=job):
        watches = Watches(redis)
        for number, users in watchers.items():
            for user in users:
                await watches.start("T0TEAM", user, [number])
        watching = bot.runtime.watching
        assert watching is not None

        async def round_at(now: dt.datetime, watching: Watching = watching) -> tuple[int, float, float, list[tuple[dict, float]]]:
            await redis.delete("roombot:desk-round")
            asked, posted, cpu, wall = len(ds.queries), len(slack.messages), time.process_time(), time.perf_counter()
            arrivals: list[float] = []
            slack.after_post = lambda _: arrivals.append(time.perf_counter() - wall)
            sent = await watching.round(now)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            slack.after_post = None
            assert sent == len(slack.messages) - posted
            return len(ds.queries) - asked, cpu, wall, list(zip(slack.messages[posted:], arrivals, strict=True))

        step("watch", "a first round (marks where reading starts), then one with nothing new")
        await round_at(start)
        quiet, quiet_cpu, _, _ = await round_at(start + dt.timedelta(seconds=SECONDS))
        changed_at: dict[int, dt.datetime] = {}
        requests, dms, cpus, latencies = [], [], [], []
        per_round = DEMARCHES * DOSSIERS_EACH * CHANGING_AN_HOUR * SECONDS / 3600
        step("watch", f"{ROUNDS} rounds of {SECONDS} simulated seconds, ~{per_round:.0f} changes each")
        for index in range(2, ROUNDS + 2):
            now = start + dt.timedelta(seconds=SECONDS * index)
            moments = sorted(now - dt.timedelta(seconds=rng.uniform(0, SECONDS)) for _ in range(_poisson(rng, per_round)))
            for moment in moments:
                number = rng.randint(1, DEMARCHES)
                dossier = rng.choice(ds.demarches[number].dossiers)
                ds.now = moment
                if rng.random() < 0.5:
                    ds.acts.write(ds.demarches[number], dossier, dossier.usager, "Une pièce de plus")
                else:
                    ds.now -= dt.timedelta(seconds=1)  # modify() steps the clock one second on
                    ds.modify(number, dossier.number)
                changed_at[dossier.number] = moment
            asked, cpu, _, told = await round_at(now)
            requests.append(asked)
            dms.append(len(told))
            cpus.append(cpu)
            for message, after in told:
                for block in message.get("blocks", []):
                    opened = (block.get("accessory") or {}).get("value")
                    if opened and int(opened) in changed_at:
                        latencies.append((now - changed_at[int(opened)]).total_seconds() + after)
        rows.append((f"watch round, {DEMARCHES} démarches, nothing new: requests / CPU", f"{quiet} / {quiet_cpu * 1000:.0f} ms",
                     f"{DEMARCHES} (one a démarche)"))
        rows.append((f"watch round with ~{per_round:.0f} changes: requests, median (max)",
                     f"{statistics.median(requests):.0f} ({max(requests)})", f"{DEMARCHES} + member lists read when kept ones lapse"))
        rows.append(("watch round: DMs, median (max)", f"{statistics.median(dms):.0f} ({max(dms)})",
                     f"{DEMARCHES * PEOPLE_EACH} watchers, 1–2 followers a dossier"))
        rows.append((f"change → DM latency, median / p95 (DS_WATCH_SECONDS={SECONDS}, simulated clock)",
                     f"{statistics.median(latencies):.0f} / {percentile(latencies, 95):.0f} s", "target median ≤ 120 s"))
        rows.append(("watch round CPU, median / p95 (this process: bot + stand-ins)",
                     f"{statistics.median(cpus) * 1000:.0f} / {percentile(cpus, 95) * 1000:.0f} ms", f"{SECONDS} s between rounds"))
    await service.aclose()
    await redis.aclose()
    return rows


def _poisson(rng: random.Random, mean: float) -> int:
    count, total = 0, rng.expovariate(1.0)
    while total < mean:
        count += 1
        total += rng.expovariate(1.0)
    return count
