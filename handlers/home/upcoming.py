"""Home's "Upcoming" buttons: Cancel (`room_cancel`) and Move (`room_reschedule`, a modal with a
date-and-time picker), for the meeting's owner only, once per click however often Slack delivers it."""

from __future__ import annotations

import datetime as dt
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from clients.meetings import Meeting
from clients.rooms.models import Room
from domain.rooms.meeting_changes import cancel, move
from handlers.blocks import Message, plain, view_input
from handlers.core.meeting_changes import Announcements
from handlers.core.meeting_messages import (
    CANCEL,
    RESCHEDULE,
    RESCHEDULE_MODAL,
    STARTS_AT,
    changed_notice,
    problem_words,
    refused_reason,
    reschedule_modal,
    topic_of,
)
from handlers.core.reminders import Place
from handlers.core.slack_refusals import attempted
from handlers.core.when import start_problem
from handlers.home.tab import publish_home
from handlers.i18n import Mrkdwn, text
from handlers.on_behalf import Asker, language_quickly, run_for, who
from handlers.services import Services

CLICK_WINDOW = 600  # a second click (or Slack's retry) within this does nothing more


def register(app: AsyncApp, services: Services) -> None:
    async def cancel_clicked(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)
        claim = ("cancel", asker.team_id, str(action.get("value", ""))[:40], asker.user_id)
        if not await services.once.claim(*claim, ttl=CLICK_WINDOW):
            return  # clicked again, or Slack's retry: the first click answers
        lang = await language_quickly(services, client, asker)
        meeting, said = await _owned(services, asker, str(action.get("value", "")), lang)
        if meeting is not None:
            try:
                told = Announcements(services, client, lambda place, now_is: _notice(place, now_is, cancelled=True))
                done = await cancel(services.meetings, meeting, told, dt.datetime.now(dt.UTC))
            except Exception:
                await services.once.release(*claim)  # so that a click once Slack or Redis is back works
                raise
            said = plain(text(lang, "plan.cancelled_done" if done else "plan.gone", topic=topic_of(lang, meeting)))
        await publish_home(services, client, asker, said=said)

    async def move_clicked(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        asker = who(body)
        lang = await language_quickly(services, client, asker)
        meeting, refused = await _owned(services, asker, str(action.get("value", "")), lang)
        if meeting is None:
            await publish_home(services, client, asker, said=refused)
            return
        await attempted(client.views_open(trigger_id=body["trigger_id"], view=reschedule_modal(lang, meeting)), "views.open")

    async def move_submitted(ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient) -> None:
        asker = who(body)
        lang = await language_quickly(services, client, asker)
        meeting, refused = await _owned(services, asker, str(view.get("private_metadata", "")), lang)
        chosen = view_input(view, STARTS_AT).get("selected_date_time")
        now = dt.datetime.now(dt.UTC)
        problem = start_problem(chosen, now)
        if meeting is not None and problem is not None:
            await ack(response_action="errors", errors={STARTS_AT: problem_words(lang, problem)[:150]})
            return
        await ack()
        if meeting is None or chosen is None:
            await publish_home(services, client, asker, said=refused)
            return
        if not await services.once.claim("move", asker.team_id, meeting.id, str(chosen), ttl=CLICK_WINDOW):
            return
        start = dt.datetime.fromtimestamp(int(chosen), dt.UTC)
        moved: Meeting = meeting

        async def work(email: str, lang: str) -> Message:
            room: Room | None = await services.rooms.get(email, moved.room_id)  # the file carries its dial-in
            told = Announcements(services, client, lambda place, now_is: _notice(place, now_is, cancelled=False))
            refused = await move(services.meetings, moved, start, room, told, now)
            if refused is None:  # cancelled while the modal was open, or at the same moment
                return plain(text(lang, "plan.gone"))
            lines = [text(lang, "plan.moved_done", topic=topic_of(lang, moved))]
            lines += [text(lang, "plan.no_reminder", place=place, reason=refused_reason(lang, code)) for place, code in refused]
            return plain("\n".join(lines))

        _, said = await run_for(services, client, asker, name="room_reschedule", work=work)
        await publish_home(services, client, asker, said=said)

    app.action(CANCEL)(cancel_clicked)
    app.action(RESCHEDULE)(move_clicked)
    app.view(RESCHEDULE_MODAL)(move_submitted)


async def _owned(services: Services, asker: Asker, meeting_id: str, lang: str) -> tuple[Meeting | None, Message | None]:
    """The meeting a button or modal names, when the person asking owns it; else why not, in words."""
    meeting = await services.meetings.get(asker.team_id, meeting_id[:40]) if meeting_id.isalnum() else None
    if meeting is None or meeting.end <= dt.datetime.now(dt.UTC):
        return None, plain(text(lang, "plan.gone"))
    if meeting.owner != asker.user_id:
        return None, plain(text(lang, "plan.not_owner", owner=Mrkdwn(f"<@{meeting.owner}>")))
    return meeting, None


def _notice(place: Place, meeting: Meeting, *, cancelled: bool) -> Message:
    return changed_notice(place.lang, meeting, place.zone, cancelled=cancelled)
