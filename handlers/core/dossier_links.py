"""Links to dossiers on the dossier service: read from what people paste or type, and written for
them to open (`<site>/procedures/<démarche>/dossiers/<n>`, the instructeur's page); and the button
that opens a dossier's card in Slack, which the digest, Home and the watch's messages all offer."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from slack_sdk.models.blocks import ButtonElement

from handlers.i18n import text

#: the card of a dossier, read again for whoever clicks (handlers.desk); each button's id carries
#: its dossier's number, as Slack refuses a block where two elements share one action id: the
#: listener matches them all (and the bare id of the buttons sent before)
OPEN_DOSSIER = "dossier_open"
OPEN_DOSSIER_IDS = re.compile(rf"^{OPEN_DOSSIER}(?:_\d{{1,12}})?$")

_INSTRUCTEUR_PATH = re.compile(r"^/procedures/([0-9]{1,9})/dossiers/([0-9]{1,12})(?:/.*)?$")  # ASCII digits only
_USAGER_PATH = re.compile(r"^/dossiers/([0-9]{1,12})(?:/.*)?$")


def read_dossier_link(url: str, site: str | None) -> tuple[int | None, int] | None:
    """(the démarche the link names, or None; the dossier) for a dossier link on `site`'s host."""
    host = urlsplit(site or "").hostname
    if not host:
        return None
    parts = urlsplit(url.strip().strip("<>").partition("|")[0])
    if parts.scheme not in ("http", "https") or (parts.hostname or "").lower() != host.lower():
        return None
    if found := _INSTRUCTEUR_PATH.match(parts.path):
        return int(found.group(1)), int(found.group(2))
    if found := _USAGER_PATH.match(parts.path):
        return None, int(found.group(1))
    return None


def dossier_url(site: str, demarche: int, number: int) -> str:
    return f"{site.rstrip('/')}/procedures/{demarche}/dossiers/{number}"


def open_button(lang: str, number: int) -> ButtonElement:
    """The button that opens dossier `number`'s card; its id is its own in any block of distinct dossiers."""
    return ButtonElement(text=text(lang, "desk.button.open", number=number), action_id=f"{OPEN_DOSSIER}_{number}",
                         value=str(number))
