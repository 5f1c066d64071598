"""What a pasted dossier link's preview may show: the person who pasted it decides, as data.

When they are entitled to the démarche (one of its administrators, or an instructeur of one of its
groups) the preview has the dossier's facts (`clients.dossiers.previews.DossierFacts`); otherwise,
and past their minute's share (each read costs the token's allowance, which digests share), it has
none and the surface shows a plain "Dossier n° …".
"""

from __future__ import annotations

from clients.dossiers.previews import DossierFacts
from clients.once import Once
from domain.dossiers.accounts import WorkspaceAccounts

#: dossier links one person's messages may have read on the service in a minute; past that, plain previews
PREVIEWS_PER_MINUTE = 10


async def previewed(accounts: WorkspaceAccounts, once: Once, team: str, enterprise: str | None, user: str, email: str,
                    links: dict[str, tuple[int | None, int]]) -> dict[str, DossierFacts]:
    """The facts of each link (url → (démarche or None, dossier)) the person may show; the rest is left out."""
    account = await accounts.for_team(team, enterprise) if links else None
    if account is None or account.previews is None:
        return {}
    found: dict[str, DossierFacts] = {}
    for url, (demarche, number) in links.items():
        if not await once.within("dossier-preview", team, user[:20], most=PREVIEWS_PER_MINUTE, ttl=60):
            continue  # past their minute's previews: a plain one, nothing read
        facts = await account.previews.for_person(number, email, demarche)
        if facts is not None:
            found[url] = facts
    return found
