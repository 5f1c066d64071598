"""Bolt's listener matching, handed the body directly, and tried only where it can match.

Bolt tries each listener in turn until one matches, and each try of a built-in matcher
(`app.command("/dossier")`, `app.action(...)`, `app.view(...)`) first builds every argument a
listener could ask for — eight readings of the payload, the context's utilities, a dict of thirty
names — to pass the matcher the one it takes: the body. `/dossier` is the 24th of 41 listeners:
0.18–0.27 ms of CPU a command went to matching alone (`python -m bench twin` profile). The
built-in matchers are given the body itself: the same functions, asked in the same order, give the
same answers. Matchers of our own (`matchers=[…]`) keep Bolt's way.

And a built-in matcher of a kind (a command's, an action's, a view's, an event's…) matches only a
request that its kind's own test in Bolt passes (`is_slash_command`, `is_action`…), and one given a
string (`app.command("/room")`, `app.action("dossier_follow")`) only a request of that name (a
command's, an action's `action_id`, a view's or a shortcut's `callback_id`, an event's type).
Each request is tried only against the listeners that could match it — those of its kind and name,
of its kind given a pattern, and those this does not know (another matcher, a listener registered
later) — in Bolt's order: the first that matches still wins, with its own matchers and middleware.
`/dossier` had 23 failed tries, now none; a button of the card up to 40.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Kind:
    """A kind of request as Bolt's built-in matcher of it reads one: its test, which every request
    it matches passes; the variable in which it keeps what it matches; and where a request of the
    kind says its name, which a string matches only when equal (Bolt's `_matches`)."""

    test: Callable[[Body], bool]
    kept_in: str
    name: Callable[[Body], Any]


def _action_name(body: Body) -> Any:
    """A block action's `action_id`; an attachment's, a dialog's or a workflow step's `callback_id`."""
    return body["actions"][0]["action_id"] if payload_utils.is_block_actions(body) else body["callback_id"]


#: Bolt's built-in matcher of each kind (`builtins.command` for `app.command("/x")`…), by the name of its builder
KINDS: dict[str, Kind] = {
    "command": Kind(payload_utils.is_slash_command, "command", lambda body: body["command"]),
    # a block action, an attachment's, a dialog's (submitted or cancelled), a workflow step's edit
    "action": Kind(payload_utils.is_action, "constraints", _action_name),
    "view_submission": Kind(payload_utils.is_view_submission, "callback_id", lambda body: body["view"]["callback_id"]),
    "event": Kind(payload_utils.is_event, "event_type", lambda body: body["event"]["type"]),
    "shortcut": Kind(payload_utils.is_shortcut, "callback_id", lambda body: body["callback_id"]),
    "function_executed": Kind(payload_utils.is_function, "callback_id",
                              lambda body: body.get("event", {}).get("function", {}).get("callback_id", "")),
}

#: a listener's bounds: the kind of request it can match, and the one name it can match (None: any)
Bounds = tuple[Kind, str | None]
_NOT, _OTHER = object(), object()  # of a kind: not the request's; a name no listener of it is given

#: the listeners that could match the request being dispatched, and whose they are (set by `NoteKind`
#: before Bolt tries them, in the dispatch's task)
_TRIED: ContextVar[tuple[ByKind, tuple[AsyncListener, ...]] | None] = ContextVar("listeners_tried", default=None)


class BodyMatcher(AsyncListenerMatcher):
    """A built-in matcher's test, called with the request's body."""

    def __init__(self, test: Callable[..., Any]) -> None:
        self._test: Callable[[Body], Awaitable[bool]] = test  # async with an AsyncApp
        self.bounds = _bounds_of(test)

    async def async_matches(self, req: AsyncBoltRequest, resp: BoltResponse) -> bool:
        return await self._test(req.body)


def _bounds_of(test: Callable[..., Any]) -> Bounds | None:
    """What a built-in matcher can match (Bolt wraps `builtins.<kind>`'s inner `func` in an async
    function, which keeps a string or a pattern), or None for any other matcher."""
    func = _kept(test).get("func")
    if func is None or getattr(func, "__module__", None) != builtins.__name__:
        return None
    builder, _, inner = func.__qualname__.partition(".<locals>.")
    kind = KINDS.get(builder) if inner == "func" else None
    if kind is None:
        return None
    name = _kept(func).get(kind.kept_in)
    return kind, name if isinstance(name, str) else None  # a pattern: any name of the kind


def _kept(function: Callable[..., Any]) -> dict[str, Any]:
    """The variables a function keeps from where it was made (none, for anything else)."""
    code = getattr(function, "__code__", None)
    cells = getattr(function, "__closure__", None) or ()
    try:
        return {} if code is None else {name: cell.cell_contents for name, cell in zip(code.co_freevars, cells, strict=True)}
    except ValueError:  # a variable not set yet, or not a function's closure
        return {}


class ByKind(list[AsyncListener]):
    """Bolt's listeners, in their order; what Bolt iterates for a request is those that could match
    it (`_TRIED`), every one outside a request's dispatch."""

    def __init__(self, listeners: list[AsyncListener]) -> None:
        super().__init__(listeners)
        self._plans: dict[tuple[object, ...], tuple[AsyncListener, ...]] = {}
        self._bounds: list[Bounds | None] = []
        self._kinds: dict[Kind, set[str]] = {}  # each kind, and the names its listeners match
        self._plan()

    def _plan(self) -> None:
        self._bounds = [_bounds_of_listener(listener) for listener in self.every()]
        self._kinds = {}
        for bounds in self._bounds:
            if bounds is not None:
                names = self._kinds.setdefault(bounds[0], set())
                if bounds[1] is not None:
                    names.add(bounds[1])
        self._plans.clear()

    def append(self, listener: AsyncListener) -> None:  # a listener registered after the index was made
        super().append(listener)
        self._plan()

    def tried_for(self, body: Body) -> tuple[AsyncListener, ...]:
        key = tuple(_named(kind, names, body) if kind.test(body) else _NOT for kind, names in self._kinds.items())
        plan = self._plans.get(key)
        if plan is None:
            said = dict(zip(self._kinds, key, strict=True))
            plan = self._plans[key] = tuple(
                listener for listener, bounds in zip(self.every(), self._bounds, strict=True)
                if bounds is None or _may_match(bounds, said[bounds[0]]))
        return plan

    def every(self) -> Iterator[AsyncListener]:
        return super().__iter__()

    def __iter__(self) -> Iterator[AsyncListener]:
        tried = _TRIED.get()
        return iter(tried[1]) if tried is not None and tried[0] is self else self.every()


def _named(kind: Kind, names: set[str], body: Body) -> object:
    """A request's name, if a listener of its kind is given it, else `_OTHER` (also when it cannot be
    read: a click without actions, which Bolt answers 500 whatever its listeners)."""
    try:
        name = kind.name(body)
    except (KeyError, IndexError, TypeError, AttributeError):
        return _OTHER
    return name if isinstance(name, str) and name in names else _OTHER


def _may_match(bounds: Bounds, said: object) -> bool:
    kind_name = bounds[1]
    return said is not _NOT and (kind_name is None or said == kind_name)


def _bounds_of_listener(listener: AsyncListener) -> Bounds | None:
    """A listener matches only when all its matchers do: any built-in one bounds it."""
    return next((matcher.bounds for matcher in listener.matchers if isinstance(matcher, BodyMatcher) and matcher.bounds), None)


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
