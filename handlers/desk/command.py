"""`/dossier <number or link>`, `/dossier watch [<démarche> …]`, `/dossier watch off`,
`/dossier help`: answered to the person only."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.news_kinds import Kind, Level
from handlers.blocks import Message, plain
from handlers.core import grammar
from handlers.core.dossier_links import read_dossier_link
from handlers.core.numbers import is_number, number_words
from handlers.dedupe import first_delivery
from handlers.desk.acting import look_up
from handlers.desk.daily import set_daily
from handlers.desk.hearing import choose, kinds_listed, quiet, read_kind, read_level, snooze
from handlers.desk.watch import watch_off, watch_on
from handlers.i18n import Mrkdwn, quoted, text
from handlers.on_behalf import Asker, reply_for, workspace_of
from handlers.profiles import load_profile
from handlers.services import Services

VERBS = ("watch", "quiet", "snooze", "daily", "help")


@dataclass(frozen=True)
class Request:
    verb: str  # look | watch | unwatch | hear | kind_unknown | level_unknown | quiet | snooze | daily | help | unknown
    number: int = 0
    demarches: tuple[int, ...] = ()
    problem: str = ""  # the words that were not understood
    kind: Kind | None = None  # `watch <n> <kind> <level>`
    level: Level | None = None  # None: say the level set
    words: tuple[str, ...] = ()  # what follows `quiet`, `snooze`, `daily`


def parse(said: grammar.Command, site: str | None) -> Request:
    typed = said.text
    if said.verb == "help" and not said.words:
        return Request("help")
    if said.verb == "watch":
        return _watch(said.words, typed)
    if said.verb in ("quiet", "snooze", "daily"):
        return Request(said.verb, words=tuple(said.words[:6]))
    bare = number_words(typed.split())  # `n° 12345`, as a card names the dossier
    if len(bare) == 1 and is_number(bare[0], 12):
        return Request("look", number=int(bare[0]))
    link = read_dossier_link(typed.strip(), site) if len(typed.split()) == 1 else None
    return Request("look", number=link[1]) if link else Request("unknown", problem=typed)


def _watch(words: list[str], typed: str) -> Request:
    """`watch off`, or `watch [<démarche> …]` (the numbers as `/digest list` shows them, too)."""
    rest = [word.lower() for word in number_words(words)]
    if rest == ["off"]:
        return Request("unwatch")
    found = grammar.numbers(rest, 9)
    if found.others:
        return _hear(found.numbers, [word for word in rest if not is_number(word, 9)], typed)
    return Request("watch", demarches=found.numbers)


def _hear(numbers: tuple[int, ...], others: list[str], typed: str) -> Request:
    """`watch <démarche> <kind> all|followed|off`, its words in any order; `watch <démarche> <kind>`: the level set."""
    if len(numbers) == 1 and len(others) == 1:  # `watch 678 messages`: what is set; `watch 678 off`: which kind?
        kind = read_kind(others[0])
        return Request("hear", demarches=numbers, kind=kind) if kind else Request("kind_unknown", problem=others[0])
    if len(numbers) != 1 or len(others) != 2:
        return Request("unknown", problem=typed)
    first, second = others
    level, word = (read_level(first), second) if read_level(first) is not None else (read_level(second), first)
    if level is None:  # a kind and a word that is no level, or neither
        typo = second if read_kind(first) else first if read_kind(second) else None
        return Request("unknown", problem=typed) if typo is None else Request("level_unknown", problem=typo)
    kind = read_kind(word)
    if kind is None:
        return Request("kind_unknown", problem=word)
    return Request("hear", demarches=numbers, kind=kind, level=level)


def register(app: AsyncApp, services: Services) -> None:
    async def dossier_command(ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond, client: AsyncWebClient) -> None:
        await ack()
        if not await first_delivery(services, command):
            return
        said = grammar.command(str(command.get("text", ""))[:500])
        request = parse(said, services.dossier_site)
        asker = Asker(workspace_of(command), str(command["user_id"]))
        other = services.desk_verbs.get(said.verb)  # a verb another feature answers (`team`)

        async def work(email: str, lang: str) -> Message:
            if other is not None:
                return await other(client, command, said.words, email, lang)
            match request.verb:
                case "look":
                    return await look_up(services, asker, email, lang, request.number)
                case "watch":
                    return await watch_on(services, asker, email, lang, request.demarches)
                case "unwatch":
                    return await watch_off(services, asker, lang)
                case "hear" if request.kind is not None:
                    return await choose(services, asker, lang, request.demarches[0], request.kind, request.level)
                case "kind_unknown":  # a level alone is a kind missing
                    key = "hear.kind_missing" if read_level(request.problem) else "hear.kind_unknown"
                    return plain(text(lang, key, words=quoted(request.problem, 30), kinds=Mrkdwn(kinds_listed(lang))))
                case "level_unknown":
                    return plain(text(lang, "hear.level_unknown", words=quoted(request.problem, 30)))
                case "quiet":
                    return await quiet(services, asker, lang, list(request.words))
                case "snooze":
                    return await snooze(services, client, asker, lang, list(request.words), dt.datetime.now(dt.UTC))
                case "daily":
                    profile = await load_profile(client, services.profiles, asker.team_id, asker.user_id)
                    return await set_daily(services, asker, lang, profile.tz, list(request.words), dt.datetime.now(dt.UTC))
                case "help":  # and each verb another feature answers, in its words (`team.help`)
                    return plain(_help(lang, services))
            key, values = grammar.unknown("/dossier", request.problem, (*VERBS, *services.desk_verbs), "desk.unknown")
            return plain(text(lang, key, **values) + "\n" + _help(lang, services))

        needs = request.verb in ("look", "watch") or other is not None
        name = f"dossier_{said.verb if other is not None else request.verb}"
        await reply_for(services, client, respond, asker, name=name, work=work, needs_email=needs,
                        needs_profile=needs)

    app.command("/dossier")(dossier_command)


def _help(lang: str, services: Services) -> str:
    """The desk's verbs, what a person hears, and each verb another feature answers (`team.help`)."""
    return "\n".join([text(lang, "desk.help"), text(lang, "hear.help"), *(text(lang, f"{verb}.help") for verb in services.desk_verbs)])
