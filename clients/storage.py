"""What the bot does when Redis does not answer: keep serving where that is safe.

Caches (profiles, tokens, the slug directory) fall back to asking the source each time; claims
that guarantee "once" (shares) cannot, and let their caller refuse clearly. Outage warnings are
logged at most once a minute, and counted.
"""

from __future__ import annotations

import logging
import time

from prometheus_client import Counter

log = logging.getLogger(__name__)

STORAGE_ERRORS = Counter("roombot_redis_errors_total", "Redis operations that failed, by what they were for.", ["operation"])

_last_warning = 0.0


def as_text(value: bytes | str | None) -> str | None:
    """A Redis reply as text: the bot's clients decode replies, a plain client gives bytes."""
    return value.decode() if isinstance(value, bytes) else value

#: Lua: deletes KEYS[1] only while it still holds ARGV[1], so a value another process stored
#: meanwhile survives (values may be encrypted: they are compared whole).
DROP_IF_SAME = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def degraded(operation: str, error: Exception) -> None:
    global _last_warning
    STORAGE_ERRORS.labels(operation=operation).inc()
    now = time.monotonic()
    if now - _last_warning > 60:
        _last_warning = now
        log.warning("Redis unavailable (%s: %s); working without it where safe", operation, type(error).__name__)
