"""`/digest subscribe|unsubscribe|list|now|help`, typed in the channel it concerns.

Subscriptions live in Redis; the operator's own (DIGEST_CHANNEL, DIGEST_DEMARCHES) is shown but
not changed from Slack. A démarche is subscribed only when allowed (DIGEST_ALLOWED_DEMARCHES) and
readable with the bot's dossier-service token, in a channel the bot can post in.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from dataclasses import dataclass, replace
from typing import Protocol
from zoneinfo import ZoneInfo

from babel.dates import format_datetime
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.digest_store import Outcome
from clients.dossiers.errors import DemarcheForbidden, DemarcheNotFound, DossierServiceError
from clients.dossiers.subscriptions import Subscription, Subscriptions
from handlers.blocks import Message, plain
from handlers.dedupe import first_delivery
from handlers.digest_post import DigestNotPosted
from handlers.i18n import quoted, text
from handlers.on_behalf import Asker, reply_for
from handlers.services import Services
from handlers.usage import corrected

_AT = re.compile(r"^\d{1,2}:\d{2}$")


class Digests(Protocol):
    """What `/digest` needs from the digest job (built in `bot`)."""

    @property
    def subscriptions(self) -> Subscriptions: ...

    @property
    def operators(self) -> Subscription | None: ...

    @property
    def default_time(self) -> dt.time: ...

    @property
    def zone(self) -> ZoneInfo: ...

    @property
    def allowed(self) -> frozenset[int] | None: ...

    async def check(self, number: int) -> str: ...

    async def run(self, day: dt.date, *, subscription: Subscription | None = None, force: bool = False) -> Outcome: ...

    async def asked_by(self, day: dt.date, channel: str, user: str | None = None) -> str | None: ...


@dataclass(frozen=True)
class Request:
    verb: str  # subscribe | unsubscribe | list | now | help | unknown
    numbers: tuple[int, ...] = ()
    at: dt.time | None = None
    force: bool = False
    problem: tuple[str, dict[str, str]] | None = None  # catalog key and values when the text is wrong
    not_numbers: tuple[str, ...] = ()  # words among the numbers that are none: reported, the rest still done


VERBS = ("subscribe", "unsubscribe", "list", "now", "help")


def parse(command_text: str) -> Request:
    words = command_text.split()
    verb = words[0].lower() if words else "help"
    rest = words[1:]
    if verb in ("subscribe", "unsubscribe"):
        at = None
        if verb == "subscribe" and len(rest) >= 2 and rest[-2].lower() in ("at", "à"):
            if not _AT.match(rest[-1]):
                return Request(verb, problem=("digest_cmd.bad_time", {"time": quoted(rest[-1], 20)}))
            hours, minutes = (int(part) for part in rest[-1].split(":"))
            if hours > 23 or minutes > 59:
                return Request(verb, problem=("digest_cmd.bad_time", {"time": quoted(rest[-1], 20)}))
            at, rest = dt.time(hours, minutes), rest[:-2]
        numbers = tuple(dict.fromkeys(int(word) for word in rest if _is_number(word)))
        others = tuple(dict.fromkeys(quoted(word, 30) for word in rest if not _is_number(word)))[:10]
        if not numbers and not others:
            return Request(verb, problem=("digest_cmd.no_numbers", {}))
        return Request(verb, numbers, at, not_numbers=others)
    if verb == "list" and not rest:
        return Request("list")
    if verb == "now" and rest in ([], ["force"]):
        return Request("now", force=bool(rest))
    if verb == "help" and not rest:
        return Request("help")
    meant = corrected("/digest", command_text, VERBS) if verb not in VERBS else None
    if meant:
        return Request("unknown", problem=("usage.unknown_meant", {"words": quoted(command_text.strip()), "command": quoted(meant)}))
    return Request("unknown", problem=("digest_cmd.unknown_words", {"words": quoted(command_text.strip())}))


def _is_number(word: str) -> bool:
    return word.isdecimal() and len(word) < 10


def register(app: AsyncApp, services: Services) -> None:
    async def digest_command(ack: AsyncAck, command: dict, respond: AsyncRespond, client: AsyncWebClient) -> None:
        await ack()
        if not await first_delivery(services, command):
            return
        request = parse(command.get("text", ""))
        asker = Asker(command["team_id"], command["user_id"])
        channel = str(command.get("channel_id", ""))[:30]

        async def work(email: str, lang: str) -> Message | None:
            digests = services.digests
            if digests is None:
                return plain(text(lang, "digest_cmd.off"))
            if request.problem is not None or request.verb == "help":
                return _help(lang, digests, request)
            if request.verb == "subscribe":
                return await _subscribe(client, digests, channel, lang, request)
            if request.verb == "unsubscribe":
                return await _unsubscribe(digests, channel, lang, request)
            if request.verb == "list":
                return await _list(digests, channel, lang)
            return await _now(digests, channel, asker.user_id, lang, request.force, respond)

        await reply_for(services, client, respond, asker, name=f"digest_{request.verb}", work=work, needs_email=False)

    app.command("/digest")(digest_command)


def _help(lang: str, digests: Digests, request: Request) -> Message:
    usage = text(lang, "digest_cmd.help", time=digests.default_time.strftime("%H:%M"), zone=str(digests.zone))
    if request.problem is None:
        return plain(usage)
    key, values = request.problem
    return plain(text(lang, key, **values) + "\n" + usage)


async def _subscribe(client: AsyncWebClient, digests: Digests, channel: str, lang: str, request: Request) -> Message:
    """Follows every démarche that may be followed; one answer says what was done and, for each
    word or number that was not, why."""
    refusal = await _cannot_post(client, channel, lang)
    if refusal is not None:
        return refusal
    accepted: list[int] = []
    refused = [text(lang, "digest_cmd.not_a_number", word=word) for word in request.not_numbers]
    for number in request.numbers:
        why = await _why_not(digests, number, lang)
        if why is None:
            accepted.append(number)
        else:
            refused.append(why)
    if not accepted:
        return plain("\n".join(refused or [text(lang, "digest_cmd.no_numbers")]))
    current = await digests.subscriptions.get(channel)
    at = request.at or (current.at if current else digests.default_time)
    numbers = tuple(dict.fromkeys((*(current.demarches if current else ()), *accepted)))
    subscription = Subscription(channel, numbers, at)
    await digests.subscriptions.save(subscription)
    done = text(lang, "digest_cmd.subscribed", demarches=_numbers(numbers), time=at.strftime("%H:%M"),
                zone=str(digests.zone), next=_next_run(subscription, digests.zone, lang))
    return plain("\n".join([done, *refused]))


async def _why_not(digests: Digests, number: int, lang: str) -> str | None:
    """Why démarche `number` may not be followed here, or None when it may."""
    if digests.allowed is not None and number not in digests.allowed:
        return text(lang, "digest_cmd.not_allowed", number=number)
    try:
        await digests.check(number)
    except DemarcheNotFound:
        return text(lang, "digest_cmd.unknown", number=number)
    except DemarcheForbidden:
        return text(lang, "digest_cmd.forbidden", number=number)
    except DossierServiceError as error:
        return text(lang, "digest_cmd.unchecked", number=number, reason=text(lang, f"digest.reason.{error.reason}"))
    return None


async def _unsubscribe(digests: Digests, channel: str, lang: str, request: Request) -> Message:
    current = await digests.subscriptions.get(channel)
    refused = [text(lang, "digest_cmd.not_a_number", word=word) for word in request.not_numbers]
    followed = [n for n in request.numbers if current and n in current.demarches]
    unknown = tuple(n for n in request.numbers if n not in followed)
    if unknown:
        refused.append(text(lang, "digest_cmd.not_followed", demarches=_numbers(unknown)))
    if current is None or not followed:
        return plain("\n".join(refused))
    left = replace(current, demarches=tuple(n for n in current.demarches if n not in followed))
    await digests.subscriptions.save(left)
    lines = [text(lang, "digest_cmd.unsubscribed", demarches=_numbers(tuple(followed)))]
    if not left.demarches:
        lines.append(text(lang, "digest_cmd.nothing_left"))
    return plain("\n".join([*lines, *refused]))


async def _list(digests: Digests, channel: str, lang: str) -> Message:
    lines = []
    mine = await digests.subscriptions.get(channel)
    if mine is not None:
        lines.append(text(lang, "digest_cmd.list", demarches=_numbers(mine.demarches), time=mine.at.strftime("%H:%M"),
                          zone=str(digests.zone), next=_next_run(mine, digests.zone, lang)))
    operators = digests.operators
    if operators is not None and operators.channel == channel:
        lines.append(text(lang, "digest_cmd.operators", demarches=_numbers(operators.demarches),
                          time=operators.at.strftime("%H:%M"), zone=str(digests.zone)))
    return plain("\n".join(lines) or text(lang, "digest_cmd.none"))


async def _now(digests: Digests, channel: str, user: str, lang: str, force: bool, respond: AsyncRespond) -> Message:
    subscription = await digests.subscriptions.get(channel)
    operators = digests.operators
    if subscription is None and operators is not None and operators.channel == channel:
        subscription = operators
    if subscription is None:
        return plain(text(lang, "digest_cmd.nothing_to_post"))
    day = dt.datetime.now(digests.zone).date()
    first_asker = await digests.asked_by(day, channel, user)
    if force and first_asker != user:
        return plain(text(lang, "digest_cmd.force_refused"))
    await respond(**plain(text(lang, "digest_cmd.started")).payload(response_type="ephemeral"))
    try:
        outcome = await digests.run(day, subscription=subscription, force=force)
    except DigestNotPosted as error:
        return plain(text(lang, "digest_cmd.not_posted", reason=str(error)))
    key = {Outcome.POSTED: "digest_cmd.posted", Outcome.ALREADY_POSTED: "digest_cmd.already", Outcome.BUSY: "digest_cmd.busy"}
    return plain(text(lang, key[outcome]))


async def _cannot_post(client: AsyncWebClient, channel: str, lang: str) -> Message | None:
    """A private conversation the bot is not in cannot get a digest (public ones can: chat:write.public)."""
    conversation: dict | None
    try:
        conversation = (await client.conversations_info(channel=channel)).get("channel") or {}
    except SlackApiError:  # channel_not_found: a private conversation the bot is not in
        conversation = None
    if conversation is None or (conversation.get("is_private") and not conversation.get("is_member")):
        bot = "bot"
        with contextlib.suppress(SlackApiError):
            bot = str((await client.auth_test()).get("user") or bot)
        return plain(text(lang, "digest_cmd.cannot_post", bot=bot))
    return None


def _numbers(numbers: tuple[int, ...]) -> str:
    return ", ".join(f"n° {n}" for n in numbers)


def _next_run(subscription: Subscription, zone: ZoneInfo, lang: str) -> str:
    now = dt.datetime.now(zone)
    due = dt.datetime.combine(now.date(), subscription.at, tzinfo=zone)
    if due <= now:
        due = dt.datetime.combine(now.date() + dt.timedelta(days=1), subscription.at, tzinfo=zone)
    return format_datetime(due, format="medium", tzinfo=zone, locale=lang)
