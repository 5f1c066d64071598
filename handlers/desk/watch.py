"""`/dossier watch` and `/dossier unwatch` (and Home's toggle): which démarches a person watches,
those they are an administrator or an instructeur of now. What a watch then tells them — a dossier
of one of their groups deposited, the applicant writing on one, a dossier they follow changing state
by someone else's hand — is read in rounds (`domain.dossiers.news`) and told by DM (`news.py`).
"""

from __future__ import annotations

from clients.dossiers import errors
from clients.dossiers.rate_limit import Priority, with_priority
from handlers.blocks import Message, plain
from handlers.i18n import counted, text
from handlers.on_behalf import Asker
from handlers.services import Services

MOST_WATCHED = 20  # démarches one person watches
WATCH_CHANGES_PER_HOUR = 10  # each reads up to MOST_WATCHED member lists


@with_priority(Priority.ASKED)
async def watch_on(services: Services, asker: Asker, email: str, lang: str, numbers: tuple[int, ...]) -> Message:
    """Watches the démarches named (or, with none, those the workspace's digests follow), of
    which the person is an administrator or an instructeur now. One that cannot be checked just
    now (the service down, or this minute's share of the allowance spent) changes nothing."""
    account = await services.accounts.for_team(asker.team_id)
    if account is None or services.digests is None:
        return plain(text(lang, "desk.no_token"))
    if not await services.once.within("dossier-watch", asker.team_id, asker.user_id, most=WATCH_CHANGES_PER_HOUR, ttl=3600):
        return plain(text(lang, "desk.watch_too_often", most=WATCH_CHANGES_PER_HOUR))
    # with no number: those the person watches already (kept, not dropped), and the digests' own
    followed = [n for sub in await services.digests.subscriptions.all(asker.team_id) for n in sub.demarches]
    asked = numbers or tuple(dict.fromkeys([*(await services.watches.of(asker.team_id, asker.user_id) or ()), *followed]))
    kept: list[int] = []
    refused: list[int] = []
    for number in asked[:MOST_WATCHED]:
        try:
            entitled = (await account.access.membership(number)).entitled(email)
        except errors.DossierServiceUnavailable:
            return plain(text(lang, "desk.watch_unchecked", numbers=_numbers([number])))
        except errors.DossierServiceError:
            entitled = False
        (kept if entitled else refused).append(number)
    if not kept:
        return plain(text(lang, "desk.watch_none" if not numbers else "desk.watch_refused", numbers=_numbers(refused)))
    await services.watches.start(asker.team_id, asker.user_id, kept)
    minutes = max(1, services.watch_seconds // 60)
    lines = [counted(lang, "desk.watch_on", minutes, numbers=_numbers(kept), minutes=minutes)]
    if refused:
        lines.append(text(lang, "desk.watch_refused", numbers=_numbers(refused)))
    return plain("\n".join(lines))


async def watch_off(services: Services, asker: Asker, lang: str) -> Message:
    stopped = await services.watches.stop(asker.team_id, asker.user_id)
    return plain(text(lang, "desk.watch_off" if stopped else "desk.watch_was_off"))


def _numbers(numbers: list[int] | tuple[int, ...]) -> str:
    return ", ".join(f"n° {number}" for number in numbers)
