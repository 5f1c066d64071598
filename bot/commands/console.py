"""`python -m bot shell --as EMAIL [--lang LANG]`: the bot without Slack, for trying it out.

Like Hubot's shell adapter or Errbot's text backend, a console stands in for the chat service:
`/room …` and `/digest …` typed on standard input go to the bot's own listeners, and what they
send to Slack comes back to a stand-in served on loopback (`bot.commands.console_slack`), which prints it
as a person reads it. A number uses the button or menu shown with it; a modal asks its fields one
by one, then is submitted; `home` shows the Home tab. The room, dossier and inference services
are the real configured ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import secrets
import signal
import socket
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any, TextIO
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import uvicorn
from pydantic import SecretStr
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.commands.console_slack import TEAM, ConsoleSlack, Control, Directory, Person, person_id, slack_locale
from bot.config import Settings
from bot.serving.slack_app import Runtime, running
from bot.serving.slack_endpoint import as_sent
from handlers.i18n import LANGUAGES, text

QUIT = {"quit", "exit", "/quit", "/exit"}
_YES = {"y", "yes", "o", "oui"}
_NO = {"n", "no", "non"}


class Interrupted(Exception):
    """Ctrl-C (SIGINT) while the shell waited for a line, or while the bot worked."""


class Lines:
    """Standard input, line by line, with a prompt when a person types at a terminal.

    A thread of its own reads the lines (a daemon: a read still waiting when the shell ends holds
    nothing back), so that Ctrl-C answers at once: `ask` raises `Interrupted`. At a terminal,
    Ctrl-D ends one answer (a window is cancelled) and the shell reads on; elsewhere the end of
    input is the end."""

    def __init__(self, stdin: TextIO, out: TextIO) -> None:
        self._in, self._out = stdin, out
        self._prompt = stdin.isatty()
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._interrupted = asyncio.Event()
        self._reader: threading.Thread | None = None
        self._ended = False

    def start(self) -> None:
        loop = asyncio.get_running_loop()

        def read() -> None:
            while True:
                line = self._in.readline()
                loop.call_soon_threadsafe(self._lines.put_nowait, line.rstrip("\n") if line else None)
                if not line and not self._prompt:
                    return

        self._reader = threading.Thread(target=read, name="shell-input", daemon=True)
        self._reader.start()

    def interrupt(self) -> None:
        self._interrupted.set()

    async def ask(self, prompt: str = "> ") -> str | None:
        """The next line without its end, or None at the end of input (or Ctrl-D at a terminal)."""
        if self._reader is None:
            self.start()
        if self._prompt:
            self._out.write(prompt)
            self._out.flush()
        if self._ended:
            return None
        got = asyncio.ensure_future(self._lines.get())
        stop = asyncio.ensure_future(self._interrupted.wait())
        await asyncio.wait((got, stop), return_when=asyncio.FIRST_COMPLETED)
        if stop.done():
            got.cancel()
            self._interrupted.clear()
            if self._prompt:
                self._out.write("\n")  # past the ^C the terminal echoed
            raise Interrupted
        stop.cancel()
        line = got.result()
        self._ended = line is None and not self._prompt  # a pipe's end is for good, a terminal's Ctrl-D for one answer
        return line


class Shell:
    def __init__(self, runtime: Runtime, slack: ConsoleSlack, lines: Lines, base: str, out: TextIO) -> None:
        self._runtime, self._slack, self._lines, self._base, self._out = runtime, slack, lines, base, out
        self._me = slack.directory.me

    def say(self, key: str, **values: object) -> None:
        self._out.write(self._slack.read(text(self._slack.lang, key, **values)) + "\n")
        self._out.flush()

    async def run(self, *, demo: bool = False) -> None:
        if demo:
            self.say("shell.demo_banner")
        self.say("shell.banner", email=self._me.email, channel=self._slack.directory.where(self._slack.directory.home, ""))
        while True:
            try:
                line = await self._lines.ask()
            except Interrupted:
                self.say("shell.left")
                return
            if line is None or line.strip().lower() in QUIT:
                return
            try:
                await self.handle(line.strip())
            except Interrupted:  # in a window or a menu: it is cancelled, and the shell goes on
                self._slack.modals.clear()
                self.say("shell.cancelled")

    async def handle(self, line: str) -> None:
        if line.startswith("/"):
            command, _, words = line.partition(" ")
            await self._dispatch(urlencode({
                "command": command, "text": self._slack.directory.escape(words), "team_id": TEAM,
                "user_id": self._me.id, "user_name": self._me.name, "channel_id": self._slack.directory.home,
                "trigger_id": secrets.token_hex(8), "response_url": f"{self._base}/response/{secrets.token_hex(4)}"}))
        elif line.isdecimal() and 1 <= int(line) <= len(self._slack.controls):
            await self._use(self._slack.controls[int(line) - 1])
        elif line.lower() == "home":
            event = {"type": "app_home_opened", "user": self._me.id, "tab": "home", "channel": "D" + self._me.id}
            await self._dispatch(json.dumps({"type": "event_callback", "team_id": TEAM, "event_id": "Ev" + secrets.token_hex(6),
                                             "event": event}), json_body=True)
        elif line:
            self.say("shell.what")

    async def _use(self, control: Control) -> None:
        if control.url:
            self.say("shell.open", url=control.url)
            return
        if control.confirm is not None and not await self._confirmed(control.confirm):
            self.say("shell.not_confirmed")
            return
        action: dict[str, Any] = {"action_id": control.action_id, "block_id": control.block_id, "type": control.kind}
        if control.kind == "static_select":
            chosen = await self._choose(control.options)
            if chosen is None:
                return
            label, value = control.options[chosen]
            action["selected_option"] = {"text": {"type": "plain_text", "text": label}, "value": value}
        else:
            action["value"] = control.value
        payload: dict[str, Any] = {
            "type": "block_actions", "team": {"id": TEAM}, "user": {"id": self._me.id, "team_id": TEAM},
            "trigger_id": secrets.token_hex(8), "response_url": f"{self._base}/response/click", "actions": [action]}
        home = self._slack.directory.home
        if control.view_id is None:
            payload |= {"channel": {"id": home}, "container": {"type": "message", "channel_id": home}}
        else:
            payload |= {"container": {"type": "view", "view_id": control.view_id}, "view": {"id": control.view_id}}
        await self._dispatch(urlencode({"payload": json.dumps(payload)}))

    async def _dispatch(self, body: str, *, json_body: bool = False) -> None:
        """As if Slack had sent it (no signature to check: nothing left this machine), then waits for
        the listener's replies and fills in any modal it opened."""
        kind = "application/json" if json_body else "application/x-www-form-urlencoded"
        response = await self._runtime.app.async_dispatch(as_sent(AsyncBoltRequest(body=body, headers={"content-type": kind})))
        await self._runtime.tasks.drain(60)
        if response.status == 200 and response.body and not response.body.startswith("{"):
            self._slack.show(text(self._slack.lang, "shell.only_you"), {"text": response.body})
        while self._slack.modals:
            await self._fill(self._slack.modals.pop(0))

    async def _confirmed(self, confirm: dict[str, Any]) -> bool:
        """Slack's confirm dialog: its title and text, then its two buttons as a yes or no."""
        words = {part: self._slack.read(str((confirm.get(part) or {}).get("text", ""))) for part in ("title", "text", "confirm", "deny")}
        self._out.write(f"--- {words['title']}\n{words['text']}\n")
        self.say("shell.confirm", confirm=words["confirm"] or "yes", deny=words["deny"] or "no")
        while (line := await self._lines.ask("  > ")) is not None:
            answer = line.strip().lower()
            if answer in _YES or answer == words["confirm"].lower():
                return True
            if answer in _NO or answer == words["deny"].lower() or not answer:
                return False
            self.say("shell.not_understood")
        return False

    async def _fill(self, view: dict[str, Any]) -> None:
        """Shows the window's text, asks each field, submits it, and asks again what the bot refused."""
        title = self._slack.read((view.get("title") or {}).get("text", ""))
        self._out.write(f"--- {title}\n")
        for block in view.get("blocks") or []:
            if block.get("type") != "input":
                for line in self._slack.block_lines(block, view.get("id")):
                    self._out.write(line + "\n")
        self.say("shell.window_keys")
        errors: dict[str, str] = {}
        values: dict[str, dict[str, Any]] = {}
        while True:
            if not await self._ask_fields(view, errors, values):  # Ctrl-D, or the input ended: left unsent, as a closed one
                self.say("shell.cancelled")
                return
            errors = await self._submit(view, values)
            if not errors:
                return

    async def _ask_fields(self, view: dict[str, Any], errors: dict[str, str], values: dict[str, dict[str, Any]]) -> bool:
        """Asks each field (only those refused, after a refusal) into `values`; False at the end of input."""
        for block in view.get("blocks") or []:
            if block.get("type") != "input" or (errors and block.get("block_id") not in errors):
                continue
            if block.get("block_id") in errors:
                self._out.write(f"! {errors[block['block_id']]}\n")
            answer = await self._field(block)
            if answer is None:
                return False
            values.pop(block["block_id"], None)
            if answer:
                values[block["block_id"]] = {block["element"]["action_id"]: answer}
        return True

    async def _submit(self, view: dict[str, Any], values: dict[str, dict[str, Any]]) -> dict[str, str]:
        """Sends the window as Slack would; what the bot refused, field by field (none when it took it)."""
        submission = {"type": "view_submission", "team": {"id": TEAM}, "user": {"id": self._me.id, "team_id": TEAM},
                      "trigger_id": secrets.token_hex(8),
                      "view": {"id": view["id"], "type": "modal", "callback_id": view.get("callback_id", ""),
                               "private_metadata": view.get("private_metadata", ""), "state": {"values": values}}}
        request = AsyncBoltRequest(body=urlencode({"payload": json.dumps(submission)}),
                                   headers={"content-type": "application/x-www-form-urlencoded"})
        response = await self._runtime.app.async_dispatch(request)
        answer = json.loads(response.body) if response.body.startswith("{") else {}
        if answer.get("response_action") == "errors" and answer.get("errors"):
            return dict(answer["errors"])
        if answer.get("response_action") in ("update", "push") and answer.get("view"):
            self._slack.answer("views.update", {"view": answer["view"], "view_id": view["id"]})
        await self._runtime.tasks.drain(60)
        return {}

    async def _field(self, block: dict[str, Any]) -> dict[str, Any] | None:
        """One field's state as Slack sends it, {} when skipped, None at the end of input."""
        element = block["element"]
        kind = element.get("type")
        label = self._slack.read((block.get("label") or {}).get("text", ""))
        hint = text(self._slack.lang, "shell.optional") if block.get("optional") else ""
        while True:
            if kind in ("static_select", "radio_buttons", "checkboxes"):
                options = tuple((self._slack.read(o["text"]["text"]), str(o["value"])) for o in element.get("options") or [])
                many = kind == "checkboxes"
                self._out.write(f"{label} {text(self._slack.lang, 'shell.pick_many' if many else 'shell.pick_one')}{hint}\n")
                for number, (option, _) in enumerate(options, start=1):
                    self._out.write(f"  {number}. {option}\n")
            else:
                self._out.write(f"{label} {text(self._slack.lang, 'shell.type_' + _typed(kind))}{hint}\n")
            line = await self._lines.ask("  > ")
            if line is None:
                return None
            line = line.strip()
            if not line:
                if block.get("optional"):
                    return {}
                initial = element.get("initial_option")
                if initial:
                    return {"type": kind, "selected_option": initial}
                self.say("shell.required")
                continue
            state = self._read_field(kind, line, element)
            if state is not None:
                return state
            self.say("shell.not_understood")

    def _read_field(self, kind: str, line: str, element: dict[str, Any]) -> dict[str, Any] | None:
        if kind in ("static_select", "radio_buttons", "checkboxes"):
            return _picked(kind, line, element.get("options") or [])
        if kind == "multi_users_select":
            names = [word.lstrip("@") for word in line.replace(",", " ").split()]
            return {"type": kind, "selected_users": [self._slack.directory.person(name).id for name in names if name]}
        if kind in ("users_select", "conversations_select", "channels_select"):
            name = line.split()[0]
            found = self._slack.directory.channel(name[1:]) if name.startswith("#") else self._slack.directory.person(name.lstrip("@")).id
            key = {"users_select": "selected_user", "conversations_select": "selected_conversation"}.get(kind, "selected_channel")
            return {"type": kind, key: found}
        if kind == "datetimepicker":
            try:  # in the person's own zone, as Slack's picker reads it
                when = dt.datetime.strptime(line, "%Y-%m-%d %H:%M").replace(tzinfo=ZoneInfo(self._me.tz))
            except ValueError:
                return None
            return {"type": kind, "selected_date_time": int(when.timestamp())}
        return {"type": kind, "value": line}

    async def _choose(self, options: tuple[tuple[str, str], ...]) -> int | None:
        for number, (label, _) in enumerate(options, start=1):
            self._out.write(f"  {number}. {label}\n")
        while (line := await self._lines.ask("  > ")) is not None:
            if line.strip().isdecimal() and 1 <= int(line) <= len(options):
                return int(line) - 1
            self.say("shell.not_understood")
        return None


def _picked(kind: str, line: str, options: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The options picked by their numbers (`2`, `1, 3` for checkboxes), as Slack sends them; None when the numbers are not."""
    picked = [int(word) for word in line.replace(",", " ").split() if word.isdecimal()]
    if not picked or any(not 1 <= n <= len(options) for n in picked) or (kind != "checkboxes" and len(picked) > 1):
        return None
    chosen = [options[n - 1] for n in dict.fromkeys(picked)]
    return {"type": kind, "selected_options": chosen} if kind == "checkboxes" else {"type": kind, "selected_option": chosen[0]}


def _typed(kind: str) -> str:
    """The catalog's hint for a field typed as text."""
    return {"multi_users_select": "people", "users_select": "person", "conversations_select": "channel",
            "channels_select": "channel", "datetimepicker": "when"}.get(kind, "text")


async def run_shell(settings: Settings, *, email: str, lang: str, demo: bool = False) -> int:
    """`demo`: the services are the built-in stand-ins (bot.demo.world), and the banner says so."""
    stdin, stdout = sys.stdin, sys.stdout  # looked up now: a test (or a pipe) may have replaced them
    assert lang in LANGUAGES
    name = email.split("@")[0] or "you"
    directory = Directory(Person(person_id(email, lang), name, email, slack_locale(lang), settings.digest_timezone))
    console = ConsoleSlack(directory, lang, stdout, styled=stdout.isatty())
    async with _served(console) as base:
        console.base = base
        local = settings.model_copy(update={
            "slack_bot_token": SecretStr("xoxb-console"), "slack_signing_secret": SecretStr("console"),
            "slack_app_token": None, "slack_api_url": f"{base}/api/", "default_language": lang,
        })
        async with running(local, "shell") as runtime:
            lines = Lines(stdin, stdout)
            with _ctrl_c(lines):
                await Shell(runtime, console, lines, base, stdout).run(demo=demo)
    return 0


@contextlib.contextmanager
def _ctrl_c(lines: Lines) -> Iterator[None]:
    """Ctrl-C interrupts what the shell waits for instead of ending the process with a traceback
    (only the main thread can take a signal: a shell run elsewhere, in a test, keeps Python's)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, lines.interrupt)
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)


@contextlib.asynccontextmanager
async def _served(console: ConsoleSlack) -> AsyncIterator[str]:
    """The stand-in on a loopback port; the socket listens before the server runs, so the bot's
    first call simply waits in the backlog."""
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(64)
    server = uvicorn.Server(uvicorn.Config(console.asgi(), log_config=None, lifespan="off", access_log=False))
    task = asyncio.create_task(server.serve(sockets=[listening]))
    try:
        yield f"http://127.0.0.1:{listening.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
        listening.close()
