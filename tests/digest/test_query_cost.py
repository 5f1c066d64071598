"""What each document the bot sends costs the dossier service, scored as the service scores it
(ds-graphql.md §10.2), and what happens when the service refuses a document as too costly."""

from __future__ import annotations

import pytest
from graphql import parse, validate
from pydantic import SecretStr

from bot import operator_advice
from bot.config import Settings
from bot.demo.ds import FakeDS
from bot.demo.ds_cost import MAX_DEPTH, cost, depth
from clients.dossiers import errors
from clients.dossiers.desk import DOCUMENTS
from clients.dossiers.open_dossiers import GET_OPEN_DOSSIERS
from clients.dossiers.queries import QUERIES
from clients.dossiers.rate_limit import RateLimiter
from clients.dossiers.service import DossierService
from clients.dossiers.watch import GET_DELETED_SINCE, GET_DOSSIER_CHANGES
from clients.retry import RetryPolicy

#: the bot's own ceiling: the service's 60,000 less a 20 % margin for its next schema and scoring
CEILING = 50_000

#: ds-graphql.md §10.2's worked example, scored there with graphql-ruby v2.5.26: 806 (first: 100 or
#: none), 86 (first: 10), 4,006 (first: 500: scored as asked, though 100 come back), depth 5
WORKED = """query Page($n: Int!, $after: String, $since: ISO8601DateTime) {
  demarche(number: $n) {
    dossiers(first: 100, after: $after, updatedSince: $since) {
      pageInfo { hasNextPage endCursor }
      nodes { id number state dateDepot dateDerniereModification groupeInstructeur { number label } }
    }
  }
}"""

#: every variable any document takes, at its largest (none changes a page's size: they are literals)
LARGEST = {"demarcheNumber": 2**31 - 1, "dossierNumber": 2**31 - 1, "after": "x" * 200,
           "updatedSince": "2026-01-01T00:00:00+00:00", "deletedAfter": "x" * 200, "deletedSince": "2026-01-01T00:00:00+00:00",
           "input": {"dossierId": "RG9zc2llci0x", "instructeurId": "SW5zdHJ1Y3RldXItMQ==", "motivation": "x" * 5000,
                     "body": "x" * 5000, "follow": True}}


def every_document() -> dict[str, str]:
    """What the dossier client, the desk, the watch and the daily DM can send, by operation name."""
    return {**{name: document for name, (document, _) in QUERIES.items()}, **DOCUMENTS, "getDossierChanges": GET_DOSSIER_CHANGES,
            "getDeletedSince": GET_DELETED_SINCE, "getOpenDossiers": GET_OPEN_DOSSIERS}


def test_the_estimator_scores_as_the_service_does(ds: FakeDS) -> None:
    assert cost(ds.schema, WORKED) == 806
    assert cost(ds.schema, WORKED.replace("first: 100, ", "")) == 806
    assert cost(ds.schema, WORKED.replace("first: 100", "first: 10")) == 86
    assert cost(ds.schema, WORKED.replace("first: 100", "first: 500")) == 4_006
    assert depth(ds.schema, WORKED) == 5


@pytest.mark.parametrize("name", sorted(every_document()))
def test_every_document_the_bot_sends_is_well_within_the_services_limits(ds: FakeDS, name: str) -> None:
    """On the service's schema of September 2026, which the stand-in runs on (bot/demo/ds-schema.graphql)."""
    document = every_document()[name]
    assert validate(ds.schema, parse(document)) == [], name
    scored = cost(ds.schema, document, LARGEST, name)
    assert scored <= CEILING, f"{name} scores {scored}: over {CEILING}, the service would soon refuse it"
    assert depth(ds.schema, document, name) <= MAX_DEPTH


@pytest.fixture
async def service(ds: FakeDS):
    client = DossierService(ds.url, SecretStr(ds.token), limiter=RateLimiter(1_000_000), policy=RetryPolicy(attempts=4, budget=300))
    yield client
    await client.aclose()


async def test_a_document_over_the_limit_is_refused_in_the_services_words_and_never_sent_again(
        service: DossierService, ds: FakeDS, settings: Settings) -> None:
    ds.add_demarche(101, "Subvention", dossiers=3)
    pages = "\n".join(f"p{n}: dossiers(first: 100) {{ nodes {{ number state dateDepot groupeInstructeur {{ number label }} }} }}"
                      for n in range(100))
    costly = f"query getEverything($demarcheNumber: Int!) {{ demarche(number: $demarcheNumber) {{ {pages} }} }}"
    with pytest.raises(errors.QueryTooCostly) as raised:
        await service.query("getEverything", costly, {"demarcheNumber": 101})
    assert raised.value.detail == "Query has complexity of 60201, which exceeds max complexity of 60000"
    assert len(ds.queries) == 1  # a bug of the document: sending it again would be refused again
    said = operator_advice.dossiers(raised.value, settings.model_copy(update={"ds_api_url": ds.url}))
    assert said.startswith("the dossier service refuses the bot's getEverything request as too costly (Query has complexity")
    assert "a bug of the bot's" in said and "report it" in said


async def test_a_service_with_a_lower_budget_refuses_the_page_walk(service: DossierService, ds: FakeDS) -> None:
    ds.add_demarche(101, "Subvention", dossiers=3)
    ds.max_complexity = 500  # GRAPHQL_MAX_COMPLEXITY on the service
    with pytest.raises(errors.QueryTooCostly) as raised:
        [page async for page in service.all_dossiers(101)]
    assert raised.value.detail == "Query has complexity of 909, which exceeds max complexity of 500"
    assert raised.value.reason == "rejected"  # what the digest shows people: the query was refused


def test_no_document_of_the_client_escapes_the_scoring() -> None:
    """A document added anywhere in the dossier client (a new module's constant) is scored above:
    every GraphQL operation written in clients/dossiers is among `every_document()`."""
    import importlib
    import pkgutil

    import clients.dossiers

    scored = set(every_document().values())
    for module_info in pkgutil.iter_modules(clients.dossiers.__path__):
        module = importlib.import_module(f"clients.dossiers.{module_info.name}")
        for name, value in vars(module).items():
            for document in value.values() if isinstance(value, dict) else [value]:
                if isinstance(document, str) and document.lstrip().startswith(("query ", "mutation ")):
                    assert document in scored, f"clients.dossiers.{module_info.name}.{name} is not scored"
