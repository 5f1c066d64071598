"""Secrets at rest in Redis: sealed with Fernet when `TOKEN_ENCRYPTION_KEY` is set.

Values written with a key carry a `fernet:` prefix, so a store that gains a key later still reads
its older plain values until they expire. `TOKEN_ENCRYPTION_KEY` may list several keys, comma
separated: the first seals, every one opens, so a key is rotated by putting the new one first and
dropping the old one once nothing sealed with it is left (`check` counts them).
"""

from __future__ import annotations

import logging

from cryptography.fernet import Fernet, InvalidToken
from pydantic import SecretStr

log = logging.getLogger(__name__)

PREFIX = "fernet:"


class Unopenable(Exception):
    """A sealed value that no configured key opens: the key was changed, or is not set."""


def fernet_keys(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


class SecretBox:
    def __init__(self, key: SecretStr | None = None) -> None:
        self._keys = [Fernet(part.encode()) for part in fernet_keys(key.get_secret_value())] if key else []

    def seal(self, plain: str) -> str:
        return PREFIX + self._keys[0].encrypt(plain.encode()).decode() if self._keys else plain

    def open(self, stored: str) -> str | None:
        """The value, or None when no key opens it (what a cache does with a value it cannot read)."""
        try:
            return self.open_or_raise(stored)
        except Unopenable as error:
            log.warning("%s: ignoring it", error)
            return None

    def open_or_raise(self, stored: str) -> str:
        """The value; `Unopenable` when no key opens it (what a store of lasting values reports)."""
        return self.opened(stored)[0]

    def opened(self, stored: str) -> tuple[str, bool]:
        """The value, and whether it was sealed with a key other than the first (to seal again)."""
        if not stored.startswith(PREFIX):
            return stored, False
        if not self._keys:
            raise Unopenable("a secret in Redis is encrypted but TOKEN_ENCRYPTION_KEY is not set")
        token = stored[len(PREFIX):].encode()
        for index, fernet in enumerate(self._keys):
            try:
                return fernet.decrypt(token).decode(), index > 0
            except InvalidToken:
                continue
        raise Unopenable("a secret in Redis does not decrypt with any key of TOKEN_ENCRYPTION_KEY (was the key changed?)")
