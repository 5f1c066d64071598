"""Who follows what: the channels' subscriptions, the operator's own, which are due, what people
asked for today, and the settings the commands show."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from clients.dossiers.digest_store import DigestStore
from clients.dossiers.subscriptions import Followed, Subscription, Subscriptions
from domain.dossiers.digest_config import DigestConfig
from domain.dossiers.schedule import due_day


@dataclass(frozen=True)
class Following:
    config: DigestConfig
    store: DigestStore

    @property
    def subscriptions(self) -> Subscriptions:
        return self.store.subscriptions

    @property
    def late_days(self) -> int:
        return self.config.late_days

    @property
    def default_time(self) -> dt.time:
        return self.config.at

    @property
    def zone(self) -> ZoneInfo:
        return self.config.zone

    @property
    def allowed(self) -> frozenset[int] | None:
        return self.config.allowed

    @property
    def max_per_person(self) -> int:
        return self.config.max_per_person

    async def asked_by(self, day: dt.date, place: str, user: str | None = None) -> str | None:
        return await self.store.asked_by(day, place, user)

    async def asked_today(self, day: dt.date, user: str) -> int:
        """How many digests `user` asked for today with `/digest now`, this one included."""
        return await self.store.count_asked(day, user)

    async def forget_unfollowed(self, demarches: set[int]) -> None:
        """What the bot keeps of démarches nobody follows any more goes at once."""
        operators = set(self.config.demarches)
        for number in demarches - operators:
            if not await self.subscriptions.followed_anywhere(number):
                await self.store.forget(number)

    async def due(self, now: dt.datetime) -> list[tuple[dt.date, Subscription]]:
        """Every subscription whose hour has come today, the operator's first, then by hour; paused
        ones, those whose first day is still to come and an operator's digest its channel refused
        today are left out."""
        due: list[tuple[dt.date, Subscription]] = []
        operators = self.operators
        day = due_day(now, operators.at, self.zone) if operators is not None else None
        if operators is not None and day is not None and not await self.store.refused(day, operators.place):
            due.append((day, operators))
        channels = sorted((s for s in await self.subscriptions.all() if s.paused is None), key=lambda s: s.at)
        return due + [(day, s) for s in channels if (day := due_day(now, s.at, self.zone, s.since)) is not None]

    @property
    def operators(self) -> Subscription | None:
        """The operator's own subscription (DIGEST_CHANNEL, DIGEST_DEMARCHES, DIGEST_TIME)."""
        config = self.config
        if not (config.channel and config.demarches):
            return None
        return Subscription(config.channel, tuple(Followed(n) for n in config.demarches), config.at, operator=True)
