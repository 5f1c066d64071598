"""Who may see a démarche's figures: its administrators and the instructeurs of its groups, as
the dossier service lists them (ds-graphql.md §8), compared with the person's e-mail without case.

The bot's token reads every démarche of an administrator's account; whether a *person* may follow
one in Slack is the bot's to decide, and these lists are the service's own answer. They are kept
for a few minutes (as hashes of the e-mails, never the addresses), so a burst of commands costs
one request a démarche — a request that counts in the token's allowance like any other. A
démarche the service will not show (unknown, or not the token's) is remembered as such for a
minute: asking again about a number that does not exist costs nothing meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from clients.dossiers.errors import DemarcheForbidden, DemarcheNotFound
from clients.dossiers.models import Members
from clients.json_cache import JsonCache
from clients.redis_keys import email_digest
from clients.shared_reads import SharedReads

#: How long a démarche's members are believed before the service is asked again.
MEMBERS_TTL = 300
#: How long a démarche the service would not show (unknown, or not the token's) is believed so.
REFUSED_TTL = 60


class MemberSource(Protocol):
    async def members(self, demarche: int) -> Members: ...


@dataclass(frozen=True)
class Membership:
    """A démarche's title and its people, by the digest of their e-mail."""

    number: int
    title: str
    administrators: frozenset[str]
    groups: dict[int, tuple[str, frozenset[str]]]  # group number → (label, instructeurs)

    @classmethod
    def of(cls, members: Members) -> Membership:
        """The people as the service lists them now (rather than cached), matched as the cached ones are."""
        return _membership(members.number, _kept(members))

    def entitled(self, email: str) -> bool:
        """An administrator, or an instructeur of one of its groups."""
        return self.administrator(email) or bool(self.groups_of(email))

    def may_follow(self, email: str, group: int | None = None) -> bool:
        """Whether the person may have the démarche's figures (or one group's only): an
        administrator, or an instructeur of it (of that group, for a group)."""
        if group is None:
            return self.entitled(email)
        return self.administrator(email) or group in self.groups_of(email)

    def administrator(self, email: str) -> bool:
        return email_digest(email) in self.administrators

    def groups_of(self, email: str) -> set[int]:
        who = email_digest(email)
        return {number for number, (_, people) in self.groups.items() if who in people}


class DemarcheAccess:
    def __init__(self, source: MemberSource, cache: JsonCache) -> None:
        self._source = source
        self._cache = cache
        #: asks of one démarche while it is being read share that read: a burst of clicks on an uncached
        #: démarche (or a refused one) would each cost a request of the token's allowance
        self._reading: SharedReads[int, dict[str, Any]] = SharedReads()

    async def membership(self, demarche: int) -> Membership:
        """Raises the service's refusal (unknown démarche, not readable with the token, down)."""
        cached = await self._cache.get(str(demarche))
        if cached is not None and "refused" in cached:
            refusal = DemarcheForbidden if cached["refused"] == DemarcheForbidden.reason else DemarcheNotFound
            raise refusal(f"n° {demarche}: refused by the service within the last {REFUSED_TTL} s")
        if cached is None:
            cached = await self._reading.read(demarche, lambda: self._read(demarche))
        return _membership(demarche, cached)

    async def _read(self, demarche: int) -> dict[str, Any]:
        try:
            members = await self._source.members(demarche)
        except (DemarcheNotFound, DemarcheForbidden) as error:
            await self._cache.put({"refused": error.reason}, str(demarche), ttl=REFUSED_TTL)
            raise
        cached = _kept(members)
        await self._cache.put(cached, str(demarche))
        return cached

    async def people(self, demarche: int) -> Members:
        """The démarche's people with their e-mails, read now rather than from the cache: a team space
        invites them by address, and checks whoever acts against the lists as the service has them this
        minute. What is cached is renewed with it. Raises the service's refusal as `membership` does."""
        members = await self._source.members(demarche)
        await self._cache.put(_kept(members), str(demarche))
        return members

    async def entitled(self, demarche: int, email: str) -> bool:
        return (await self.membership(demarche)).entitled(email)


def _membership(demarche: int, kept: dict[str, Any]) -> Membership:
    return Membership(demarche, kept["title"], frozenset(kept["administrators"]),
                      {number: (label, frozenset(people)) for number, label, people in kept["groups"]})


def _kept(members: Members) -> dict[str, Any]:
    """What is cached of a démarche's people: the hashes of their e-mails, never the addresses."""
    return {
        "title": members.title,
        "administrators": sorted({email_digest(p.email) for p in members.administrateurs if p.email}),
        "groups": [[g.number, g.label, sorted({email_digest(p.email) for p in g.instructeurs if p.email})]
                   for g in members.groupeInstructeurs],
    }
