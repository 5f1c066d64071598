"""A digest's content as data: one line per démarche counted, one failure per démarche that could
not be; the surfaces (Slack's blocks, the command line's table, the AI line's facts) read these."""

from __future__ import annotations

from dataclasses import dataclass

from clients.dossiers.counts import DemarcheCounts
from clients.dossiers.digest_store import Snapshot


@dataclass(frozen=True)
class DigestLine:
    counts: DemarcheCounts
    previous: Snapshot | None
    history: list[int | None]  # daily totals, oldest first, ending with today's
    reused: bool = False  # the counts of another digest's run within the run window, not counted again
    late_days: int = 7  # DIGEST_LATE_DAYS: how long a dossier may wait in a state before it is late
    group: str | None = None  # the label of the one groupe instructeur counted, when a channel follows a group
    group_number: int | None = None


@dataclass(frozen=True)
class DigestFailure:
    number: int
    reason: str  # the service's reason (DossierServiceError.reason): worded under `digest.reason.`
    detail: str = ""  # what the service said, for the log
    operator: bool = False  # only the operator can fix it (the token, its networks): an error line, not a warning


@dataclass
class Digest:
    lines: list[DigestLine]
    failures: list[DigestFailure]
