"""A team space's channel name, as Slack takes one: lower case, at most 80 characters, only letters,
digits, `-` and `_` (anything else is `invalid_name_specials`). Accents are taken off rather than
dropped (`Sécurité` → `securite`), so the name still reads as the démarche's title."""

from __future__ import annotations

import re
import unicodedata

#: Slack's longest channel name
MOST = 80
#: room kept at the end for `-2`, `-3`… when the name is taken
SUFFIX_ROOM = 4
_NOT_ALLOWED = re.compile(r"[^a-z0-9_-]+")


def slug(words: str) -> str:
    """`words` in the letters Slack allows: accents off, lower case, every other run of signs one `-`."""
    plain = unicodedata.normalize("NFKD", words).encode("ascii", "ignore").decode().lower()
    return _NOT_ALLOWED.sub("-", plain).strip("-_")


def channel_name(demarche: int, title: str, group_label: str | None = None) -> str:
    """`dn-<number>-<title>[-<group>]`, cut to leave room for a suffix, never ending on a `-`."""
    parts = [f"dn-{demarche}", slug(title)] + ([slug(group_label)] if group_label is not None else [])
    head = "-".join(part for part in parts if part)
    if group_label is not None and len(head) > MOST - SUFFIX_ROOM:  # the group's words kept: they tell spaces apart
        group = slug(group_label)[:30]
        head = "-".join(part for part in (f"dn-{demarche}", slug(title)[:MOST - SUFFIX_ROOM - len(group) - len(str(demarche)) - 5],
                                          group) if part)
    return head[:MOST - SUFFIX_ROOM].rstrip("-_")


def numbered(name: str, attempt: int) -> str:
    """The name to try after `attempt` were taken: `name`, then `name-2`, `name-3`…"""
    return name if attempt == 0 else f"{name}-{attempt + 1}"
