"""What one check says: the line `check` prints and `serve` logs for one part.

Apart from the runner (bot/commands/check.py) so that each service's check builds its lines
without importing the runner that imports it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.config import Settings
from bot.requirements import unset_line


@dataclass(frozen=True)
class Result:
    part: str
    ok: bool
    says: str  # what was found, or what to do
    warning: bool = False  # works, but in a way the operator should change

    def line(self) -> str:
        mark = "✗" if not self.ok else "⚠" if self.warning else "✓"
        return f"{mark} {self.part}: {self.says}"


def unset(settings: Settings, *names: str) -> str:
    """The words for settings left unset, as every command says them."""
    return unset_line(settings.missing(*names))
