"""Rights that end: a channel's digest shows a démarche only while whoever set it up still works on
it on the dossier service (an administrator, or an instructeur of it — of the group, for a
group's digest), as the service lists them when the digest runs or `/digest now` is asked.

Whose rights count is the setter's: the channel's members may include anyone, the setter was
checked when they subscribed, and must still be. A démarche whose setter lost their rights
lapses: nothing of it is posted, the channel is told once, and anyone entitled takes it over with
`/digest subscribe`. Rights that come back (the setter added to the group again) bring it back.
When a profile or the member list cannot be read right now, the last answer stands.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from slack_sdk.errors import SlackApiError

from clients.dossiers.access import Membership
from clients.dossiers.errors import DossierServiceError
from clients.dossiers.subscriptions import Followed, Subscription, Subscriptions
from handlers.blocks import plain
from handlers.core.slack_refusals import attempted
from handlers.digest.messages import named_demarches
from handlers.i18n import Mrkdwn, text

if TYPE_CHECKING:
    from slack_sdk.web.async_client import AsyncWebClient

log = logging.getLogger(__name__)

Members = Callable[[int], Awaitable[Membership]]
UNREAD = "?"  # a profile Slack did not answer for now


async def with_rights(slack: AsyncWebClient, members: Members, subscriptions: Subscriptions, sub: Subscription,
                      lang: str) -> Subscription:
    """The subscription with each démarche's lapse as of now, saved; the channel told of what
    lapsed since the last run. The operator's, set in the environment, is the operator's to stop."""
    if sub.operator:
        return sub
    emails: dict[str, str | None] = {}
    follows = []
    for followed in sub.follows:
        follows.append(replace(followed, lapsed=await _lapsed(slack, members, followed, emails)))
    newly = [f for f, was in zip(follows, sub.follows, strict=True) if f.lapsed and not was.lapsed]
    if follows == list(sub.follows):
        return sub
    current = await subscriptions.get(sub.team, sub.channel)
    if current is None:
        return replace(sub, follows=())
    now = {f.demarche: f.lapsed for f in follows}
    updated = replace(current, follows=tuple(replace(f, lapsed=now.get(f.demarche, f.lapsed)) for f in current.follows))
    await subscriptions.save(updated)
    if newly:
        await _tell(slack, updated, newly, lang)
    return updated


async def _lapsed(slack: AsyncWebClient, members: Members, followed: Followed, emails: dict[str, str | None]) -> bool:
    if not followed.by:
        return followed.lapsed  # set up before setters were recorded: nobody's rights to check
    if followed.by not in emails:
        emails[followed.by] = await _email(slack, followed.by)
    email = emails[followed.by]
    if email == UNREAD:
        return followed.lapsed
    if email is None:
        return True  # their account was deactivated, or has no e-mail any more
    try:
        membership = await members(followed.demarche)
    except DossierServiceError:
        return followed.lapsed  # the service cannot say now: the count will tell
    return not membership.may_follow(email, followed.group)


async def _email(slack: AsyncWebClient, user: str) -> str | None:
    try:
        found = (await slack.users_info(user=user)).get("user") or {}
    except SlackApiError as error:
        return None if error.response.get("error") in ("user_not_found", "account_inactive") else UNREAD
    except Exception:  # Slack unreachable now
        return UNREAD
    if found.get("deleted"):
        return None
    return str((found.get("profile") or {}).get("email") or "").strip() or None


async def _tell(slack: AsyncWebClient, sub: Subscription, lapsed: list[Followed], lang: str) -> None:
    setters = Mrkdwn(", ".join(f"<@{user}>" for user in dict.fromkeys(f.by for f in lapsed)))
    lines = [text(lang, "digest_cmd.lapsed", demarches=named_demarches(lang, [f.demarche for f in lapsed]), setters=setters,
                  first=lapsed[0].demarche)]
    if not sub.live.follows:
        lines.append(text(lang, "digest_cmd.lapsed_all"))
    log.warning("digest of %s: %d démarche(s) lapsed, whoever set them up no longer works on them", sub.channel, len(lapsed))
    await attempted(slack.chat_postMessage(channel=sub.channel, **plain("\n".join(lines)).payload()),
                    f"telling {sub.channel} that its digest lapsed")
