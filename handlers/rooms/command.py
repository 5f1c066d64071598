"""`/room new|list|show|help|forget me`: ack at once, then act for the person and answer privately."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from clients.rooms.models import AccessLevel
from domain.rooms.room_refs import read_room_ref
from handlers.blocks import Message
from handlers.core import grammar, when
from handlers.core.creation import create_and_invite
from handlers.core.numbers import typed_number
from handlers.core.planning import plan_room
from handlers.core.privacy import kept_message
from handlers.core.room_messages import help_message, room_list_message, room_message
from handlers.core.sharing_messages import MAX_PEOPLE
from handlers.dedupe import first_delivery
from handlers.i18n import quoted, text, typed
from handlers.on_behalf import Asker, reply_for
from handlers.services import Services


@dataclass(frozen=True)
class New:
    level: AccessLevel | None
    people: tuple[str, ...] = ()  # user ids mentioned: the room is sent to them
    channel: str | None = None  # a channel mentioned: the invitation is posted there
    plan: when.Plan | None = None  # a time given: a room for later


@dataclass(frozen=True)
class List:
    page: int


@dataclass(frozen=True)
class Show:
    ref: str
    room_id: str | None = None
    slug: str | None = None


@dataclass(frozen=True)
class Help:
    problem: str | None = None  # catalog key explaining what was wrong with the text
    params: dict[str, str] = field(default_factory=dict[str, Any])


@dataclass(frozen=True)
class Forget:
    """`/room forget me`: what the bot keeps about the person, and a button that erases it."""


Request = New | List | Show | Help | Forget


VERBS = ("new", "list", "show", "help", "forget")


def parse(command_text: str) -> Request:
    typed = grammar.command(command_text)
    reader = _READERS.get(typed.verb)
    found = reader(typed) if reader else None
    if found is not None:
        return found
    key, values = grammar.unknown("/room", command_text, VERBS, "usage.unknown")
    return Help(key, values)


def _list(typed: grammar.Command) -> List | Help | None:
    if not typed.words:
        return List(1)
    if len(typed.words) > 1:
        return None
    page = page_number(typed.words[0])
    return List(page) if page else Help("usage.bad_page", {"page": quoted(typed.words[0])})


def _show(typed: grammar.Command) -> Show | Help:
    if typed.rest.startswith("<") and typed.rest.endswith(">"):  # a link Slack wrapped, label may hold spaces
        return parse_room_ref(typed.rest)
    if len(typed.words) != 1:
        return Help("usage.show_needs_ref")
    return parse_room_ref(typed.words[0])


def _help(typed: grammar.Command) -> Help | None:
    return None if typed.words else Help()


def _forget(typed: grammar.Command) -> Forget | None:
    return Forget() if len(typed.words) == 1 and grammar.is_typed(typed.words[0], "typed.me") else None


def _new(typed: grammar.Command) -> New | Help:
    return parse_new(typed.rest)


_READERS: dict[str, Callable[[grammar.Command], Request | None]] = {
    "new": _new, "list": _list, "show": _show, "help": _help, "forget": _forget}


def parse_new(rest: str) -> New | Help:
    """`[level] [<@U…|name> …] [<#C…|name>] [at 14:30] [on <day>] [every <weekday>] [for 45m]
    ["topic"]`, the mentions as Slack escapes them, in any order."""
    mentioned = grammar.mentions(rest)
    if len(mentioned.people) > MAX_PEOPLE:  # each is a DM (and, for a planned room, a file and a reminder)
        return Help("usage.too_many_people", {"most": str(MAX_PEOPLE)})
    channels = mentioned.channels
    found = when.read(mentioned.text)
    if isinstance(found, when.Problem):
        return Help(found.key, {name: quoted(str(value)) for name, value in found.params.items()})  # words only: no day yet
    words = found.rest
    level = access_level(words) if words else None
    if (words and level is None and len(words) > 1) or len(channels) > 1:
        return Help("usage.unknown", {"words": quoted(("new " + rest.strip()).strip())})
    if words and level is None:
        # beside a time, an unknown word is a day the reader did not take (`à 14h30 hier`)
        return Help("when.bad_day" if found.plan else "usage.bad_level", {"words" if found.plan else "level": quoted(words[0])})
    return New(level, mentioned.people, channels[0] if channels else None, found.plan)


def access_level(words: list[str]) -> AccessLevel | None:
    """The level as the help names it (`restricted`) or as the interface shows it in the person's
    language (`Restreinte`, `de confiance`): the catalogs' `typed.level.*` words."""
    said = " ".join(words).lower().rstrip(",")
    return next((level for level in AccessLevel if said in typed(f"typed.level.{level.value}")), None)


def page_number(text: str) -> int | None:
    """A page as people type it (`/room list 2`) or as a paging button carries it."""
    page = typed_number(text, 6)
    return page if page else None


def parse_room_ref(raw: str) -> Show | Help:
    ref = read_room_ref(raw)
    if ref is None:
        return Help("usage.bad_ref", {"ref": quoted(raw.strip().strip("<>").split("|")[0])})
    return Show(ref.text, room_id=ref.room_id, slug=ref.slug)


def register(app: AsyncApp, services: Services) -> None:
    async def room_command(ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond, client: AsyncWebClient) -> None:
        await ack()
        if not await first_delivery(services, command):
            return
        request = parse(command.get("text", ""))
        asker = Asker(command["team_id"], command["user_id"])

        async def work(email: str, lang: str) -> Message:
            if isinstance(request, New) and request.plan is not None:
                return await plan_room(services, client, asker, email, lang, plan=request.plan, level=request.level,
                                       people=request.people, channel=request.channel)
            if isinstance(request, New):
                return await create_and_invite(services, client, asker, email, lang, level=request.level,
                                               people=request.people, channel=request.channel)
            if isinstance(request, Forget):
                return await kept_message(services, asker, email, lang)
            return await answer(services, request, email, lang)

        await reply_for(services, client, respond, asker, name=type(request).__name__.lower(), work=work,
                        needs_email=not isinstance(request, Help))

    app.command("/room")(room_command)


async def answer(services: Services, request: List | Show | Help, email: str, lang: str) -> Message:
    """What a `/room` request that makes nothing shows; the room buttons ask for the same answers."""
    site = services.room_site
    match request:
        case List(page=page):
            rooms, latest = await services.rooms.list_with_latest(email, page)  # latest: first on page 1, on no page again
            return room_list_message(lang, rooms, page, site, latest)
        case Show(room_id=str(room_id)):
            return room_message(lang, await services.rooms.get(email, room_id), site, created=False)
        case Show(slug=str(slug)):
            return room_message(lang, await services.rooms.find_by_slug(email, slug), site, created=False)
        case Help(problem=None):
            return help_message(lang)
        case Help(problem=str(problem), params=params):
            return help_message(lang, text(lang, problem, **params))
    raise AssertionError(f"unhandled request {request!r}")
