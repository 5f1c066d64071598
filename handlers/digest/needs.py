"""The digest's "Show them" button: the dossiers behind a démarche's to-do line (late, SVA/SVR
date soon or past), listed privately to whoever clicks — if they work on the démarche now (of the
group, for a group's digest), whatever the button says. Read from the kept records: no request
but the member list, a few a minute per person (a forged value can name any démarche), within the
share of the allowance look-ups have."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.models.blocks import ActionsBlock, Block, SectionBlock
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.rate_limit import Priority, with_priority
from domain.dossiers.awaiting import NEEDS, SHOWS_PER_MINUTE, Shown, needs_list
from handlers.blocks import Message, mrkdwn, plain
from handlers.core.dossier_links import open_button
from handlers.digest.job import DigestJob
from handlers.digest.messages import SHOW_NEEDS
from handlers.i18n import text
from handlers.on_behalf import reply_privately, run_for, who
from handlers.services import Services

MOST_SHOWN = 25  # buttons; the rest is counted


def register(app: AsyncApp, services: Services, digests: DigestJob | None) -> None:
    """`digests`: the digest job, when a dossier-service token is configured."""
    async def show(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient,
                   respond: AsyncRespond) -> None:
        await ack()
        number, _, group = str(action.get("value", "")).partition(":")
        if not number.isdecimal() or len(number) > 9 or (group and (not group.isdecimal() or len(group) > 9)):
            return
        asker = who(body)

        @with_priority(Priority.ASKED)
        async def work(email: str, lang: str) -> Message:
            if digests is None:
                return plain(text(lang, "digest_cmd.no_token_here"))
            found = await needs_list(services.accounts, services.once, asker.team_id, asker.user_id, email, int(number),
                                     int(group) if group else None, digests.config.late_days)
            match found.shown:
                case Shown.LISTED:
                    return _listed(lang, int(number), found.title, found.needs)
                case Shown.TOO_OFTEN:
                    return plain(text(lang, "digest.needs_too_often", most=SHOWS_PER_MINUTE))
                case Shown.UNCHECKED:
                    return plain(text(lang, "digest.needs_unchecked", number=number))
                case Shown.NOT_YOURS:
                    return plain(text(lang, "digest.needs_not_yours", number=number))
            return plain(text(lang, "digest_cmd.no_token_here"))

        _, message = await run_for(services, client, asker, name="digest_show_needs", work=work)
        if message is not None:
            await reply_privately(client, respond, asker.user_id, message)

    app.action(SHOW_NEEDS)(show)


def _listed(lang: str, number: int, title: str, found: dict[str, list[int]]) -> Message:
    if not found:
        return plain(text(lang, "digest.needs_none", number=number))
    blocks: list[Block] = [SectionBlock(text=mrkdwn(text(lang, "digest.needs_title", title=title, number=number)))]
    shown = 0
    for why in NEEDS:
        numbers = found.get(why, [])
        if not numbers:
            continue
        chosen = numbers[:MOST_SHOWN - shown]
        blocks.append(SectionBlock(text=mrkdwn(text(lang, f"digest.needs_{why}", count=len(numbers)))))
        blocks += [ActionsBlock(elements=[open_button(lang, n) for n in chosen[start:start + 5]]) for start in range(0, len(chosen), 5)]
        shown += len(chosen)
    return Message(text=text(lang, "digest.needs_title", title=title, number=number), blocks=blocks)
