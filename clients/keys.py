"""Redis key names. E-mails never appear in a key: they go through a keyed-less hash."""

import hashlib

PREFIX = "roombot"


def email_digest(email: str) -> str:
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]


def key(*parts: str) -> str:
    return ":".join((PREFIX, *parts))
