"""What counting needs of a dossier source: the walks and the title (docs/architecture.md,
"Another dossier source")."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from typing import Protocol

from clients.dossiers.models import Members, Page


class DossierSource(Protocol):
    """Where dossiers are counted from, page by page: the three walks a count needs, and the
    title that proves a démarche exists and may be read."""

    requests: int  # made so far, for the digest's figures

    async def title(self, demarche: int) -> str: ...

    async def members(self, demarche: int) -> Members: ...

    def all_dossiers(self, demarche: int) -> AsyncIterator[Page]: ...

    def updated_since(self, demarche: int, since: dt.datetime) -> AsyncIterator[Page]: ...

    def deleted_since(self, demarche: int, since: dt.datetime, *, pending: bool) -> AsyncIterator[Page]: ...
