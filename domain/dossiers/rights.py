"""Rights that end: a channel's digest shows a démarche only while whoever set it up still works on
it on the dossier service (an administrator, or an instructeur of it — of the group, for a
group's digest), as the service lists them when the digest runs or `/digest now` is asked.

Whose rights count is the setter's: the channel's members may include anyone, the setter was
checked when they subscribed, and must still be. A démarche whose setter lost their rights
lapses: nothing of it is posted, the channel is told once (by the surface, from `newly_lapsed`),
and anyone entitled takes it over with `/digest subscribe`. Rights that come back (the setter
added to the group again) bring it back. When a profile or the member list cannot be read right
now, the last answer stands.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace

from clients.dossiers.access import Membership
from clients.dossiers.errors import DossierServiceError
from clients.dossiers.subscriptions import Followed, Subscription, Subscriptions

#: who may follow a démarche, as the service lists them now
Members = Callable[[int], Awaitable[Membership]]
#: a person's e-mail now, from the chat's profile: None when their account is gone or has no e-mail,
#: UNREAD when the chat did not answer for now
Emails = Callable[[str], Awaitable[str | None]]
UNREAD = "?"


@dataclass(frozen=True)
class Rights:
    """The subscription with each démarche's lapse as of now (saved), and what lapsed since the last run."""

    subscription: Subscription
    newly_lapsed: list[Followed] = field(default_factory=list)


async def with_rights(emails: Emails, members: Members, subscriptions: Subscriptions, sub: Subscription) -> Rights:
    """The operator's subscription, set in the environment, is the operator's to stop: left as it is."""
    if sub.operator:
        return Rights(sub)
    known: dict[str, str | None] = {}
    follows = []
    for followed in sub.follows:
        follows.append(replace(followed, lapsed=await _lapsed(emails, members, followed, known)))
    newly = [f for f, was in zip(follows, sub.follows, strict=True) if f.lapsed and not was.lapsed]
    if follows == list(sub.follows):
        return Rights(sub)
    current = await subscriptions.get(sub.team, sub.channel)
    if current is None:
        return Rights(replace(sub, follows=()))
    now = {f.demarche: f.lapsed for f in follows}
    updated = replace(current, follows=tuple(replace(f, lapsed=now.get(f.demarche, f.lapsed)) for f in current.follows))
    await subscriptions.save(updated)
    return Rights(updated, newly)


async def _lapsed(emails: Emails, members: Members, followed: Followed, known: dict[str, str | None]) -> bool:
    if not followed.by:
        return followed.lapsed  # set up before setters were recorded: nobody's rights to check
    if followed.by not in known:
        known[followed.by] = await emails(followed.by)
    email = known[followed.by]
    if email == UNREAD:
        return followed.lapsed
    if email is None:
        return True  # their account was deactivated, or has no e-mail any more
    try:
        membership = await members(followed.demarche)
    except DossierServiceError:
        return followed.lapsed  # the service cannot say now: the count will tell
    return not membership.may_follow(email, followed.group)
