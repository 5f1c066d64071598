"""A team space's buttons: "Call the team now" (the standing room posted with the channel's mention),
"Plan a team meeting", and the roster check's "Invite them". Which space is the button's; whether
the person may is read again from their profile and the service, never from the button."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.models.blocks import ActionsBlock, SectionBlock
from slack_sdk.web.async_client import AsyncWebClient

from clients.team_spaces import read_place
from domain.team.roster import works_on
from handlers.blocks import Message, join_button, link_mrkdwn, mrkdwn, plain
from handlers.core.slack_refusals import attempted, refusal_of
from handlers.i18n import Mrkdwn, escape, text
from handlers.on_behalf import language_quickly, reply_for, reply_privately, who
from handlers.services import ROOM_WINDOW, Services
from handlers.team.drift import invite_absent
from handlers.team.messages import ACTION_CALL, ACTION_INVITE, ACTION_PLAN
from handlers.team.setup import read_members

#: one call of the team per channel within this many seconds, however many click
CALL_WINDOW = 60


def register(app: AsyncApp, services: Services) -> None:
    async def call_team(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond,
                        client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)

        async def work(email: str, lang: str) -> Message:
            return await _call(services, client, asker.team_id, asker.user_id, email, lang, str(action.get("value", "")))

        await reply_for(services, client, respond, asker, name="team_call", work=work)

    async def plan_meeting(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond,
                           client: AsyncWebClient) -> None:
        """The new-room window, its channel the space's: the person picks the time (a room of their own,
        planned as any other; nothing of the démarche is shown, so no rights are needed to open it)."""
        await ack()
        asker = who(body)
        lang = await language_quickly(services, client, asker)  # the trigger lives 3 s
        channel = await _channel_of(services, asker.team_id, str(action.get("value", "")))
        window = services.windows.get(ROOM_WINDOW)
        if window is not None and channel:
            opened = await attempted(client.views_open(trigger_id=body["trigger_id"], view=await window(lang, channel)),
                                     "opening the planned-room window")
            if opened is not None:
                return
        await reply_privately(client, respond, asker.user_id,
                              plain(text(lang, "team.plan_hint", channel=Mrkdwn(f"<#{channel}>") if channel else "#…")))

    async def invite(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond,
                     client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)
        place = read_place(str(action.get("value", "")))

        async def work(email: str, lang: str) -> Message:
            if place is None:
                return plain(text(lang, "team.no_space", number="?"))
            return await invite_absent(services, client, asker.team_id, email, lang, *place)

        await reply_for(services, client, respond, asker, name="team_invite", work=work)

    app.action(ACTION_CALL)(call_team)
    app.action(ACTION_PLAN)(plan_meeting)
    app.action(ACTION_INVITE)(invite)


async def _channel_of(services: Services, team: str, value: str) -> str:
    place = read_place(value)
    if place is None or services.team_spaces is None:
        return ""
    space = await services.team_spaces.get(team, *place)
    return space.channel if space else ""


async def _call(services: Services, client: AsyncWebClient, team: str, user: str, email: str, lang: str, value: str) -> Message:
    """Anyone who works on the démarche (on the group, for a group's space) calls its team: the room
    posted in the channel with `@channel`, once a minute however many click."""
    place = read_place(value)
    space = await services.team_spaces.get(team, *place) if place and services.team_spaces else None
    if space is None or not space.link or not space.channel:
        return plain(text(lang, "team.no_space", number=place[0] if place else "?"))
    members = await read_members(services, team, space.demarche, lang)
    if isinstance(members, Message):
        return members
    if not works_on(members, email, space.group):
        return plain(text(lang, "team.call_not_allowed", number=space.demarche))
    if not await services.once.claim("team-call", team, space.channel, ttl=CALL_WINDOW):
        return plain(text(lang, "team.call_already"))
    words = text(lang, "team.call_posted", person=Mrkdwn(f"<@{user}>"), link=link_mrkdwn(space.link))
    message = Message(text=f"{text(lang, 'team.call_title')}: {escape(space.link)}",
                      blocks=[SectionBlock(text=mrkdwn(f"<!channel> {words}")), ActionsBlock(elements=[join_button(lang, space.link)])])
    refused = await refusal_of(client.chat_postMessage(channel=space.channel, **message.payload()), "calling a team")
    if refused is not None:
        await services.once.release("team-call", team, space.channel)
        return plain(text(lang, "team.call_refused", reason=refused))
    return plain(text(lang, "team.call_done", channel=Mrkdwn(f"<#{space.channel}>")))
