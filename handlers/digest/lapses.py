"""Rights that end, on Slack's side (the rule is domain/dossiers/rights.py): a setter's e-mail read
from their Slack profile now, and the channel told once of the démarches that lapsed."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from slack_sdk.errors import SlackApiError

from clients.dossiers.subscriptions import Followed, Subscription
from domain.dossiers.rights import UNREAD, Emails
from handlers.blocks import plain
from handlers.digest.messages import named_demarches
from handlers.i18n import Mrkdwn, text

if TYPE_CHECKING:
    from slack_sdk.web.async_client import AsyncWebClient

log = logging.getLogger(__name__)


def profile_emails(slack: AsyncWebClient) -> Emails:
    """Each setter's e-mail as their Slack profile has it now."""

    async def email(user: str) -> str | None:
        try:
            found = (await slack.users_info(user=user)).get("user") or {}
        except SlackApiError as error:
            return None if error.response.get("error") in ("user_not_found", "account_inactive") else UNREAD
        except Exception:  # Slack unreachable now
            return UNREAD
        if found.get("deleted"):
            return None
        return str((found.get("profile") or {}).get("email") or "").strip() or None

    return email


async def tell_lapsed(slack: AsyncWebClient, sub: Subscription, lapsed: list[Followed], lang: str) -> None:
    setters = Mrkdwn(", ".join(f"<@{user}>" for user in dict.fromkeys(f.by for f in lapsed)))
    lines = [text(lang, "digest_cmd.lapsed", demarches=named_demarches(lang, [f.demarche for f in lapsed]), setters=setters,
                  first=lapsed[0].demarche)]
    if not sub.live.follows:
        lines.append(text(lang, "digest_cmd.lapsed_all"))
    log.warning("digest of %s: %d démarche(s) lapsed, whoever set them up no longer works on them", sub.channel, len(lapsed))
    try:
        await slack.chat_postMessage(channel=sub.channel, **plain("\n".join(lines)).payload())
    except SlackApiError as error:
        log.warning("could not tell %s that its digest lapsed: %s", sub.channel, error.response.get("error"))
