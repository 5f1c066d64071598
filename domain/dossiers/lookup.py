"""`/dossier <n>` and the Open buttons: a dossier as one person may see it, as data.

The card goes to an administrator of the démarche or an instructeur of the dossier's group, as
the service lists them now; anyone else, and a number with no dossier, get one same answer.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from clients.dossiers import errors
from clients.dossiers.accounts import DossierAccount
from clients.dossiers.desk import Seen
from clients.dossiers.rate_limit import QUOTA, Priority, Quota, QuotaSpent, with_priority
from domain.dossiers.accounts import WorkspaceAccounts

#: dossiers one person may look up in a minute: each costs the token's allowance, which digests share
LOOKUPS_PER_MINUTE = 30
#: what names each person's look-ups a minute in the quota (`Quota.whose`), before the workspace and the person
LOOKUPS = "dossier-look"


class Found(enum.Enum):
    SEEN = "seen"  # `seen`: the card, with what this person may do on it
    NO_TOKEN = "no_token"  # no dossier-service token reads for the workspace
    TOO_OFTEN = "too_often"  # past LOOKUPS_PER_MINUTE this minute
    NOT_SEEN = "not_seen"  # no such dossier, or not one this person may see
    REFUSED = "refused"  # the service refused the read, or is down: `error`


@dataclass(frozen=True)
class LookedUp:
    found: Found
    number: int
    seen: Seen | None = None
    error: errors.DossierServiceError | None = None


@with_priority(Priority.ASKED)
async def look_up(accounts: WorkspaceAccounts, team: str, user: str, email: str, number: int) -> LookedUp:
    account = await accounts.for_team(team)
    if account is None or account.desk is None:
        return LookedUp(Found.NO_TOKEN, number)
    token = QUOTA.set(Quota((LOOKUPS, team, user), LOOKUPS_PER_MINUTE, 60))  # counted with the card's ticket
    try:
        seen = await account.desk.seen_by(number, email, account.access)
    except QuotaSpent:
        return LookedUp(Found.TOO_OFTEN, number)
    except errors.DossierServiceError as error:
        return LookedUp(Found.REFUSED, number, error=error)
    finally:
        QUOTA.reset(token)
    return LookedUp(Found.SEEN, number, seen) if seen is not None else LookedUp(Found.NOT_SEEN, number)


async def seen_again(account: DossierAccount, number: int, email: str) -> Seen | None:
    """The dossier read again after an act (None when it cannot be read just now)."""
    assert account.desk is not None
    try:
        return await account.desk.seen_by(number, email, account.access)
    except errors.DossierServiceError:
        return None
