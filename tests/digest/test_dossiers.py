"""The dossier service client: queries valid on the real schema, pagination, every error case,
and incremental counts that equal a full walk."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest
from graphql import OperationDefinitionNode, build_schema, parse, validate
from pydantic import SecretStr

from bot.demo.ds import SCHEMA, FakeDS
from clients.dossiers import errors
from clients.dossiers.counts import DossierCounter
from clients.dossiers.queries import QUERIES
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.service import DossierService
from clients.redis_keys import key as redis_key
from clients.retry import RetryPolicy
from tests.conftest import eventually


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
async def service(ds: FakeDS, sleeps: list[float]):
    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    client = DossierService(ds.url, SecretStr(ds.token), limiter=RateLimiter(1_000_000),
                            policy=RetryPolicy(attempts=4, budget=300, sleep=record))
    yield client
    await client.aclose()


def test_every_query_the_client_sends_is_valid_on_the_real_schema():
    schema = build_schema(SCHEMA.read_text())
    assert set(QUERIES) == {"getDemarcheTitle", "getDemarcheMembers", "getDemarche", "getUpdatedDossiers", "getDeletedDossiers",
                            "getPendingDeletedDossiers", "getDossier"}
    for name, (query, _) in QUERIES.items():
        document = parse(query)
        assert validate(schema, document) == [], name
        operation = document.definitions[0]
        assert isinstance(operation, OperationDefinitionNode) and operation.name is not None
        assert operation.name.value == name  # operationName matches


def test_the_schema_check_catches_a_field_the_api_does_not_have():
    schema = build_schema(SCHEMA.read_text())
    broken = QUERIES["getDemarche"][0].replace("pageInfo {", "totalCount pageInfo {")
    assert validate(schema, parse(broken))


async def test_walks_every_page_one_at_a_time_with_real_cursors(service: DossierService, ds: FakeDS):
    ds.add_demarche(12345, "Subvention", dossiers=250)
    seen, afters = [], []
    async for page in service.pages("getDemarche", 12345):
        seen += [node.number for node in page.nodes]
    afters = [query["variables"]["after"] for query in ds.queries]
    assert len(seen) == 250 and len(set(seen)) == 250
    assert afters[0] is None and all(afters[1:]) and len(afters) == 3
    assert all(query["operationName"] == "getDemarche" for query in ds.queries)


async def test_the_next_page_is_on_its_way_while_the_caller_works_on_this_one(service: DossierService, ds: FakeDS):
    ds.add_demarche(12345, "Subvention", dossiers=250)
    pages = service.pages("getDemarche", 12345)
    await anext(pages)
    await eventually(lambda: len(ds.queries) == 2, "the second page asked for while the caller holds the first")
    await anext(pages)
    await eventually(lambda: len(ds.queries) == 3, "the third page asked for")
    last = await anext(pages)
    assert not last.pageInfo.hasNextPage
    with pytest.raises(StopAsyncIteration):
        await anext(pages)
    assert len(ds.queries) == 3 == service.requests  # one ahead at most, and nothing past the last page


async def test_a_caller_that_stops_early_leaves_no_request_behind(service: DossierService, ds: FakeDS):
    ds.add_demarche(12345, "Subvention", dossiers=250)
    pages = service.pages("getDemarche", 12345)
    await anext(pages)
    ds.slow[12345] = 60.0  # the page asked for ahead would take a minute
    await eventually(lambda: len(ds.queries) == 2, "the second page asked for")
    await asyncio.wait_for(pages.aclose(), 10)  # not a minute: the request ahead is given up
    assert not [task for task in asyncio.all_tasks() if "DossierService.query" in repr(task.get_coro())]
    assert len(ds.queries) == 2


async def test_an_empty_demarche_is_one_request(service: DossierService, ds: FakeDS):
    ds.add_demarche(7, "Vide")
    pages = [page async for page in service.pages("getDemarche", 7)]
    assert len(pages) == 1 and pages[0].nodes == [] and pages[0].pageInfo.endCursor is None


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        (lambda ds: None, errors.DemarcheNotFound),
        (lambda ds: ds.out_of_scope.add(1), errors.DemarcheForbidden),
        (lambda ds: setattr(ds, "token_expired", True), errors.TokenExpired),
        (lambda ds: setattr(ds, "forbidden_network", True), errors.ForbiddenNetwork),
        (lambda ds: setattr(ds, "token", "another-token"), errors.BadToken),
    ],
)
async def test_errors_are_told_apart_and_configuration_errors_are_not_retried(service, ds: FakeDS, setup, expected):
    ds.add_demarche(1, "Un")
    setup(ds)
    demarche = 1 if expected is not errors.DemarcheNotFound else 999
    with pytest.raises(expected):
        await service.query("getDemarche", QUERIES["getDemarche"][0], {"demarcheNumber": demarche})
    assert service.requests == 1


async def test_a_timeout_retries_the_same_cursor_with_backoff(service: DossierService, ds: FakeDS, sleeps):
    ds.add_demarche(1, "Un", dossiers=150)
    pages = service.pages("getDemarche", 1)
    await anext(pages)
    ds.timeouts = 2
    second = await anext(pages)
    assert len(second.nodes) == 50
    afters = [query["variables"]["after"] for query in ds.queries]
    assert afters[1] == afters[2] == afters[3] and afters[1] is not None
    assert len(sleeps) == 2


async def test_a_plain_text_429_waits_until_ratelimit_reset(service: DossierService, ds: FakeDS, sleeps):
    ds.add_demarche(1, "Un", dossiers=10)
    ds.rate_limited = 1
    [page] = [page async for page in service.pages("getDemarche", 1)]
    assert len(page.nodes) == 10
    assert len(sleeps) == 1 and 0 <= sleeps[0] <= 2.0  # the fake's window ends within the next second or so


async def test_redirects_are_refused(ds: FakeDS, meet, sleeps):
    moved = DossierService(f"{meet.base}/external-api/v1.0/rooms", SecretStr("t"), limiter=RateLimiter(1000))
    with pytest.raises(errors.Redirected):
        await moved.query("getDemarche", QUERIES["getDemarche"][0], {"demarcheNumber": 1})
    await moved.aclose()


async def test_rate_limiter_fills_each_window_up_to_the_limit_then_waits_for_the_next(redis):
    """The service counts per fixed, epoch-aligned minute: 1,000 requests at 400/min need three
    windows, and two processes sharing a token share the allowance (a walk leaves acts 20 a window)."""
    clock = [600.0]  # the start of a window
    starts: list[float] = []

    async def sleep(seconds: float) -> None:
        clock[0] += seconds

    processes = [RateLimiter(400, redis=redis, name="token", clock=lambda: clock[0], sleep=sleep) for _ in range(2)]
    for index in range(1000):
        await processes[index % 2].wait()
        starts.append(clock[0])
    per_window = [sum(1 for t in starts if int(t // 60) == w) for w in (10, 11, 12)]
    assert per_window == [372, 372, 256] and len(starts) == 1000  # 2 % margin under the limit, and acts' room
    assert starts[-1] < 12 * 60 + 1  # done at the start of the third window: the physical minimum


def fixed_clock(ds: FakeDS):
    return lambda: ds.now


async def test_incremental_count_equals_a_full_walk_after_creations_changes_and_deletions(service, ds: FakeDS, redis):
    ds.add_demarche(42, "Aides", dossiers=430, seed=7)
    counter = DossierCounter(service, redis, now=fixed_clock(ds), overlap=dt.timedelta(seconds=5))
    first = await counter.count(42, since=None)
    assert first.full_walk and first.by_state == ds.states(42) and first.requests == 5
    since = ds.now

    ds.now += dt.timedelta(hours=20)
    created = [ds.deposit(42, "en_construction").number for _ in range(12)]
    for number in (3, 50, 200, created[0]):
        ds.change(42, number, "accepte")
    for number in (10, 11, created[1]):
        ds.delete(42, number)
    ds.delete(42, 12, pending=True)

    second = await counter.count(42, since=since)
    assert not second.full_walk
    assert second.by_state == ds.states(42) and second.total == 430 + 12 - 4
    assert second.deposited_since == 11  # one of the twelve was deleted again
    assert second.requests == 3  # one page of updates, one of deletions, one of pending deletions

    await counter.forget(42)
    full = await counter.count(42, since=since)
    assert full.full_walk and full.by_state == second.by_state


async def test_a_full_walk_again_when_the_stored_data_is_a_week_old(service, ds: FakeDS, redis):
    ds.add_demarche(5, "Cinq", dossiers=120)
    counter = DossierCounter(service, redis, now=fixed_clock(ds))
    assert (await counter.count(5, since=None)).full_walk
    ds.now += dt.timedelta(days=1)
    assert not (await counter.count(5, since=None)).full_walk
    ds.now += dt.timedelta(days=7, minutes=1)
    assert (await counter.count(5, since=None)).full_walk


async def test_pages_are_fetched_as_they_are_consumed(service, ds: FakeDS):
    """One page in memory: page 2 is asked for only once page 1 has been handled."""
    ds.add_demarche(9, "Neuf", dossiers=300)
    pages = service.pages("getDemarche", 9)
    await anext(pages)
    assert len(ds.queries) == 1
    await pages.aclose()


async def test_a_null_list_of_deleted_dossiers_reads_as_none_deleted(service, ds: FakeDS, redis):
    """The schema declares `nodes: [DeletedDossier]` nullable: a `null` there is an empty page,
    not an unreadable démarche."""
    ds.add_demarche(8, "Huit", dossiers=30)
    counter = DossierCounter(service, redis, now=fixed_clock(ds))
    since = ds.now
    await counter.count(8, since=None)
    ds.now += dt.timedelta(hours=20)
    ds.deposit(8, "en_instruction")
    ds.null_deleted_nodes = True
    second = await counter.count(8, since=since)
    assert not second.full_walk and second.total == 31 and second.deposited_since == 1


async def test_two_processes_walking_with_one_token_stay_inside_the_services_windows(ds: FakeDS, redis):
    """Against a fake enforcing 20 requests per 1-second window: no 429, whatever the concurrency."""
    ds.per_window, ds.window = 20, 1.0
    for number in (1, 2, 3):
        ds.add_demarche(number, f"D{number}", dossiers=1500, seed=number)
    services = [DossierService(ds.url, SecretStr(ds.token), policy=RetryPolicy(attempts=4, budget=300),
                               limiter=RateLimiter(20, redis=redis, name="one-token", window=1.0, margin=4))
                for _ in range(2)]
    counters = [DossierCounter(service, redis, now=fixed_clock(ds)) for service in services]
    counts = await asyncio.gather(*(counters[n % 2].count(n, since=None) for n in (1, 2, 3)))
    assert [c.total for c in counts] == [1500, 1500, 1500]
    assert ds.too_many == 0 and len(ds.queries) == 3 * 15
    for service in services:
        await service.aclose()


async def test_while_an_urgent_walk_runs_the_others_leave_it_a_quarter_of_each_window(redis):
    """The operator's digest is urgent: however many channels' walks wait, it finds room in every
    window; with no urgent walk under way, nobody is slowed."""
    from clients.dossiers.rate_limit import PRIORITY, Priority

    clock = [600.0]  # the start of a window

    async def sleep(seconds: float) -> None:
        clock[0] += seconds

    async def requests(limiter: RateLimiter, count: int, *, urgent: bool) -> None:
        token = PRIORITY.set(Priority.OPERATOR if urgent else Priority.DIGEST)
        for _ in range(count):
            await limiter.wait()
        PRIORITY.reset(token)

    alone = RateLimiter(400, redis=redis, name="alone", clock=lambda: clock[0], sleep=sleep)
    await requests(alone, 372, urgent=False)
    assert clock[0] == 600  # no urgent walk: ordinary requests use the window (400 less the 2 % margin, less acts' 20)

    shared = RateLimiter(400, redis=redis, name="shared", clock=lambda: clock[0], sleep=sleep)
    await requests(shared, 1, urgent=True)  # the operator's walk starts
    await requests(shared, 273, urgent=False)  # the channels' walks leave it a quarter (and acts their room)
    await requests(shared, 98, urgent=True)  # the operator's still find room in the same window
    assert clock[0] == 600 and int(await redis.get(redis_key("ds-rate:{shared}:10"))) == 372
    await requests(shared, 1, urgent=False)  # an ordinary request past its share waits for the next window
    assert clock[0] >= 660 and int(await redis.get(redis_key("ds-rate:{shared}:10"))) == 372  # its ticket given back
