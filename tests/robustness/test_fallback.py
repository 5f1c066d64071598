"""Bolt's `app.error` fallback: a listener that lets an error escape still answers its person, in words and
in their language, with the reference the operator's one log line carries; Slack gets its 200."""

from __future__ import annotations

import logging
import re

import pytest

from clients.dossiers.errors import DossierServiceUnreachable
from tests.conftest import Bot, text_of
from tests.fakes.slack import FakeSlack
from tests.slack_requests import action_body, command_body, send_event


class Broken(Exception):
    """What a listener lets escape: none of the bot's typed errors."""


def _breaking(bot: Bot) -> None:
    """Listeners that fail, added to the bot's own app: one after its ack, one before, one on an event."""
    app = bot.runtime.app

    async def after_ack(ack) -> None:
        await ack()
        raise Broken("after the ack")

    async def before_ack() -> None:
        raise Broken("before the ack")

    async def on_event() -> None:
        raise Broken("on an event")

    app.action("test_breaks")(after_ack)
    app.command("/breaks")(before_ack)
    app.event("star_added")(on_event)


async def test_a_button_whose_listener_raises_gets_words_and_a_reference_the_log_carries(
        bot: Bot, slack: FakeSlack, caplog: pytest.LogCaptureFixture) -> None:
    _breaking(bot)
    slack.add_user("U0ERIN", "erin@example.gouv.fr", locale="en-GB")
    caplog.set_level(logging.INFO)
    for user, words in (("U0ERIN", "Something went wrong on the bot's side"), ("U0ALICE", "Un problème est survenu du côté du bot")):
        before = len(slack.responses)
        answer = await bot.post(action_body("test_breaks", "1", user, slack.response_url(f"card-{user}")))
        assert answer.status_code == 200
        said = text_of((await slack.wait_responses(before + 1, timeout=12))[before])
        assert words in said
        reference = re.search(r"\(r[ée]f[ée]rence ([0-9a-f]{8})\)", said)
        assert reference is not None, said
        logged = [r for r in caplog.records if reference.group(1) in r.getMessage()]
        assert len(logged) == 1 and logged[0].exc_info is not None and logged[0].exc_info[0] is Broken
        assert "Broken" not in said and "Traceback" not in said


async def test_a_command_that_raises_before_its_ack_is_answered_200_and_in_words(bot: Bot, slack: FakeSlack) -> None:
    _breaking(bot)
    before = len(slack.responses)
    slack.add_user("U0ERIN", "erin@example.gouv.fr", locale="en-GB")
    answer = await bot.post(command_body("", "U0ERIN", slack.response_url("cmd-breaks"), command="/breaks"))
    assert answer.status_code == 200 and "went wrong" not in answer.text
    said = text_of((await slack.wait_responses(before + 1, timeout=12))[before])
    assert "Something went wrong on the bot's side" in said


async def test_an_event_whose_listener_raises_tells_nobody(bot: Bot, slack: FakeSlack, caplog: pytest.LogCaptureFixture) -> None:
    _breaking(bot)
    caplog.set_level(logging.INFO)
    answer = await send_event(bot, {"type": "star_added", "user": "U0ALICE", "item": {}, "event_ts": "1700000000.000100"})
    assert answer.status_code == 200
    await bot.runtime.tasks.drain(10)
    assert any(r.exc_info and r.exc_info[0] is Broken for r in caplog.records)
    assert slack.responses == [] and slack.posted("U0ALICE") == []


async def test_a_typed_error_that_escapes_is_said_as_what_it_is(bot: Bot, slack: FakeSlack) -> None:
    """The fallback words errors where every listener does (handlers/error_replies.py): a dossier service
    that did not answer is said so, not as the bot's own failure."""

    async def unreachable(ack) -> None:
        await ack()
        raise DossierServiceUnreachable("connection refused")

    bot.runtime.app.action("test_unreachable")(unreachable)
    slack.add_user("U0ERIN", "erin@example.gouv.fr", locale="en-GB")
    before = len(slack.responses)
    await bot.post(action_body("test_unreachable", "1", "U0ERIN", slack.response_url("card-erin")))
    said = text_of((await slack.wait_responses(before + 1, timeout=12))[before])
    assert "The dossier service did not answer in time" in said and "reference" not in said
