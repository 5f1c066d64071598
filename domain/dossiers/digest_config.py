"""What the operator set for digests (bot.config reads it from the environment; bot.wiring hands it
here), read by every part of the digest: counting, following, and the surface that words it."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo


@dataclass(frozen=True)
class DigestConfig:
    language: str  # DEFAULT_LANGUAGE: the digests' own
    zone: ZoneInfo  # DIGEST_TIMEZONE
    at: dt.time  # DIGEST_TIME: the operator's digest, and the default hour of /digest subscribe
    channel: str | None = None  # DIGEST_CHANNEL
    demarches: tuple[int, ...] = ()  # DIGEST_DEMARCHES
    allowed: frozenset[int] | None = None  # DIGEST_ALLOWED_DEMARCHES; None: any the token can read
    max_per_person: int = 10  # DIGEST_MAX_PER_PERSON
    late_days: int = 7  # DIGEST_LATE_DAYS
