"""`/dossier <number or link>`, `/dossier watch [<démarche> …]`, `/dossier watch off`,
`/dossier help`: answered to the person only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from handlers.blocks import Message, plain
from handlers.core import grammar
from handlers.core.dossier_links import read_dossier_link
from handlers.core.numbers import is_number, number_words
from handlers.dedupe import first_delivery
from handlers.desk.acting import look_up
from handlers.desk.watch import watch_off, watch_on
from handlers.i18n import text
from handlers.on_behalf import Asker, reply_for, workspace_of
from handlers.services import Services

VERBS = ("watch", "help")


@dataclass(frozen=True)
class Request:
    verb: str  # look | watch | unwatch | help | unknown
    number: int = 0
    demarches: tuple[int, ...] = ()
    problem: str = ""  # the words that were not understood


def parse(typed: str, site: str | None) -> Request:
    said = grammar.command(typed)
    if said.verb == "help" and not said.words:
        return Request("help")
    if said.verb == "watch":
        return _watch(said.words, typed)
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
        return Request("unknown", problem=typed)
    return Request("watch", demarches=found.numbers)


def register(app: AsyncApp, services: Services) -> None:
    async def dossier_command(ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond, client: AsyncWebClient) -> None:
        await ack()
        if not await first_delivery(services, command):
            return
        request = parse(str(command.get("text", ""))[:500], services.dossier_site)
        asker = Asker(workspace_of(command), str(command["user_id"]))
        said = grammar.command(str(command.get("text", ""))[:500])
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
                case "help":  # and each verb another feature answers, in its words (`team.help`)
                    return plain("\n".join([text(lang, "desk.help"), *(text(lang, f"{verb}.help") for verb in services.desk_verbs)]))
            key, values = grammar.unknown("/dossier", request.problem, (*VERBS, *services.desk_verbs), "desk.unknown")
            return plain(text(lang, key, **values) + "\n" + text(lang, "desk.help"))

        needs = request.verb in ("look", "watch") or other is not None
        name = f"dossier_{said.verb if other is not None else request.verb}"
        await reply_for(services, client, respond, asker, name=name, work=work, needs_email=needs,
                        needs_profile=needs)

    app.command("/dossier")(dossier_command)
