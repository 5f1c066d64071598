"""What a dossier link's preview may show, and to whom.

One request per dossier (`dossier(number)`), its answer kept a few minutes, so a link pasted in a
busy channel costs the token's allowance once. Only what an instructeur's own list shows is read:
number, démarche, state and since when, deposit and last change, group, labels — never the usager's
name, e-mail or a field's value. The facts go only to a person entitled to the démarche (one of its
administrators, or an instructeur of one of its groups); a link whose démarche is not the dossier's
shows nothing of it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass
from typing import Protocol

from clients.dossiers.access import DemarcheAccess
from clients.dossiers.errors import DemarcheForbidden, DemarcheNotFound, DossierServiceError
from clients.dossiers.models import Dossier
from clients.dossiers.rate_limit import SHARE
from clients.json_cache import JsonCache

#: How long a dossier's facts are reused for its links (a state changes rarely within minutes).
PREVIEW_TTL = 300
#: The share of a minute's allowance previews may use: the rest is the digests'.
PREVIEW_SHARE = 0.5


class DossierLookup(Protocol):
    async def dossier(self, number: int) -> Dossier: ...


@dataclass(frozen=True)
class DossierFacts:
    number: int
    demarche: int
    demarche_title: str
    state: str
    since: str | None  # ISO date-times
    deposited: str | None
    changed: str | None
    group: str
    labels: list[str]

    def when(self, field: str | None) -> dt.datetime | None:
        return dt.datetime.fromisoformat(field) if field else None


class DossierPreviews:
    def __init__(self, source: DossierLookup, cache: JsonCache, access: DemarcheAccess) -> None:
        self._source = source
        self._cache = cache
        self._access = access

    async def for_person(self, number: int, email: str, demarche: int | None = None) -> DossierFacts | None:
        """The dossier's facts when `email` is entitled to its démarche (and the link's démarche,
        when it names one, is the dossier's); None otherwise, or when the service cannot say.
        A link that names its démarche is checked against its member list before the dossier is
        read: a person entitled to nothing costs no dossier read. Previews use at most a share of
        the token's allowance (`PREVIEW_SHARE`): past it they show nothing rather than wait, and
        digests keep the rest."""
        share = SHARE.set(PREVIEW_SHARE)
        try:
            if demarche is not None and not await self._entitled(demarche, email):
                return None
            facts = await self._facts(number)
            if facts is None or (demarche is not None and demarche != facts.demarche):
                return None
            return facts if demarche is not None or await self._entitled(facts.demarche, email) else None
        finally:
            SHARE.reset(share)

    async def _entitled(self, demarche: int, email: str) -> bool:
        try:
            return (await self._access.membership(demarche)).entitled(email)
        except DossierServiceError:
            return False

    async def _facts(self, number: int) -> DossierFacts | None:
        cached = await self._cache.get(str(number))
        if cached is not None:
            return DossierFacts(**cached["facts"]) if cached.get("facts") else None
        try:
            found = await self._source.dossier(number)
        except (DemarcheNotFound, DemarcheForbidden):  # unknown, or not the token's: nothing to show, for a while
            await self._cache.put({"facts": None}, str(number))
            return None
        except DossierServiceError:  # down or refusing now: asked again at the next link
            return None
        facts = _facts_of(found)
        await self._cache.put({"facts": asdict(facts) if facts else None}, str(number))
        return facts


def _facts_of(found: Dossier) -> DossierFacts | None:
    if found.demarche is None:
        return None
    since = found.in_state_since
    return DossierFacts(
        number=found.number, demarche=found.demarche.number, demarche_title=found.demarche.title, state=found.state,
        since=since.isoformat() if since else None,
        deposited=found.dateDepot.isoformat() if found.dateDepot else None,
        changed=found.dateDerniereModification.isoformat() if found.dateDerniereModification else None,
        group=found.groupeInstructeur.label if found.groupeInstructeur else "",
        labels=[label.name for label in found.labels if label.name][:10],
    )
