"""Redis key names. E-mails and client ids never appear in a key: they go through a hash."""

import hashlib

PREFIX = "roombot"


def digest(value: str, size: int = 32) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:size]


def email_digest(email: str) -> str:
    return digest(email.strip().lower())


def key(*parts: str) -> str:
    return ":".join((PREFIX, *parts))


def application_tag(client_id: str) -> str:
    """Names what belongs to one room-service application (tokens, learned answers) in keys."""
    return digest(client_id, 12)
