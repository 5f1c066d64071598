"""What the daily DM reads of a démarche beyond what the digest and the watch keep: the dossiers
followed by nobody, and the corrections the applicants submitted in the last day — in one request
a démarche (`GET_OPEN_DOSSIERS`, three connections under aliases).

Followers are the dossier's `instructeurs` (ds-graphql.md §10.7), read on the first page of each
open state (en construction, en instruction), the oldest first: past a page the count is a floor
(`Open.more`). A correction is received when its `dateResolution` falls in the last day and the
applicant's answers changed since it was asked: the service fills `dateResolution` too when an
instructeur withdraws the request, and then the answers did not change. They are read among the
dossiers changed in the last day (a submitted correction saves the dossier). Nothing of a person
is kept: a dossier is followed or not.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from pydantic import Field, ValidationError

from clients.dossiers import errors
from clients.dossiers.desk import CardMessage, Person
from clients.dossiers.models import WAITING, GroupRef, moment_of
from clients.dossiers.queries import PAGE_SIZE
from clients.dossiers.service import DossierService
from clients.tolerant import Tolerant

#: a correction submitted this long ago or less is told as received
RECEIVED_WITHIN = dt.timedelta(days=1)

_FOLLOWED = """
      pageInfo { hasNextPage }
      nodes { number groupeInstructeur { number } instructeurs { email } }"""

GET_OPEN_DOSSIERS = f"""query getOpenDossiers($demarcheNumber: Int!, $updatedSince: ISO8601DateTime!) {{
  demarche(number: $demarcheNumber) {{
    number
    construction: dossiers(first: {PAGE_SIZE}, state: en_construction) {{{_FOLLOWED}
    }}
    instruction: dossiers(first: {PAGE_SIZE}, state: en_instruction) {{{_FOLLOWED}
    }}
    changed: dossiers(first: {PAGE_SIZE}, updatedSince: $updatedSince) {{
      nodes {{
        number state dateDerniereModificationChamps groupeInstructeur {{ number }}
        messages {{ createdAt correction {{ dateResolution }} }}
      }}
    }}
  }}
}}"""


class _Node(Tolerant):
    number: int
    state: str = ""
    dateDerniereModificationChamps: str | None = None
    groupeInstructeur: GroupRef | None = None
    instructeurs: list[Person] = Field(default_factory=list)
    messages: list[CardMessage] = Field(default_factory=list)

    @property
    def group(self) -> int | None:
        return self.groupeInstructeur.number if self.groupeInstructeur else None


class _Page(Tolerant):
    nodes: list[_Node] = Field(default_factory=list)
    hasNextPage: bool = False


@dataclass(frozen=True)
class Open:
    """A démarche's open dossiers followed by nobody, and those whose applicant submitted a
    correction in the last day: (number, group) each; `more` when a state had more than a page
    (the unfollowed counted are a floor)."""

    unfollowed: list[tuple[int, int | None]]
    corrected: list[tuple[int, int | None]]
    more: bool = False


async def open_dossiers(service: DossierService, demarche: int, now: dt.datetime) -> Open:
    since = now - RECEIVED_WITHIN
    data = await service.query("getOpenDossiers", GET_OPEN_DOSSIERS,
                               {"demarcheNumber": demarche, "updatedSince": since.isoformat()})
    pages = {name: _page(data, name) for name in ("construction", "instruction", "changed")}
    unfollowed = [(node.number, node.group) for name in ("construction", "instruction") for node in pages[name].nodes
                  if not any(person.email.strip() for person in node.instructeurs)]
    corrected = [(node.number, node.group) for node in pages["changed"].nodes if node.state in WAITING and _corrected(node, since)]
    return Open(unfollowed, corrected, pages["construction"].hasNextPage or pages["instruction"].hasNextPage)


def _corrected(node: _Node, since: dt.datetime) -> bool:
    """The last correction asked was submitted since `since`: resolved, with the answers changed after it was asked."""
    asked = [m for m in node.messages if m.correction is not None]
    if not asked:
        return False
    last = asked[-1]
    resolved, at, answers = (moment_of(last.correction.dateResolution if last.correction else None), moment_of(last.createdAt),
                             moment_of(node.dateDerniereModificationChamps))
    return resolved is not None and resolved > since and at is not None and answers is not None and answers > at


def _page(data: dict[str, Any], name: str) -> _Page:
    demarche = data.get("demarche")
    connection = demarche.get(name) if isinstance(demarche, dict) else None
    if not isinstance(connection, dict):
        return _Page()
    info = connection.get("pageInfo")
    try:
        return _Page.model_validate({"nodes": connection.get("nodes") or [], **(info if isinstance(info, dict) else {})})
    except ValidationError:
        raise errors.Unreadable("the dossier service sent open dossiers we cannot read") from None
