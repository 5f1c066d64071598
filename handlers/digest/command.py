"""`/digest subscribe|unsubscribe|list|now|help`, typed in the channel it concerns.

This module is the listener: it acknowledges, reads the text once (request.py), asks for the person's
profile only when the sub-command needs it (subscribing and unsubscribing check rights by the e-mail of
their Slack profile; `help` and `list` need nobody's), and hands the work to the module of that
sub-command: subscribing.py, listing.py, now.py. What no sub-command may do is decided here once: nothing
without the digest job, nothing for a workspace no token reads for, no digest set up or posted in a DM.
"""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from handlers.blocks import Message, plain
from handlers.dedupe import first_delivery
from handlers.digest.job import DigestJob
from handlers.digest.listing import list_here
from handlers.digest.now import post_now
from handlers.digest.request import Request, Where, parse
from handlers.digest.subscribing import subscribe, unsubscribe
from handlers.i18n import clock, text, zone_words
from handlers.on_behalf import Asker, reply_for
from handlers.services import Services


def register(app: AsyncApp, services: Services, digests: DigestJob | None) -> None:
    """`digests`: the digest job, when a dossier-service token is configured."""
    async def digest_command(ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond, client: AsyncWebClient) -> None:
        await ack()
        if not await first_delivery(services, command):
            return
        request = parse(command.get("text", ""))
        asker = Asker(command["team_id"], command["user_id"])
        channel = str(command.get("channel_id", ""))[:30]
        private_chat = str(command.get("channel_name", "")) == "directmessage" or str(command.get("channel_name", "")).startswith("mpdm-")

        async def work(email: str, lang: str) -> Message | None:
            if digests is None:
                return plain(text(lang, "digest_cmd.off"))
            if request.problem is not None or request.verb == "help":
                return _help(lang, digests, request)
            account = await digests.account(asker.team_id, command.get("enterprise_id") or None)
            if account is None:  # nothing is read for this workspace with a token given for others
                return plain(text(lang, "digest_cmd.no_token_here"))
            if request.verb == "list":
                return await list_here(digests, account, asker.team_id, channel, lang)
            if private_chat:  # a digest is a team's: a DM has no team to post it to
                return plain(text(lang, "digest_cmd.not_in_dm"))
            where = Where(channel, asker.user_id, email, lang, asker.team_id, account)
            if request.verb == "subscribe":
                return await subscribe(client, digests, where, request)
            if request.verb == "unsubscribe":
                return await unsubscribe(client, digests, where, request)
            return await post_now(digests, where, request.force, respond)

        needs_profile = request.verb in ("subscribe", "unsubscribe") and request.problem is None
        await reply_for(services, client, respond, asker, name=f"digest_{request.verb}", work=work, needs_email=needs_profile,
                        needs_profile=needs_profile)

    app.command("/digest")(digest_command)


def _help(lang: str, digests: DigestJob, request: Request) -> Message:
    """The usage, after what was wrong when something was: a mistyped command is answered with how to type it."""
    usage = text(lang, "digest_cmd.help", time=clock(lang, digests.following.default_time), zone=zone_words(lang, digests.following.zone))
    if request.problem is None:
        return plain(usage)
    key, values = request.problem
    return plain(text(lang, key, **values) + "\n" + usage)
