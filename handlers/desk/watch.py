"""`/dossier watch` and `/dossier unwatch` (and Home's toggle): which démarches a person watches,
those they are an administrator or an instructeur of now. What a watch then tells them — a dossier
of one of their groups deposited, the applicant writing on one, a dossier they follow changing state
by someone else's hand — is read in rounds (`domain.dossiers.news`) and told by DM (`news.py`);
which démarches may be watched is `domain.dossiers.watching`'s to say.
"""

from __future__ import annotations

from domain.dossiers.watching import WATCH_CHANGES_PER_HOUR, Started, WatchList
from handlers.blocks import Message, plain
from handlers.i18n import counted, text
from handlers.on_behalf import Asker
from handlers.services import Services


async def watch_on(services: Services, asker: Asker, email: str, lang: str, numbers: tuple[int, ...]) -> Message:
    """Watches the démarches named (or, with none, those the workspace's digests follow) that are the person's."""
    if services.digests is None:
        return plain(text(lang, "desk.no_token"))
    watching = WatchList(services.accounts, services.once, services.watches, services.digests.subscriptions)
    found = await watching.start(asker.team_id, asker.user_id, email, numbers)
    match found.started:
        case Started.NO_TOKEN:
            return plain(text(lang, "desk.no_token"))
        case Started.TOO_OFTEN:
            return plain(text(lang, "desk.watch_too_often", most=WATCH_CHANGES_PER_HOUR))
        case Started.UNCHECKED:
            return plain(text(lang, "desk.watch_unchecked", numbers=_numbers([found.unchecked])))
        case Started.NONE:
            return plain(text(lang, "desk.watch_none" if not numbers else "desk.watch_refused", numbers=_numbers(found.refused)))
    minutes = max(1, services.watch_seconds // 60)
    lines = [counted(lang, "desk.watch_on", minutes, numbers=_numbers(found.kept), minutes=minutes)]
    if found.refused:
        lines.append(text(lang, "desk.watch_refused", numbers=_numbers(found.refused)))
    return plain("\n".join(lines))


async def watch_off(services: Services, asker: Asker, lang: str) -> Message:
    stopped = await services.watches.stop(asker.team_id, asker.user_id)
    return plain(text(lang, "desk.watch_off" if stopped else "desk.watch_was_off"))


def _numbers(numbers: list[int] | tuple[int, ...]) -> str:
    return ", ".join(f"n° {number}" for number in numbers)
