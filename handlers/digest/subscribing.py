"""`/digest subscribe` and `/digest unsubscribe`: a person changes what their channel follows.

A démarche's figures are for the people who work on it: a channel is subscribed to a démarche only by
one of its administrators or instructeurs (by the e-mail of their Slack profile), when
DIGEST_ALLOWED_DEMARCHES allows it, in a channel the bot can post in. Who set each démarche up is kept:
only they, or someone entitled to the démarche, can stop it. Every change is announced in the channel,
with who made it, so that nobody's digest changes unseen. Subscriptions live in Redis; the operator's
own (DIGEST_CHANNEL, DIGEST_DEMARCHES) is not changed from Slack.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from clients.dossiers.errors import DemarcheForbidden, DemarcheNotFound, DossierServiceError
from clients.dossiers.subscriptions import Followed, Subscription
from domain.dossiers.schedule import first_day
from handlers.blocks import Message, plain
from handlers.core import slack_refusals
from handlers.digest.job import DigestJob
from handlers.digest.listing import group_label, next_run
from handlers.digest.messages import named_demarches, named_labels
from handlers.digest.request import Request, Where
from handlers.error_replies import dossier_reason
from handlers.i18n import Mrkdwn, clock, counted, text, zone_words


async def subscribe(client: AsyncWebClient, digests: DigestJob, where: Where, request: Request) -> Message:
    """Follows every démarche this person may have followed here; one answer says what was done and,
    for each word or number that was not, why. The channel hears of every change, and who made it."""
    lang = where.lang
    refusal = await _cannot_post(client, where.channel, lang)
    if refusal is not None:
        return refusal
    current = await digests.subscriptions.get(where.team, where.channel)
    refused = [text(lang, "digest_cmd.not_a_number", word=word) for word in request.not_numbers]
    accepted = await _accepted(digests, where, request, current, refused)
    at = await _hour(digests, where, request, current, refused)
    changed_hour = current is not None and at != current.at
    if not accepted and not changed_hour and not (current and current.paused):  # nothing changes
        if refused:
            return plain("\n".join(refused))
        return plain(text(lang, "digest_cmd.already_followed", demarches=named_demarches(lang, request.numbers)))
    subscription = current or Subscription(where.channel, (), at, team=where.team)
    for number in accepted:
        subscription = subscription.follow(number, where.user, request.group)
    since = subscription.since
    if current is None or changed_hour or current.paused:  # starts anew: the first post is at its hour, never at once
        since = first_day(dt.datetime.now(dt.UTC), at, digests.following.zone)
    subscription = replace(subscription, at=at, paused=None, since=since)
    await digests.subscriptions.save(subscription)
    await _announce(client, where, await _follow_news(digests, where, request, accepted, at, current if changed_hour else None))
    done = text(lang, "digest_cmd.subscribed", demarches=named_demarches(lang, subscription.demarches, of=True), time=clock(lang, at),
                zone=zone_words(lang, digests.following.zone), next=await next_run(digests, subscription, lang))
    return plain("\n".join([done, *refused]))


async def _accepted(digests: DigestJob, where: Where, request: Request, current: Subscription | None,
                    refused: list[str]) -> list[int]:
    """The démarches this person may have followed here (a lapsed one is taken over), up to how many
    one person may set up; why each other one may not is added to `refused`."""
    new = [n for n in request.numbers if current is None or n not in current.live.demarches]
    room = digests.following.max_per_person - await digests.subscriptions.set_up_by(where.user)
    accepted: list[int] = []
    for number in new:
        why = await _why_not(digests, number, where, request.group)
        if why is None and len(accepted) >= room:
            why = text(where.lang, "digest_cmd.too_many", most=digests.following.max_per_person)
        if why is None:
            accepted.append(number)
        else:
            refused.append(why)
    return accepted


async def _hour(digests: DigestJob, where: Where, request: Request, current: Subscription | None, refused: list[str]) -> dt.time:
    """The channel's hour after this request: a new hour moves it only when this person works on
    every démarche it follows (else why not is added to `refused`)."""
    if request.at is None:
        return current.at if current else digests.following.default_time
    if current is None or request.at == current.at:
        return request.at
    blocked = await _not_theirs(digests, current, where)
    if not blocked:
        return request.at
    refused.append(counted(where.lang, "digest_cmd.hour_kept", len(blocked), time=clock(where.lang, current.at),
                           demarches=named_demarches(where.lang, blocked)))
    return current.at


async def _follow_news(digests: DigestJob, where: Where, request: Request, accepted: list[int], at: dt.time,
                       moved_from: Subscription | None) -> list[str]:
    """What the channel hears: the démarches now followed (and which group), the hour moved."""
    lang, person, zone = where.lang, Mrkdwn(f"<@{where.user}>"), zone_words(where.lang, digests.following.zone)
    lines = []
    if accepted:
        followed = [f"n° {number}" for number in accepted]
        if request.group is not None:  # the channel hears which group, as `/digest list` shows it
            label = await group_label(digests, where.account, Followed(accepted[0], group=request.group))
            followed[0] += " " + text(lang, "digest_cmd.group", group=label)
        lines.append(text(lang, "digest_cmd.announce_follow", person=person, demarches=named_labels(lang, followed, of=True),
                          time=clock(lang, at), zone=zone))
    if moved_from is not None:
        lines.append(text(lang, "digest_cmd.announce_hour", person=person, time=clock(lang, at),
                          before=clock(lang, moved_from.at), zone=zone))
    return lines


async def _why_not(digests: DigestJob, number: int, where: Where, group: int | None = None) -> str | None:
    """Why this person may not have démarche `number` (or one group of it) followed here, or None
    when they may: an administrator of the démarche, or an instructeur of it (of that group, for a group)."""
    lang = where.lang
    if digests.following.allowed is not None and number not in digests.following.allowed:
        return text(lang, "digest_cmd.not_allowed", number=number)
    try:
        membership = await digests.counting.membership(number, where.account)
    except DemarcheNotFound:
        return text(lang, "digest_cmd.unknown", number=number)
    except DemarcheForbidden:
        return text(lang, "digest_cmd.forbidden", number=number)
    except DossierServiceError as error:
        return text(lang, "digest_cmd.unchecked", number=number, reason=dossier_reason(lang, error))
    if group is not None and group not in membership.groups:
        return text(lang, "digest_cmd.no_group", number=number, group=group)
    if group is not None and not membership.may_follow(where.email, group):
        return text(lang, "digest_cmd.not_in_group", number=number, group=membership.groups[group][0])
    if not membership.may_follow(where.email):
        return text(lang, "digest_cmd.not_entitled", number=number)
    return None


async def _may_change(digests: DigestJob, subscription: Subscription, number: int, where: Where) -> bool:
    """Whoever set the démarche up here (to stop it), or one of its administrators or instructeurs."""
    if subscription.set_up_by(number) == where.user:
        return True
    return await _entitled(digests, number, None, where)


async def _entitled(digests: DigestJob, number: int, group: int | None, where: Where) -> bool:
    """Works on the démarche (on the group, for a group's digest) now, as the service lists it."""
    try:
        return (await digests.counting.membership(number, where.account)).may_follow(where.email, group)
    except DossierServiceError:
        return False


async def _not_theirs(digests: DigestJob, subscription: Subscription, where: Where) -> tuple[int, ...]:
    """The démarches this channel follows whose hour this person may not move: only someone who
    works on each now may (whoever set it up included, while they still do)."""
    return tuple([f.demarche for f in subscription.follows if not await _entitled(digests, f.demarche, f.group, where)])


async def unsubscribe(client: AsyncWebClient, digests: DigestJob, where: Where, request: Request) -> Message:
    lang = where.lang
    current = await digests.subscriptions.get(where.team, where.channel)
    refused = [text(lang, "digest_cmd.not_a_number", word=word) for word in request.not_numbers]
    followed = [n for n in request.numbers if current and n in current.demarches]
    unknown = tuple(n for n in request.numbers if n not in followed)
    if unknown:
        refused.append(text(lang, "digest_cmd.not_followed", demarches=named_demarches(lang, unknown)))
    if current is None or not followed:
        return plain("\n".join(refused or [text(lang, "digest_cmd.no_numbers")]))
    stopped = await _stoppable(digests, where, current, followed, refused)
    if not stopped:
        return plain("\n".join(refused))
    return plain("\n".join([*await _stop(client, digests, where, current, stopped), *refused]))


async def _stop(client: AsyncWebClient, digests: DigestJob, where: Where, current: Subscription, stopped: list[int]) -> list[str]:
    """The démarches no longer followed, what the bot kept of them gone, the channel told; the answer's lines."""
    lang = where.lang
    left = current.without(set(stopped))
    await digests.subscriptions.save(left)
    await digests.following.forget_unfollowed(set(stopped))
    await _announce(client, where, [_stop_news(where, current, stopped)])
    lines = [text(lang, "digest_cmd.unsubscribed", demarches=named_demarches(lang, stopped))]
    if not left.demarches:
        lines.append(text(lang, "digest_cmd.nothing_left"))
    return lines


def _stop_news(where: Where, current: Subscription, stopped: list[int]) -> str:
    """What the channel hears: who stopped which démarches, and who had set them up when it was
    someone else, and known."""
    setters = {current.set_up_by(n) for n in stopped} - {where.user, ""}
    return text(where.lang, "digest_cmd.announce_stop" if setters else "digest_cmd.announce_stop_own",
                person=Mrkdwn(f"<@{where.user}>"), demarches=named_demarches(where.lang, stopped, of=True),
                setters=Mrkdwn(", ".join(f"<@{u}>" for u in sorted(setters))))


async def _stoppable(digests: DigestJob, where: Where, current: Subscription, followed: list[int], refused: list[str]) -> list[int]:
    """The followed démarches this person may stop here; who set up each other one is added to `refused`."""
    stopped = []
    for number in followed:
        if await _may_change(digests, current, number, where):
            stopped.append(number)
        else:
            refused.append(text(where.lang, "digest_cmd.not_yours", number=number, person=_person(where.lang, current.set_up_by(number))))
    return stopped


async def _announce(client: AsyncWebClient, where: Where, lines: list[str]) -> None:
    """Tells the channel what changed, and who changed it (the bot may post there: it was checked)."""
    if not lines:
        return
    await slack_refusals.attempted(client.chat_postMessage(channel=where.channel, **plain("\n".join(lines)).payload()),
                    "announcing a digest change in its channel")


async def _cannot_post(client: AsyncWebClient, channel: str, lang: str) -> Message | None:
    """A private conversation the bot is not in cannot get a digest (public ones can: chat:write.public)."""
    # refused (channel_not_found): a private conversation the bot is not in
    answer = await slack_refusals.attempted(client.conversations_info(channel=channel), "reading the channel of a digest")
    conversation: dict[str, Any] | None = (answer.get("channel") or {}) if answer is not None else None
    if conversation is None or (conversation.get("is_private") and not conversation.get("is_member")):
        myself = await slack_refusals.attempted(client.auth_test(), "reading the bot's name")
        return plain(text(lang, "digest_cmd.cannot_post", bot=str(myself.get("user") or "bot") if myself is not None else "bot"))
    if conversation.get("is_archived"):
        return plain(text(lang, "digest_cmd.archived"))
    return None


def _person(lang: str, user: str) -> Mrkdwn:
    return Mrkdwn(f"<@{user}>") if user else Mrkdwn(text(lang, "digest_cmd.someone_else"))  # set up before setters were kept
