"""Link previews for dossier links on the dossier service (`/procedures/<démarche>/dossiers/<n>`,
`/dossiers/<n>`, on the host of DS_API_URL).

The person who pasted the link decides what everyone sees: when they are entitled to the démarche
(one of its administrators, or an instructeur of one of its groups) the preview shows the dossier's
number, démarche, state and since when, deposit, last change, group and labels; otherwise a plain
"Dossier n° …" with nothing read from the service. Nothing about the usager is ever shown.
"""

from __future__ import annotations

from typing import Any

from babel.dates import format_date
from slack_sdk.models.blocks import ContextBlock, SectionBlock

from clients.dossiers.models import STATES
from clients.dossiers.previews import DossierFacts
from handlers.blocks import mrkdwn
from handlers.i18n import text


def dossier_preview(lang: str, number: int, facts: DossierFacts | None) -> dict[str, Any]:
    """What everyone in the conversation sees of a dossier link."""
    headline = f"*{text(lang, 'dossier.title', number=number)}*"
    if facts is None:
        return {"blocks": [SectionBlock(text=mrkdwn(headline)).to_dict()]}
    lines = [headline + " · " + text(lang, "digest.demarche", title=facts.demarche_title, number=facts.demarche)]
    state = text(lang, f"state.{facts.state}") if facts.state in STATES else facts.state
    details = []
    for key, value in (("dossier.since", facts.since), ("dossier.deposited", facts.deposited), ("dossier.changed", facts.changed)):
        moment = facts.when(value)
        if moment is not None:
            details.append(text(lang, key, state=state, date=format_date(moment, format="medium", locale=lang)))
        elif key == "dossier.since":
            details.append(state)
    if facts.group:
        details.append(text(lang, "dossier.group", group=facts.group))
    if facts.labels:
        details.append(text(lang, "dossier.labels", labels=", ".join(facts.labels)))
    return {"blocks": [SectionBlock(text=mrkdwn("\n".join(lines))).to_dict(),
                       ContextBlock(elements=[mrkdwn(" · ".join(details))]).to_dict()]}

