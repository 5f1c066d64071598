"""Bolt's order, kept by the index of listeners by kind (bot/serving/listener_matching.py): each
request reaches the first listener that matches it, in registration order — a catch-all before a
listener wins, a listener's own matchers and middleware still decide — exactly as a plain Bolt app."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.serving.listener_matching import match_on_bodies
from tests.slack_requests import action_body, command_body, event_body, interaction, view_submission_body


async def _authorize(**kwargs: Any) -> AuthorizeResult:
    return AuthorizeResult(enterprise_id=None, team_id="T0TEAM", bot_token="xoxb-test", bot_user_id="U0BOT", bot_id="B0BOT")


class Reached(list[str]):
    """The listeners that ran, by name."""

    def __call__(self, name: str) -> Callable[[AsyncAck], Awaitable[None]]:
        async def listener(ack: AsyncAck) -> None:
            self.append(name)
            await ack()

        return listener


async def _refuses(body: dict[str, Any]) -> bool:
    return False


async def _stops(next: Callable[[], Awaitable[None]]) -> None:
    """A listener's middleware that does not go on: Bolt tries the next listener."""


def _app(indexed: bool) -> tuple[AsyncApp, Reached]:
    # each listener done before the answer (events are acked before their listener runs otherwise)
    app = AsyncApp(name="order", authorize=_authorize, request_verification_enabled=False, process_before_response=True)
    _answering = Reached()
    app.action("first")(_answering("action first"))
    app.action(re.compile("^pat"))(_answering("action ^pat"))
    app.action("pattern")(_answering("action pattern"))  # after a pattern that matches its name: never reached
    app.action({"action_id": re.compile(".")})(_answering("any block action"))  # a kind the index does not know
    app.action("go")(_answering("action go"))  # after the catch-all: no click reaches it
    app.action("legacy")(_answering("legacy attachment action"))
    app.command("/room", matchers=[_refuses])(_answering("/room, refused by its own matcher"))
    app.command("/room", middleware=[_stops])(_answering("/room, stopped by its middleware"))
    app.command("/room")(_answering("/room"))
    app.message("hello")(_answering("message hello"))  # a kind the index does not know
    app.event("app_home_opened")(_answering("home opened"))
    app.view("v1")(_answering("view v1"))
    app.shortcut("s1")(_answering("shortcut s1"))
    app.command(re.compile("^/do"))(_answering("/do…"))
    app.command("/dossier")(_answering("/dossier"))  # after the pattern: never reached
    app.command("/digest")(_answering("/digest"))
    if indexed:
        match_on_bodies(app)
    app.command("/late")(_answering("/late"))  # registered after the index was made
    return app, _answering


def _command(name: str) -> str:
    return command_body("list", "U0ALICE", "http://slack.example/response", command=name)


def _message(text: str) -> str:
    event = {"type": "message", "user": "U0ALICE", "text": text, "channel": "C0CHAN", "ts": "1700000000.000100"}
    return event_body(event, event_id=f"Ev{text}")


REQUESTS: list[tuple[str, str | None]] = [  # (body, the listener that answers: None for Bolt's 404)
    (_command("/room"), "/room"),
    (_command("/dossier"), "/do…"),
    (_command("/digest"), "/digest"),
    (_command("/late"), "/late"),
    (_command("/unknown"), None),
    (action_body("first", "1", "U0ALICE", "http://slack.example/response"), "action first"),
    (action_body("go", "1", "U0ALICE", "http://slack.example/response"), "any block action"),
    (urlencode({"payload": json.dumps({"type": "interactive_message", "callback_id": "legacy", "team": {"id": "T0TEAM"},
                                       "user": {"id": "U0ALICE"}, "actions": [{"name": "a", "value": "b"}]})}),
     "legacy attachment action"),
    (interaction("block_actions", actions=[{"action_id": "pattern", "block_id": "b", "type": "button"}]), "action ^pat"),
    # bodies Bolt's own matchers fail on (a pattern searching a list, no action at all): the same answer
    (interaction("block_actions", actions=[{"action_id": ["first"], "block_id": "b", "type": "button"}]), "500"),
    (interaction("block_actions", actions=[]), "500"),
    (event_body({"type": "app_home_opened", "user": "U0ALICE", "tab": "home"}), "home opened"),
    (_message("hello"), "message hello"),
    (_message("bye"), None),
    (view_submission_body("v1", {}, "", "U0ALICE"), "view v1"),
    (interaction("shortcut", callback_id="s1"), "shortcut s1"),
]


async def _answers(built: tuple[AsyncApp, Reached]) -> list[str | None]:
    app, reached = built
    answers: list[str | None] = []
    for body, _ in REQUESTS:
        content_type = "application/json" if body.startswith("{") else "application/x-www-form-urlencoded"
        reached.clear()
        response = await app.async_dispatch(AsyncBoltRequest(body=body, headers={"content-type": [content_type]}))
        assert len(reached) == (response.status == 200), (response.status, reached)
        answers.append(reached[0] if reached else None if response.status == 404 else str(response.status))
    return answers


async def test_each_request_reaches_the_first_listener_that_matches_in_registration_order() -> None:
    expected = [name for _, name in REQUESTS]
    plain, indexed = _app(indexed=False), _app(indexed=True)
    assert await _answers(plain) == expected  # Bolt's own order
    assert await _answers(indexed) == expected

