"""Answers no honest service sends: walks that would never end, bodies too deep or too large, a
room list without end. Each costs that one démarche or lookup, within a bound, never the rest."""

from __future__ import annotations

import asyncio
import datetime as dt
import gzip
import json
import logging

import pytest
from pydantic import SecretStr
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.demo.ds import FakeDS
from bot.serving.slack_app import configure_slack_client
from clients.dossiers.counts import DossierCounter
from clients.dossiers.digest_store import Outcome
from clients.dossiers.errors import EndlessWalk, Unreadable
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.service import DossierService
from clients.redis_keys import key as redis_key
from tests.conftest import instant_policy, make_digest_job, text_of
from tests.fakes.slack import FakeSlack

CHANNEL = "C0DIGEST"


@pytest.fixture
def digest_settings(settings: Settings, ds: FakeDS) -> Settings:
    return settings.model_copy(update={"ds_api_url": ds.url, "ds_api_token": SecretStr(ds.token), "digest_channel": CHANNEL,
                                       "digest_demarches": [101, 102], "default_language": "en"})


@pytest.mark.parametrize(("hostile", "reason", "logged"), [
    ("loop", "kept sending pages without end; counting was stopped", "sent back cursor"),
    ("nested", "sent an answer I cannot read", "not readable JSON"),
    ("huge", "sent an answer I cannot read", "an answer over 4194304 bytes"),
    ("too_many", "sent an answer I cannot read", "a page of 150 dossiers for 100 asked"),
])
async def test_a_hostile_answer_fails_its_demarche_only_and_the_digest_goes_out(
        digest_settings: Settings, redis, ds: FakeDS, slack: FakeSlack, caplog, hostile, reason, logged):
    ds.add_demarche(101, "Saine", dossiers=120)
    ds.add_demarche(102, "Piégée", dossiers=1)
    ds.hostile[102] = hostile
    job, service = make_digest_job(digest_settings, redis, ds, configure_slack_client(AsyncWebClient(token="xoxb-t"), digest_settings))
    with caplog.at_level(logging.WARNING):
        assert await job.run(dt.date(2026, 1, 5)) is Outcome.POSTED
    await service.aclose()
    [posted] = [text_of(m) for m in slack.posted(CHANNEL)]
    assert "*Saine* · n° 101" in posted and "*120* dossiers" in posted
    assert f"*Démarche n° 102*: not included, the dossier service {reason}." in posted
    assert any(logged in record.getMessage() for record in caplog.records), [r.getMessage() for r in caplog.records]
    asked = [q for q in ds.queries if q["variables"]["demarcheNumber"] == 102 and q["operationName"] == "getDemarche"]
    assert len(asked) <= 2  # the second page shows the loop; everything else stops at the first
    assert not await redis.exists(redis_key("ds:{102}:states"), redis_key("ds:{102}:states:new"))  # nothing of it kept
    # of a 60 MB page, 4 MB were read before hanging up; the rest sent was in the sockets' buffers
    assert ds.streamed < 16 * 1024 * 1024


async def test_a_walk_ends_after_more_pages_than_a_demarche_has_or_its_time(redis, ds: FakeDS):
    ds.add_demarche(102, "Sans fin", dossiers=1)
    ds.hostile[102] = "endless"  # a new cursor every page: only a cap can end it
    capped = DossierService(ds.url, SecretStr(ds.token), limiter=RateLimiter(1_000_000), policy=instant_policy(), max_pages=30)
    with pytest.raises(EndlessWalk, match="more than 30 pages"):
        await DossierCounter(capped, redis).count(102, since=None)
    assert capped.requests == 30 and not await redis.exists(redis_key("ds:{102}:states:new"))
    ds.slow[102] = 0.05
    timed = DossierService(ds.url, SecretStr(ds.token), limiter=RateLimiter(1_000_000), policy=instant_policy(), walk_seconds=0.3)
    with pytest.raises(EndlessWalk, match="still walking after"):
        await DossierCounter(timed, redis).count(102, since=None)
    assert timed.requests < 30
    await capped.aclose()
    await timed.aclose()


async def _gzip_server(bodies: list[bytes], *, gzipped: bool = True) -> tuple[asyncio.Server, str]:
    """A GraphQL endpoint answering each request with the next of `bodies`, gzip-compressed (as a
    real server compresses a large page) unless `gzipped` is False, its length declared."""
    answers = iter(bodies)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
        await reader.readexactly(length)
        body = gzip.compress(next(answers)) if gzipped else next(answers)
        encoding = b"Content-Encoding: gzip\r\n" if gzipped else b""
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n%s"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (encoding, len(body), body))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/api/v2/graphql"


@pytest.mark.parametrize("gzipped", [True, False], ids=["compressed, bounded once decoded", "declared length over the bound"])
async def test_an_answer_over_the_bound_is_refused_and_one_within_it_read(gzipped: bool):
    """A compressed answer is bounded by its size once decoded (5 kB from ~60 bytes sent); a plain
    one declaring a length within the bound is read at once, one declaring more refused, though it
    would parse."""
    title = json.dumps({"data": {"demarche": {"title": "Aide aux cantines"}}}).encode()
    long = json.dumps({"data": {"demarche": {"title": "x" * 5_000}}}).encode()
    server, url = await _gzip_server([title, long], gzipped=gzipped)
    service = DossierService(url, SecretStr("token"), limiter=RateLimiter(1_000_000), policy=instant_policy(),
                             max_answer_bytes=1_000)
    try:
        assert await service.title(101) == "Aide aux cantines"
        with pytest.raises(Unreadable, match="an answer over 1000 bytes"):
            await service.title(101)
    finally:
        await service.aclose()
        server.close()


async def test_states_are_stored_in_batches_whatever_a_page_holds(redis):
    """Lua's unpack() fails past about 8,000 values: a page that large must still be stored."""
    from clients.dossiers.counts import _STORE_PAGE

    store = redis.register_script(_STORE_PAGE)
    stored = await store(keys=[redis_key("test:states")], args=[";".join(f"{n}=a,29384756,,1" for n in range(1, 20_001))])
    assert stored == 20_000 and await redis.hlen(redis_key("test:states")) == 20_000


async def test_a_room_list_without_end_answers_not_found_within_a_bound(bot, meet, slack: FakeSlack, alice):
    from tests.slack_requests import event_body, signed_headers

    meet.endless_list = True
    words = text_of(await bot.reply("show https://visio.example.gouv.fr/abc-defg-hij"))
    assert words.startswith("I found no room of yours for `abc-defg-hij`.")
    listed = meet.count("GET", "/external-api/v1.0/rooms/")
    assert listed == 50  # 1,000 rooms looked at, then "not found"; `next` (another host) never followed
    link = "https://visio.example.gouv.fr/zzz-yyyy-xxx"
    for event_id in ("Ev1", "Ev2"):  # a preview of another unknown link, pasted twice
        body = event_body({"type": "link_shared", "channel": "C0CHAN", "user": "U0ALICE", "message_ts": "1.2",
                           "links": [{"url": link, "domain": "visio.example.gouv.fr"}]}, event_id=event_id)
        assert (await bot.post(body, signed_headers(body))).status_code == 200
        await bot.runtime.tasks.drain(15)
    assert meet.count("GET", "/external-api/v1.0/rooms/") == listed + 50  # the second paste remembered the miss
    assert len(slack.called("chat.unfurl")) == 2  # each paste got its (plain) preview
