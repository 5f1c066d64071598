"""The bot on a real Redis Cluster (3 primaries, 3 replicas) and on a real Sentinel-managed
primary, all on loopback: every shared-state feature works, and a primary crashing in the
middle of a burst loses no command and doubles no room and no digest."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest

from bot.config import Settings
from bot.demo.ds import FakeDS
from bot.demo.meet import FakeMeet
from bot.redis_server import open_redis
from clients.dossiers.errors import OverShare
from clients.dossiers.rate_limit import QUOTA, Priority, Quota, QuotaSpent, RateLimiter, with_priority
from clients.redis_keys import key as redis_key
from tests.conftest import bot_env, eventually
from tests.fakes.slack import FakeSlack
from tests.processes import python_env, start_server
from tests.redis_topologies import LocalCluster, LocalSentinels
from tests.slack_requests import action_body, command_body, event_body, signed_headers

PEOPLE = [f"U0P{n:03d}" for n in range(6)]
STALL = 90  # seconds without a new answer that fail a burst through a crash


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    with LocalCluster(tmp_path / "cluster") as servers:
        yield servers


@pytest.fixture
def sentinels(tmp_path: Path) -> Iterator[LocalSentinels]:
    with LocalSentinels(tmp_path / "sentinel") as servers:
        yield servers


def _people(slack: FakeSlack, meet: FakeMeet) -> None:
    for user in PEOPLE:
        email = f"{user.lower()}@example.gouv.fr"
        slack.add_user(user, email, locale="en-US")
        meet.add_user(email)


def _zone_before_23h() -> str:
    """A zone where it is not yet 23:00, so a 23:59 digest is not due while the test runs."""
    return next(zone for zone in ("UTC", "Asia/Tokyo") if dt.datetime.now(ZoneInfo(zone)).hour < 23)


@contextlib.asynccontextmanager
async def two_bots(tmp_path: Path, env: dict[str, str]) -> AsyncIterator[tuple[httpx.AsyncClient, list[str]]]:
    """Two `serve` processes on one Redis; both must stop cleanly afterwards."""
    started = await asyncio.gather(*(asyncio.to_thread(start_server, ["-m", "bot", "serve"], env, cwd=tmp_path)
                                     for _ in range(2)))
    processes = [process for process, _ in started]
    try:
        async with httpx.AsyncClient(timeout=20) as http:
            yield http, [base for _, base in started]
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        outputs = [process.communicate(timeout=20)[0] for process in processes]
        print(*outputs, sep="\n")  # shown when the test fails
    assert [process.returncode for process in processes] == [0, 0], outputs
    assert "Traceback" not in "".join(outputs), outputs


async def _send(http: httpx.AsyncClient, base: str, body: str) -> None:
    response = await http.post(base + "/slack/events", content=body, headers=signed_headers(body))
    assert response.status_code == 200, response.text


def _command(slack: FakeSlack, text: str, user: str, name: str, *, command: str = "/room", channel: str = "C0CHAN") -> str:
    return command_body(text, user, slack.response_url(name), command=command, channel=channel)


async def test_every_shared_feature_works_on_a_cluster_found_from_any_node(
    tmp_path: Path, cluster: LocalCluster, meet: FakeMeet, slack: FakeSlack, ds: FakeDS
):
    _people(slack, meet)
    alice = f"{PEOPLE[0].lower()}@example.gouv.fr"
    room = meet.add_room(alice)
    ds.add_demarche(101, "Un", dossiers=150, admins=(f"{PEOPLE[1].lower()}@example.gouv.fr",))  # who subscribes below
    meet.delay = 0.05
    # REDIS_CLUSTER unset: the bot asks the node it is given
    env = python_env(**bot_env(meet, slack), REDIS_URL=cluster.url, DS_API_URL=ds.url, DS_API_TOKEN=ds.token,
                     DIGEST_CHANNEL="C0DIGEST", DIGEST_DEMARCHES="101", DIGEST_TIME="00:00", DIGEST_TIMEZONE="UTC",
                     LOG_LEVEL="WARNING")
    async with two_bots(tmp_path, env) as (http, bases):
        # tokens and their single flight: 20 cold commands of one person over both processes
        await asyncio.gather(*(_send(http, bases[i % 2], _command(slack, "list", PEOPLE[0], f"list{i}")) for i in range(20)))
        await slack.wait_responses(20, timeout=20)
        assert len(meet.people_tokens) == 1

        # once-only events: Slack's retry lands on the other process
        event = {"type": "link_shared", "channel": "C0CHAN", "user": PEOPLE[0], "message_ts": "1.2",
                 "links": [{"url": room["url"], "domain": "visio.example.gouv.fr"}]}
        body = event_body(event, event_id="Ev0CLUSTER")
        for base, retry in ((bases[0], None), (bases[1], "1")):
            extra = {"x-slack-retry-num": retry, "x-slack-retry-reason": "http_timeout"} if retry else None
            assert (await http.post(base + "/slack/events", content=body, headers=signed_headers(body, extra=extra))).status_code == 200

        # once-only shares: a double click, one click on each process
        for base in bases:
            await _send(http, base, action_body("room_share_channel", room["id"], PEOPLE[0], slack.response_url("share"),
                                                channel="C0PUBLIC"))

        # subscriptions: made through one process, listed by the other
        await _send(http, bases[0], _command(slack, "subscribe 101 at 23:59", PEOPLE[1], "sub", command="/digest", channel="C0TEAM"))
        await _reply(slack, "sub")
        await _send(http, bases[1], _command(slack, "list", PEOPLE[1], "sublist", command="/digest", channel="C0TEAM"))
        listed = await _reply(slack, "sublist")
        assert "n° 101" in listed and "23:59" in listed

        # digests: both schedulers found the operator's digest due at start; one posted it
        async with open_redis(Settings(_env_file=None, redis_url=cluster.url)) as redis:
            day = dt.datetime.now(dt.UTC).date()
            await eventually(lambda: redis.exists(redis_key(f"digest:{day}:C0DIGEST:operator:posted:all")), "the digest marked posted")
        await eventually(lambda: bool(slack.called("chat.unfurl")) and bool(slack.posted("C0PUBLIC")),
                         "the preview and the share")
    assert len(slack.posted("C0DIGEST")) == 1
    assert len(slack.called("chat.unfurl")) == 1
    assert len(slack.posted("C0PUBLIC")) == 1


async def test_the_dossier_services_allowance_is_one_count_for_every_process_on_a_cluster(cluster: LocalCluster) -> None:
    """Each request's ticket is taken in one Redis script (its window's counts and the operator's
    flag share a hash tag, so a Cluster keeps them in one slot): two processes' limiters take from
    one allowance, and the fifth act of a minute allowed four is not sent, whichever process asks.
    Were the keys in different slots, the script would be refused and each process would count alone."""
    async with open_redis(Settings(_env_file=None, redis_url=cluster.url)) as redis:
        processes = [RateLimiter(4, redis=redis, name="cluster-token", margin=0, clock=lambda: 600.0) for _ in range(2)]

        @with_priority(Priority.ACT)
        async def act(limiter: RateLimiter) -> None:
            await limiter.wait()

        for turn in range(4):
            await act(processes[turn % 2])
        with pytest.raises(OverShare):
            await act(processes[0])
        assert await redis.get(redis_key("ds-rate:{cluster-token}:10")) == "4"  # the fifth ticket given back


async def test_a_persons_look_up_quota_is_counted_in_the_tickets_script_on_a_cluster(cluster: LocalCluster) -> None:
    """A look-up's quota (`/dossier`: 30 a minute a person) is taken in its ticket's script: its key
    shares the token's hash tag, so a Cluster runs the script, and the quota holds over two processes."""
    async with open_redis(Settings(_env_file=None, redis_url=cluster.url)) as redis:
        processes = [RateLimiter(40, redis=redis, name="cluster-token", clock=lambda: 600.0) for _ in range(2)]

        @with_priority(Priority.ASKED)
        async def look(limiter: RateLimiter, user: str) -> None:
            QUOTA.set(Quota(("dossier-look", "T0TEAM", user), 2, 60))
            await limiter.wait()
            await limiter.wait()  # the task's second request (a démarche's members) takes no quota

        for turn in range(2):
            await look(processes[turn % 2], "U0ALICE")
        with pytest.raises(QuotaSpent):
            await look(processes[0], "U0ALICE")
        await look(processes[1], "U0BOB")  # another person's own
        assert await redis.get(redis_key("ds-rate:{cluster-token}:10")) == "6"  # no ticket for the refused one


async def _reply(slack: FakeSlack, name: str) -> str:
    """The text of the first answer sent to the response URL `name`."""
    await eventually(lambda: any(r["_url"] == name for r in slack.responses), f"an answer on {name}")
    return next(r["text"] for r in slack.responses if r["_url"] == name)


async def _burst_through_a_crash(
    tmp_path: Path, env: dict[str, str], slack: FakeSlack, meet: FakeMeet, crash, healthy
) -> None:
    """60 `/room new` from 6 people over two processes; `/digest now` a third of the way in, and
    Redis's primary crashes the moment the digest reaches Slack, before the bot can mark it
    posted. Every command is answered, 60 rooms exist, the digest went out once."""
    zone = _zone_before_23h()
    env = {**env, "DIGEST_CHANNEL": "C0DIGEST", "DIGEST_DEMARCHES": "101", "DIGEST_TIME": "23:59", "DIGEST_TIMEZONE": zone}
    crashed = asyncio.Event()
    loop = asyncio.get_running_loop()

    def after_post(message: dict) -> None:
        if message.get("channel") == "C0DIGEST" and not crashed.is_set():
            crash()
            loop.call_soon_threadsafe(crashed.set)

    slack.after_post = after_post
    async with two_bots(tmp_path, env) as (http, bases):
        sends = []
        for i in range(60):
            if i == 20:
                sends.append(asyncio.create_task(_send(http, bases[0], _command(
                    slack, "now", PEOPLE[0], "digest-now", command="/digest", channel="C0DIGEST"))))
            body = _command(slack, "new", PEOPLE[i % len(PEOPLE)], f"new{i}")
            sends.append(asyncio.create_task(_send(http, bases[i % 2], body)))
            await asyncio.sleep(0.05)  # an open loop: 20 commands a second, whatever the answers
        await asyncio.gather(*sends)
        await asyncio.wait_for(crashed.wait(), 30)
        await eventually(lambda: healthy(), "a replica to take over", timeout=30)

        def answered() -> set[str]:
            return {r["_url"] for r in slack.responses if r["_url"].startswith("new")}

        # as long as answers keep coming the burst is being worked through, however slow the machine:
        # only a stall fails, naming what is missing. A command caught in the failover may spend up to
        # ~15 s on each Redis call before working without it, and makes several: on a loaded machine the
        # last one alone took over 30 s, so a stall is 90 s without any new answer
        seen, stalled_since = -1, time.monotonic()
        while len(answered()) < 60:
            if len(answered()) != seen:
                seen, stalled_since = len(answered()), time.monotonic()
            elif time.monotonic() - stalled_since > STALL:  # say which, and how far: a room made means the reply failed
                missing = sorted(set(f"new{i}" for i in range(60)) - answered(), key=lambda name: int(name[3:]))
                raise AssertionError(f"no answer for {STALL} s, still missing {missing}; {len(meet.rooms)} rooms made, "
                                     f"{len(slack.posted())} messages posted")
            await asyncio.sleep(0.1)
        # the digest's run ends (posted) once its mark reaches the new primary; asking again is refused
        await eventually(lambda: any("posted" in r.get("text", "") for r in slack.responses
                                           if r["_url"] == "digest-now"), "the digest run to end")
        for base in bases:
            await _send(http, base, _command(slack, "now", PEOPLE[1], "digest-again", command="/digest", channel="C0DIGEST"))
        await eventually(lambda: sum(r["_url"] == "digest-again" and "already" in r["text"] for r in slack.responses) == 2,
                         "both refusals")
    # one room per command, each in its command's answer
    assert len(meet.rooms) == 60
    replies = {r["_url"]: json.dumps(r) for r in slack.responses if r["_url"].startswith("new")}
    assert sorted(replies) == sorted(f"new{i}" for i in range(60))
    assert all(sum(room_id in reply for room_id in meet.rooms) == 1 for reply in replies.values())
    assert len(slack.posted("C0DIGEST")) == 1


@pytest.mark.timeout(360)  # the burst, a failover and the stall allowance on a loaded machine
async def test_a_cluster_primary_crashing_mid_burst_loses_nothing_and_doubles_nothing(
    tmp_path: Path, cluster: LocalCluster, meet: FakeMeet, slack: FakeSlack, ds: FakeDS
):
    _people(slack, meet)
    ds.add_demarche(101, "Un", dossiers=150)
    env = python_env(**bot_env(meet, slack), REDIS_URL=cluster.url, REDIS_CLUSTER="1", DS_API_URL=ds.url,
                     DS_API_TOKEN=ds.token, LOG_LEVEL="WARNING")
    day = dt.datetime.now(ZoneInfo(_zone_before_23h())).date()
    primary = cluster.primary_of(redis_key(f"digest:{day}:C0DIGEST:operator:posted:daily-0"))
    await _burst_through_a_crash(tmp_path, env, slack, meet, lambda: cluster.kill(primary), cluster.healthy)
    assert cluster.primary_of(redis_key(f"digest:{day}:C0DIGEST:operator:posted:daily-0")) != primary  # its replica took over


@pytest.mark.timeout(360)
async def test_a_sentinel_primary_crashing_mid_burst_loses_nothing_and_doubles_nothing(
    tmp_path: Path, sentinels: LocalSentinels, meet: FakeMeet, slack: FakeSlack, ds: FakeDS
):
    _people(slack, meet)
    ds.add_demarche(101, "Un", dossiers=150)
    env = python_env(**bot_env(meet, slack), **sentinels.env, DS_API_URL=ds.url, DS_API_TOKEN=ds.token, LOG_LEVEL="WARNING")
    first = sentinels.current_primary()
    await _burst_through_a_crash(tmp_path, env, slack, meet, lambda: sentinels.kill(first),
                                 lambda: sentinels.current_primary() == sentinels.replica)
