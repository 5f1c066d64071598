"""Secrets at rest in Redis: sealed with Fernet when `TOKEN_ENCRYPTION_KEY` is set.

Values written with a key carry a `fernet:` prefix, so a store that gains a key later still reads
its older plain values until they expire, and a value sealed with a key that is no longer
configured (or was changed) reads as missing rather than as garbage.
"""

from __future__ import annotations

import logging

from cryptography.fernet import Fernet, InvalidToken
from pydantic import SecretStr

log = logging.getLogger(__name__)

PREFIX = "fernet:"


class SecretBox:
    def __init__(self, key: SecretStr | None = None) -> None:
        self._fernet = Fernet(key.get_secret_value().encode()) if key else None

    def seal(self, plain: str) -> str:
        return PREFIX + self._fernet.encrypt(plain.encode()).decode() if self._fernet else plain

    def open(self, stored: str) -> str | None:
        if not stored.startswith(PREFIX):
            return stored
        if self._fernet is None:
            log.warning("a secret in Redis is encrypted but TOKEN_ENCRYPTION_KEY is not set: ignoring it")
            return None
        try:
            return self._fernet.decrypt(stored[len(PREFIX):].encode()).decode()
        except InvalidToken:
            log.warning("a secret in Redis does not decrypt with TOKEN_ENCRYPTION_KEY (was the key changed?): ignoring it")
            return None
