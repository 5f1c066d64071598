"""Bolt's listener matching, handed the body directly, and tried only where it can match.

Bolt tries each listener in turn until one matches, and each try of a built-in matcher
(`app.command("/dossier")`, `app.action(...)`, `app.view(...)`) first builds every argument a
listener could ask for — eight readings of the payload, the context's utilities, a dict of thirty
names — to pass the matcher the one it takes: the body. `/dossier` is the 24th of 41 listeners:
0.18–0.27 ms of CPU a command went to matching alone (`python -m bench twin` profile). The
built-in matchers are given the body itself: the same functions, asked in the same order, give the
same answers. Matchers of our own (`matchers=[…]`) keep Bolt's way.

And a built-in matcher of a kind (a command's, an action's, a view's, an event's…) matches only a
request of that kind, which Bolt's own test of the kind tells (`is_slash_command`, `is_action`…):
each request is tried only against the listeners of its kind and those whose kind is not known,
in Bolt's order — the first that matches still wins, with its own matchers and middleware. That
spared `/dossier` 20 of its 23 failed tries (45 µs of CPU of ~210 from the socket to its ack,
in-process; docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.listener.async_listener import AsyncListener
from slack_bolt.listener_matcher import builtins
from slack_bolt.listener_matcher.async_builtins import AsyncBuiltinListenerMatcher
from slack_bolt.listener_matcher.async_listener_matcher import AsyncListenerMatcher
from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request import payload_utils
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

Body = dict[str, Any]

#: Bolt's built-in matcher of each kind (`builtins.command` for `app.command("/x")`…) returns True only
#: for a body its kind's test passes: the test each one's code starts with
KINDS: dict[str, Callable[[Body], bool]] = {
    "command": payload_utils.is_slash_command,
    "action": payload_utils.is_action,  # a block action, an attachment's, a dialog's, a workflow step's edit
    "view_submission": payload_utils.is_view_submission,
    "event": payload_utils.is_event,
    "shortcut": payload_utils.is_shortcut,
    "function_executed": payload_utils.is_function,
}

#: the listeners that could match the request being dispatched, and whose they are (set by `NoteKind`
#: before Bolt tries them, in the dispatch's task)
_TRIED: ContextVar[tuple[ByKind, tuple[AsyncListener, ...]] | None] = ContextVar("listeners_tried", default=None)


class BodyMatcher(AsyncListenerMatcher):
    """A built-in matcher's test, called with the request's body."""

    def __init__(self, test: Callable[..., Any]) -> None:
        self._test: Callable[[Body], Awaitable[bool]] = test  # async with an AsyncApp
        self.kind = _kind_of(test)

    async def async_matches(self, req: AsyncBoltRequest, resp: BoltResponse) -> bool:
        return await self._test(req.body)


def _kind_of(test: Callable[..., Any]) -> Callable[[Body], bool] | None:
    """The kind's test of a built-in matcher (Bolt wraps `builtins.<kind>`'s inner `func` in an async
    function), or None for any other."""
    code = getattr(test, "__code__", None)
    if code is None:
        return None
    cells = dict(zip(code.co_freevars, getattr(test, "__closure__", None) or (), strict=True))
    func = cells["func"].cell_contents if "func" in cells else None
    if func is None or getattr(func, "__module__", None) != builtins.__name__:
        return None
    builder, _, inner = func.__qualname__.partition(".<locals>.")
    return KINDS.get(builder) if inner == "func" else None


class ByKind(list[AsyncListener]):
    """Bolt's listeners, in their order; what Bolt iterates for a request is those that could match
    it (`_TRIED`), every one outside a request's dispatch."""

    def __init__(self, listeners: list[AsyncListener]) -> None:
        super().__init__(listeners)
        self._plans: dict[tuple[bool, ...], tuple[AsyncListener, ...]] = {}
        self._tests: tuple[Callable[[Body], bool], ...] = ()
        self._kinds: list[Callable[[Body], bool] | None] = []
        self._plan()

    def _plan(self) -> None:
        self._kinds = [_kind_of_listener(listener) for listener in self.every()]
        self._tests = tuple(dict.fromkeys(kind for kind in self._kinds if kind is not None))
        self._plans.clear()

    def append(self, listener: AsyncListener) -> None:  # a listener registered after the index was made
        super().append(listener)
        self._plan()

    def tried_for(self, body: Body) -> tuple[AsyncListener, ...]:
        passed = tuple(test(body) for test in self._tests)
        plan = self._plans.get(passed)
        if plan is None:
            kinds = {test for test, held in zip(self._tests, passed, strict=True) if held}
            plan = self._plans[passed] = tuple(
                listener for listener, kind in zip(self.every(), self._kinds, strict=True) if kind is None or kind in kinds)
        return plan

    def every(self) -> Iterator[AsyncListener]:
        return super().__iter__()

    def __iter__(self) -> Iterator[AsyncListener]:
        tried = _TRIED.get()
        return iter(tried[1]) if tried is not None and tried[0] is self else self.every()


def _kind_of_listener(listener: AsyncListener) -> Callable[[Body], bool] | None:
    """A listener matches only when all its matchers do: the kind of any built-in one bounds it."""
    return next((matcher.kind for matcher in listener.matchers if isinstance(matcher, BodyMatcher) and matcher.kind), None)


class NoteKind(AsyncMiddleware):
    """The last global middleware: which listeners Bolt will try for this request, once all others ran."""

    def __init__(self, listeners: ByKind) -> None:
        self._listeners = listeners

    async def async_process(self, *, req: AsyncBoltRequest, resp: BoltResponse,
                            next: Callable[[], Awaitable[BoltResponse]]) -> BoltResponse | None:
        _TRIED.set((self._listeners, self._listeners.tried_for(req.body)))
        await next()
        return None


def match_on_bodies(app: AsyncApp) -> None:
    """Once every listener and middleware is registered: each built-in matcher that reads only the
    body gets it directly, and each request is tried against the listeners of its kind."""
    for listener in app._async_listeners:
        listener.matchers = [
            BodyMatcher(matcher.func) if type(matcher) is AsyncBuiltinListenerMatcher and matcher.arg_names == ["body"]
            else matcher
            for matcher in listener.matchers
        ]
    listeners = ByKind(app._async_listeners)
    app._async_listeners = listeners
    app.middleware(NoteKind(listeners))
