"""Who gets a room's invitation by direct message: each person once per room and minute, a few at
a time, and for each one not reached the reason why. The wing decides and claims; the surface that
speaks to people (`Courier`) reads who they are and delivers, in their own language."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, TypeVar

from clients.once import Once

SHARE_WINDOW = 60  # seconds during which the same room is not shared twice to one place

# Direct messages go out a few at a time: opening a conversation is rate limited (Slack: tier 3, 50+/min).
DM_CONCURRENCY = 4


class Skip(StrEnum):
    """Why a person did not get the invitation (a catalog's `dm.reason.*` words it)."""

    SELF = "self"
    UNREACHABLE = "unreachable"
    BOT = "bot"
    DEACTIVATED = "deactivated"
    ALREADY = "already"


class Recipient(Protocol):
    """What the wing needs to know of a person before inviting them."""

    @property
    def is_bot(self) -> bool: ...

    @property
    def deleted(self) -> bool: ...


R = TypeVar("R", bound=Recipient)


class Courier(Protocol[R]):
    """The surface's half: who a person is, and the invitation delivered to them."""

    async def recipient(self, person: str) -> R | None:
        """The person as the surface knows them; None when it cannot say."""

    async def deliver(self, person: str, recipient: R) -> bool:
        """The invitation sent to `person` (and what follows it); False when it could not reach them."""


@dataclass(frozen=True)
class Invited:
    """Who received the invitation, and who did not and why, in the order they were named."""

    sent: list[str]
    skipped: list[tuple[str, Skip]]


async def invite_people(once: Once, room_id: str, inviter: str, people: list[str], courier: Courier[R]) -> Invited:
    """Invites each person named (once each, whatever the repeats), the inviter excepted."""
    limit = asyncio.Semaphore(DM_CONCURRENCY)

    async def one(person: str) -> Skip | None:
        if person == inviter:
            return Skip.SELF
        async with limit:
            recipient = await courier.recipient(person)
            if recipient is None:
                return Skip.UNREACHABLE
            if recipient.is_bot:
                return Skip.BOT
            if recipient.deleted:
                return Skip.DEACTIVATED
            if not await once.claim("dm", room_id, person, ttl=SHARE_WINDOW):
                return Skip.ALREADY
            if not await courier.deliver(person, recipient):
                await once.release("dm", room_id, person)
                return Skip.UNREACHABLE
            return None

    unique = list(dict.fromkeys(people))
    reasons = await asyncio.gather(*(one(person) for person in unique))
    return Invited(sent=[person for person, reason in zip(unique, reasons, strict=True) if reason is None],
                   skipped=[(person, reason) for person, reason in zip(unique, reasons, strict=True) if reason is not None])
