"""What a person chooses to hear of the watch, and when: `/dossier watch <n> <kind> all|followed|off`,
`/dossier quiet <from> <to>`, `/dossier snooze 1h|tomorrow`, and the DM's buttons (mute a kind for a
démarche, snooze). Each changes only the asker's own choices (clients/dossiers/choices.py); a level
is set only for a démarche they watch. Kinds and levels are typed in any language the bot speaks
(`typed.kind.*`, `typed.hear.*`) and named back in the person's.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.models.blocks import ButtonElement
from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.choices import Quiet
from clients.dossiers.news_kinds import Kind, Level
from domain.dossiers.hearing import tomorrow_morning
from domain.rooms.meeting_times import zone_named
from handlers.blocks import Message, plain
from handlers.core import grammar
from handlers.i18n import clock, quoted, shown_word, text, typed
from handlers.on_behalf import Asker, reply_for, run_for, who
from handlers.profiles import load_profile
from handlers.services import Services

MUTE = "news_mute"  # + `_<démarche>_<kind>`: one per block
SNOOZE = "news_snooze"  # + `_hour` or `_tomorrow`
MOST_MUTES = 5  # a DM's mute buttons: its first kinds × démarches
_MUTE_VALUE = re.compile(r"^([0-9]{1,9}):([a-z]{1,20})$", re.ASCII)


def kind_name(lang: str, kind: str) -> str:
    return text(lang, f"hear.kind.{kind}")


def kinds_listed(lang: str) -> str:
    """Every kind as the person types it, with what it names: for an answer to a typo."""
    return "\n".join(text(lang, "hear.kind_item", word=shown_word(lang, f"typed.kind.{kind.value}"), name=kind_name(lang, kind.value))
                     for kind in Kind)


def read_kind(word: str) -> Kind | None:
    return next((kind for kind in Kind if grammar.is_typed(word, f"typed.kind.{kind.value}")), None)


def read_level(word: str) -> Level | None:
    return next((level for level in Level if grammar.is_typed(word, f"typed.hear.{level.value}")), None)


def mute_buttons(lang: str, heard: Sequence[tuple[int, str]]) -> list[ButtonElement]:
    """"Mute <kind> for n° <démarche>" for the first kinds of a DM; each id its own in the block."""
    pairs = list(dict.fromkeys(heard))[:MOST_MUTES]
    return [ButtonElement(text=text(lang, "hear.mute", kind=kind_name(lang, kind), demarche=demarche),
                          action_id=f"{MUTE}_{demarche}_{kind}", value=f"{demarche}:{kind}") for demarche, kind in pairs]


def snooze_buttons(lang: str) -> list[ButtonElement]:
    return [ButtonElement(text=text(lang, "hear.snooze_hour"), action_id=f"{SNOOZE}_hour", value="hour"),
            ButtonElement(text=text(lang, "hear.snooze_tomorrow"), action_id=f"{SNOOZE}_tomorrow", value="tomorrow")]


async def choose(services: Services, asker: Asker, lang: str, demarche: int, kind: Kind, level: Level | None) -> Message:
    """Sets the asker's level for a kind in a démarche they watch (None: says the level set)."""
    if demarche not in (await services.watches.of(asker.team_id, asker.user_id) or []):
        return plain(text(lang, "hear.not_watched", demarche=demarche))
    named = {"kind": kind_name(lang, kind.value), "demarche": demarche, "word": shown_word(lang, f"typed.kind.{kind.value}")}
    if level is None:
        level = await services.choices.level(asker.team_id, asker.user_id, demarche, kind)
        return plain(text(lang, f"hear.is.{level.value}", **named))
    await services.choices.choose(asker.team_id, asker.user_id, demarche, kind, level)
    return plain(text(lang, f"hear.chosen.{level.value}", **named))


async def quiet(services: Services, asker: Asker, lang: str, words: list[str]) -> Message:
    """`quiet 22:00 07:00`, `quiet off`, or `quiet` (what is set)."""
    hours = services.hours
    if len(words) == 1 and read_level(words[0]) is Level.OFF:
        await hours.set_quiet(asker.team_id, asker.user_id, None)
        return plain(text(lang, "hear.quiet_off"))
    if not words:
        chosen = await hours.quiet(asker.team_id, asker.user_id)
        if chosen is None:
            return plain(text(lang, "hear.quiet_none"))
        return plain(text(lang, "hear.quiet_is", start=clock(lang, chosen.start), end=clock(lang, chosen.end)))
    hours_typed = [word for word in words if not grammar.is_typed(word, "typed.between")]  # `de 22 h à 7 h`
    first = grammar.clock_time(hours_typed)
    rest = hours_typed[first[1]:] if first else []
    second = grammar.clock_time(rest) if rest else None
    if first is None or second is None or second[1] != len(rest):
        return plain(text(lang, "hear.quiet_unread", words=quoted(" ".join(words), 60)))
    if first[0] == second[0]:
        return plain(text(lang, "hear.quiet_same", at=clock(lang, first[0])))
    await hours.set_quiet(asker.team_id, asker.user_id, Quiet(first[0], second[0]))
    return plain(text(lang, "hear.quiet_is", start=clock(lang, first[0]), end=clock(lang, second[0])))


async def snooze(services: Services, client: AsyncWebClient, asker: Asker, lang: str, words: list[str],
                 now: dt.datetime) -> Message:
    """`snooze 1h`, `snooze tomorrow` (their morning), `snooze off`."""
    said = " ".join(word.lower() for word in words)
    hours = services.hours
    if not said:
        until = await hours.snoozed_until(asker.team_id, asker.user_id)
        if until is None or until <= now:
            return plain(text(lang, "hear.snooze_none"))
        return plain(text(lang, "hear.snoozed", until=clock(lang, until)))
    if read_level(said) is Level.OFF:
        await hours.snooze(asker.team_id, asker.user_id, None)
        return plain(text(lang, "hear.snooze_off"))
    profile = await load_profile(client, services.profiles, asker.team_id, asker.user_id)
    zone = zone_named(profile.tz, services.zone)
    if said in typed("typed.snooze_hour"):
        until = now + dt.timedelta(hours=1)
    elif said in typed("typed.tomorrow"):
        until = tomorrow_morning(now, await hours.quiet(asker.team_id, asker.user_id), zone)
    else:
        return plain(text(lang, "hear.snooze_unread", words=quoted(said, 60)))
    await hours.snooze(asker.team_id, asker.user_id, until.astimezone(zone))  # kept with their offset: Home shows it so
    return plain(text(lang, "hear.snoozed", until=clock(lang, until.astimezone(zone).time())))


def register(app: AsyncApp, services: Services) -> None:
    async def muted(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond,
                    client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)
        found = _MUTE_VALUE.match(str(action.get("value", "")))

        async def work(email: str, lang: str) -> Message:
            kind = _kind(found.group(2)) if found else None
            if found is None or kind is None:
                return plain(text(lang, "hear.button_unread"))
            return await choose(services, asker, lang, int(found.group(1)), kind, Level.OFF)

        await reply_for(services, client, respond, asker, name="news_mute", work=work, needs_email=False)

    async def snoozed(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond,
                      client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)
        word = "1h" if action.get("value") == "hour" else "tomorrow"

        async def work(email: str, lang: str) -> Message:
            return await snooze(services, client, asker, lang, [word], dt.datetime.now(dt.UTC))

        if (body.get("container") or {}).get("type") == "view" and services.home.refresh is not None:  # from Home
            _, said = await run_for(services, client, asker, name="news_snooze", work=work, needs_email=False)
            await services.home.refresh(client, asker.team_id, asker.user_id, said)
            return
        await reply_for(services, client, respond, asker, name="news_snooze", work=work, needs_email=False)

    app.action(re.compile(f"^{MUTE}_"))(muted)
    app.action(re.compile(f"^{SNOOZE}_"))(snoozed)


def _kind(value: str) -> Kind | None:
    try:
        return Kind(value)
    except ValueError:
        return None
