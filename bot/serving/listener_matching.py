"""Bolt's listener matching, handed the body directly.

Bolt tries each listener in turn until one matches, and each try of a built-in matcher
(`app.command("/dossier")`, `app.action(...)`, `app.view(...)`) first builds every argument a
listener could ask for — eight readings of the payload, the context's utilities, a dict of thirty
names — to pass the matcher the one it takes: the body. `/dossier` is the 24th of 41 listeners:
0.18–0.27 ms of CPU a command went to matching alone (`python -m bench twin` profile). The
built-in matchers are given the body itself: the same functions, asked in the same order, give the
same answers. Matchers of our own (`matchers=[…]`) keep Bolt's way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.listener_matcher.async_builtins import AsyncBuiltinListenerMatcher
from slack_bolt.listener_matcher.async_listener_matcher import AsyncListenerMatcher
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse


class BodyMatcher(AsyncListenerMatcher):
    """A built-in matcher's test, called with the request's body."""

    def __init__(self, test: Callable[..., Any]) -> None:
        self._test: Callable[[dict[str, Any]], Awaitable[bool]] = test  # async with an AsyncApp

    async def async_matches(self, req: AsyncBoltRequest, resp: BoltResponse) -> bool:
        return await self._test(req.body)


def match_on_bodies(app: AsyncApp) -> None:
    """Once every listener is registered: each built-in matcher that reads only the body gets it directly."""
    for listener in app._async_listeners:
        listener.matchers = [
            BodyMatcher(matcher.func) if type(matcher) is AsyncBuiltinListenerMatcher and matcher.arg_names == ["body"]
            else matcher
            for matcher in listener.matchers
        ]
