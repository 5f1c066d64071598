"""The architecture page's recipe for another dossier source holds: one module implementing
`DossierSource` (here, in the test, a nightly export kept in memory), and the digest counts from it,
walks only what changed on the second day, and checks rights with it — nothing else changes."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.serving.slack_app import configure_slack_client
from bot.serving.workspace_clients import Workspaces
from bot.wiring import digest_config
from clients.dossiers.access import MEMBERS_TTL, DemarcheAccess
from clients.dossiers.accounts import DossierAccount
from clients.dossiers.counts import DossierCounter
from clients.dossiers.digest_store import DigestStore, Outcome
from clients.dossiers.errors import DemarcheNotFound
from clients.dossiers.models import Dossier, Members, Page, PageInfo, Profile
from clients.dossiers.source import DossierSource
from clients.json_cache import JsonCache
from handlers.digest.job import DigestJob
from tests.conftest import text_of
from tests.fakes.slack import FakeSlack

NUMBER, CHANNEL = 7, "C0EXPORT"
MONDAY = dt.datetime(2026, 3, 2, 6, 0, tzinfo=dt.UTC)


@dataclass
class Row:
    state: str
    deposited: dt.datetime
    updated: dt.datetime


@dataclass
class ExportSource:
    """Dossiers from an export: every row with its state and times; rows deleted since are remembered."""

    rows: dict[int, Row]
    deleted: dict[int, dt.datetime] = field(default_factory=dict)
    requests: int = 0
    walks: list[str] = field(default_factory=list)

    async def title(self, demarche: int) -> str:
        if demarche != NUMBER:
            raise DemarcheNotFound(f"no démarche {demarche} in the export")
        return "Export des aides"

    async def members(self, demarche: int) -> Members:
        return Members(number=demarche, title=await self.title(demarche), administrateurs=[Profile(email="Ada@example.gouv.fr")])

    async def all_dossiers(self, demarche: int) -> AsyncIterator[Page]:
        self.walks.append("all")
        async for page in self._pages(demarche, sorted(self.rows)):
            yield page

    async def updated_since(self, demarche: int, since: dt.datetime) -> AsyncIterator[Page]:
        self.walks.append("updated")
        async for page in self._pages(demarche, [n for n in sorted(self.rows) if self.rows[n].updated > since]):
            yield page

    async def deleted_since(self, demarche: int, since: dt.datetime, *, pending: bool) -> AsyncIterator[Page]:
        gone = [] if pending else [n for n, when in sorted(self.deleted.items()) if when > since]
        async for page in self._pages(demarche, gone, deleted=True):
            yield page

    async def _pages(self, demarche: int, numbers: list[int], *, deleted: bool = False) -> AsyncIterator[Page]:
        title = await self.title(demarche)
        chunks = [numbers[i : i + 100] for i in range(0, len(numbers), 100)] or [[]]
        for index, chunk in enumerate(chunks):
            self.requests += 1
            nodes = [Dossier(number=n) if deleted else Dossier(number=n, state=self.rows[n].state, dateDepot=self.rows[n].deposited)
                     for n in chunk]
            yield Page(number=demarche, title=title, nodes=nodes, pageInfo=PageInfo(hasNextPage=index < len(chunks) - 1))


async def test_a_source_of_its_own_feeds_the_digest_counts_changes_and_rights(settings: Settings, redis, slack: FakeSlack):
    clock = {"now": MONDAY}
    source = ExportSource({n: Row("en_instruction" if n % 3 else "accepte", MONDAY - dt.timedelta(days=30),
                                  MONDAY - dt.timedelta(days=30)) for n in range(1, 251)})
    typed: DossierSource = source  # what the recipe asks of a module: mypy holds it to the protocol
    config = digest_config(settings.model_copy(update={"digest_channel": CHANNEL, "digest_demarches": [NUMBER],
                                                       "default_language": "en"}))
    client = configure_slack_client(AsyncWebClient(token="xoxb-test-bot-token"), settings)
    access = DemarcheAccess(typed, JsonCache(redis, "ds-members", MEMBERS_TTL))
    job = DigestJob(config, DigestStore(redis), DossierAccount(DossierCounter(typed, redis, now=lambda: clock["now"]), access),
                    Workspaces(client))

    assert await job.run(dt.date(2026, 3, 2)) is Outcome.POSTED
    first = text_of(slack.posted(CHANNEL)[-1])
    assert "*Export des aides* · n° 7" in first and "*250* dossiers" in first

    clock["now"] = MONDAY + dt.timedelta(days=1)
    later = clock["now"] - dt.timedelta(hours=2)
    source.rows[1] = Row("accepte", source.rows[1].deposited, later)
    source.rows |= {n: Row("en_construction", later, later) for n in (251, 252, 253)}
    del source.rows[2]
    source.deleted[2] = later
    assert await job.run(dt.date(2026, 3, 3)) is Outcome.POSTED
    second = text_of(slack.posted(CHANNEL)[-1])
    assert "*252* dossiers (+2 since the last digest, 3 deposited)" in second
    assert source.walks == ["all", "updated"]  # the second day reads what changed, not the whole export

    assert await access.entitled(NUMBER, "ada@EXAMPLE.gouv.fr")
    assert not await access.entitled(NUMBER, "eve@example.gouv.fr")
