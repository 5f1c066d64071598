"""`/dossier team <démarche> [group <n>] [at HH:MM] [here]` and `/dossier team <démarche> [group <n>] check`:
the words read, the work handed to the set-up or the roster check. The desk reads the verb and hands
over (`Services.desk_verbs`): this feature imports no other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from handlers.blocks import Message, plain
from handlers.core import grammar
from handlers.core.numbers import number_words
from handlers.i18n import quoted, text
from handlers.on_behalf import workspace_of
from handlers.services import Services
from handlers.team.drift import check
from handlers.team.setup import Ask, set_up


@dataclass(frozen=True)
class Typed:
    ask: Ask | None
    check: bool = False
    problem: str = ""


def read(words: list[str], typed_in: str) -> Typed:
    """The démarche (its number), `group <n>`, `at <hour>`, `here`, `check`, in any order, each once."""
    rest = number_words(words)
    hour = grammar.marked_time(rest)
    if isinstance(hour, grammar.NotRead):
        return Typed(None, problem=hour.words)
    at, rest = hour
    group = grammar.marked_number(rest, "typed.group", 9)
    if isinstance(group, grammar.NotRead):
        return Typed(None, problem=group.words)
    number, rest = group
    here = any(grammar.is_typed(word, "typed.here") for word in rest)
    checking = any(grammar.is_typed(word, "typed.check") for word in rest)
    rest = [word for word in rest if not grammar.is_typed(word, "typed.here") and not grammar.is_typed(word, "typed.check")]
    found = grammar.numbers(rest, 9)
    if len(found.numbers) != 1 or found.others:
        return Typed(None, problem=" ".join(found.others) or " ".join(str(n) for n in found.numbers))
    return Typed(Ask(found.numbers[0], number, at, here, typed_in), check=checking)


def register(app: AsyncApp, services: Services) -> None:
    async def team(client: AsyncWebClient, command: dict[str, Any], words: list[str], email: str, lang: str) -> Message:
        typed = read(words, str(command.get("channel_id") or ""))
        if typed.ask is None:
            problem = text(lang, "team.not_read", words=quoted(typed.problem, 30)) if typed.problem else ""
            return plain("\n".join(line for line in (problem, text(lang, "team.help")) if line))
        team_id, user = workspace_of(command), str(command["user_id"])
        if typed.check:
            return await check(services, client, team_id, user, email, lang, typed.ask.demarche, typed.ask.group)
        return await set_up(services, client, team_id, user, email, lang, typed.ask)

    services.desk_verbs["team"] = team
