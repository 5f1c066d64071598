"""Home → "Team space": a window (démarche, group, hour) sets the space up as the command does; the
answer comes by direct message; a wrong field is said under it; submitted twice, one space."""

from __future__ import annotations

import asyncio
import json

from clients.dossiers.subscriptions import Subscriptions
from tests.conftest import text_of
from tests.fakes.slack import FakeSlack
from tests.slack_requests import action_body, event_body, home_opened, view_submission_body
from tests.team.conftest import made_channels


def values(demarche: str, group: str = "", hour: str = "") -> dict:
    return {name: {name: {"type": "plain_text_input", "value": value or None}}
            for name, value in (("team_demarche", demarche), ("team_group", group), ("team_hour", hour))}


async def test_home_offers_the_team_space_window(digest_bot, demarche, slack: FakeSlack):
    await digest_bot.post(event_body(home_opened("U0ADA")))
    await digest_bot.runtime.tasks.drain(20)
    assert "team_home" in json.dumps([call.args for call in slack.called("views.publish")])
    await digest_bot.post(action_body("team_home", "", "U0ADA", slack.response_url("home")))
    await digest_bot.runtime.tasks.drain(20)
    [opened] = slack.called("views.open")
    assert "team_space_modal" in json.dumps(opened.args)


async def test_the_window_sets_the_space_up_once_and_tells_by_direct_message(digest_bot, demarche, slack: FakeSlack, meet, redis):
    body = view_submission_body("team_space_modal", values("101", "", "8:30"), "", "U0ADA", view_id="V0TEAM")
    answers = await asyncio.gather(digest_bot.post(body), digest_bot.post(body))
    assert all(answer.status_code == 200 for answer in answers)
    await digest_bot.runtime.tasks.drain(20)
    [channel] = made_channels(slack)
    assert len(meet.rooms) == 1
    assert (await Subscriptions(redis).get("T0TEAM", channel)).at.strftime("%H:%M") == "08:30"
    [told] = [m for m in slack.posted("U0ADA") if "Team space" in str(m)]
    assert "ready" in text_of(told) and "nobody.here@example.gouv.fr" in text_of(told)


async def test_a_field_that_is_no_number_is_said_under_it(digest_bot, demarche, slack: FakeSlack):
    answer = await digest_bot.post(view_submission_body("team_space_modal", values("abc", "", "25:99"), "", "U0ADA"))
    assert answer.json() == {"response_action": "errors",
                             "errors": {"team_demarche": "A number, in digits.", "team_hour": "An hour, such as 09:00 or 8:30."}}
    assert not made_channels(slack)
