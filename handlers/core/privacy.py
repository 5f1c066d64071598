"""What the bot keeps about a person, shown to them with a button that erases it (after Slack's
confirm dialog): the answer to `/room forget me` and to Home's "What the bot keeps about me".
Who is erased comes from the request (Slack's signed user id) and their Slack profile, never from
a button's value."""

from __future__ import annotations

import datetime as dt

from babel.dates import format_date
from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement, ConfirmObject, ContextBlock, SectionBlock

from clients.person_erasure import Kept, Person
from clients.team_spaces import TeamSpace
from handlers.blocks import Message, mrkdwn, plain
from handlers.i18n import LANGUAGES, Mrkdwn, counted, text
from handlers.on_behalf import Asker
from handlers.services import Services

FORGET = "privacy_forget"  # the Erase button (after the confirm dialog)
SHOW = "privacy_show"  # Home's button: what is kept


def person(services: Services, asker: Asker, email: str) -> Person:
    return Person(asker.team_id, asker.user_id, email, services.rooms.application)


async def kept_message(services: Services, asker: Asker, email: str, lang: str) -> Message:
    found = await services.personal.kept(person(services, asker, email), dt.datetime.now(dt.UTC))
    lines = _lines(lang, found)
    erase = ButtonElement(
        text=text(lang, "privacy.erase"), action_id=FORGET, value="me", style="danger",
        confirm=ConfirmObject(title=text(lang, "privacy.confirm_title"), text=text(lang, "privacy.confirm_text"),
                              confirm=text(lang, "privacy.confirm_yes"), deny=text(lang, "privacy.confirm_no"), style="danger"))
    blocks: list[Block] = [SectionBlock(text=mrkdwn(text(lang, "privacy.title") + "\n" + "\n".join(lines))),
                           ContextBlock(elements=[mrkdwn(text(lang, "privacy.not_kept"))]),
                           ActionsBlock(elements=[erase])]
    return Message(text=text(lang, "privacy.title"), blocks=blocks)


async def erase(services: Services, asker: Asker, email: str, lang: str) -> Message:
    await services.personal.erase(person(services, asker, email))
    return plain(text(lang, "privacy.erased"))


def home_section(lang: str) -> list[Block]:
    return [SectionBlock(text=mrkdwn(text(lang, "privacy.home")),
                         accessory=ButtonElement(text=text(lang, "privacy.home_button"), action_id=SHOW))]


def _lines(lang: str, found: Kept) -> list[str]:
    lines = []
    if found.profile:
        lines.append(text(lang, "privacy.profile"))
    if found.token:
        lines.append(text(lang, "privacy.token"))
    if found.recent_rooms:
        lines.append(counted(lang, "privacy.recent", found.recent_rooms))
    if found.lookups:
        lines.append(counted(lang, "privacy.lookups", found.lookups))
    if found.watched:
        lines.append(text(lang, "privacy.watched", numbers=", ".join(f"n° {n}" for n in found.watched)))
    if found.told:
        lines.append(counted(lang, "privacy.told", found.told))
    if found.hearing:
        lines.append(text(lang, "privacy.hearing"))
    if found.digest_setups:
        lines.append(counted(lang, "privacy.digests", found.digest_setups))
    if found.team_spaces:
        lines.append(counted(lang, "privacy.team_spaces", len(found.team_spaces),
                             spaces=Mrkdwn("; ".join(_space(lang, space) for space in found.team_spaces))))
    if found.meetings_owned or found.meetings_invited:
        lines.append(text(lang, "privacy.meetings", owned=found.meetings_owned, invited=found.meetings_invited))
    return lines or [text(lang, "privacy.nothing")]


def _space(lang: str, space: TeamSpace) -> str:
    """`n° 101 · group 1 in #channel since 27 November 2026`: which space, where, since when."""
    what = text(lang, "privacy.space_group", number=space.demarche, group=space.group) if space.group is not None \
        else text(lang, "privacy.space", number=space.demarche)
    if not space.channel:
        return text(lang, "privacy.space_no_channel", space=Mrkdwn(what))
    channel = Mrkdwn(f"<#{space.channel}>")
    if not space.since:  # set up before the day was kept
        return text(lang, "privacy.space_in", space=Mrkdwn(what), channel=channel)
    day = format_date(dt.date.fromisoformat(space.since), "long", locale=lang if lang in LANGUAGES else "en")
    return text(lang, "privacy.space_since", space=Mrkdwn(what), channel=channel, day=day)
