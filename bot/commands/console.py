"""`python -m bot shell --as EMAIL [--lang LANG]`: the bot without Slack, for trying it out.

Like Hubot's shell adapter or Errbot's text backend, a console stands in for the chat service:
`/room …` and `/digest …` typed on standard input go to the bot's own listeners, and what they
send to Slack comes back to a stand-in served on loopback (`bot.commands.console_slack`), which prints it
as a person reads it. A number uses the button or menu shown with it; a modal asks its fields one
by one, then is submitted; `home` shows the Home tab. The room, dossier and inference services
are the real configured ones.

This module is the loop and its start: a typed line turned into the request Slack would send,
the stand-in served, Ctrl-C caught. Its parts: console_input (the terminal), console_asking (a
window's fields, a confirm, a menu), console_slack (the Web API answers), console_screen (what is
printed), console_directory (who and what is known by name).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import signal
import socket
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any, TextIO
from urllib.parse import urlencode

import uvicorn
from pydantic import SecretStr
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.commands.console_asking import Asking
from bot.commands.console_directory import TEAM, Directory, Person, person_id, slack_locale
from bot.commands.console_input import Interrupted, Lines
from bot.commands.console_screen import Control, Screen
from bot.commands.console_slack import ConsoleSlack
from bot.config import Settings
from bot.serving.slack_app import Runtime, running
from bot.serving.slack_endpoint import as_sent
from handlers.i18n import LANGUAGES, text

QUIT = {"quit", "exit", "/quit", "/exit"}


class Shell:
    """The loop: a line typed, then what it stands for sent to the bot as Slack would send it."""

    def __init__(self, runtime: Runtime, slack: ConsoleSlack, lines: Lines, base: str, out: TextIO) -> None:
        self._runtime, self._slack, self._lines, self._base = runtime, slack, lines, base
        self._screen = slack.screen
        self._asking = Asking(runtime, slack, lines, out)
        self._me = slack.directory.me

    async def run(self, *, demo: bool = False) -> None:
        if demo:
            self._screen.say("shell.demo_banner")
        self._screen.say("shell.banner", email=self._me.email, channel=self._slack.directory.where(self._slack.directory.home, ""))
        while True:
            try:
                line = await self._lines.ask()
            except Interrupted:
                self._screen.say("shell.left")
                return
            if line is None or line.strip().lower() in QUIT:
                return
            try:
                await self.handle(line.strip())
            except Interrupted:  # in a window or a menu: it is cancelled, and the shell goes on
                self._slack.modals.clear()
                self._screen.say("shell.cancelled")

    async def handle(self, line: str) -> None:
        if line.startswith("/"):
            command, _, words = line.partition(" ")
            await self._dispatch(urlencode({
                "command": command, "text": self._slack.directory.escape(words), "team_id": TEAM,
                "user_id": self._me.id, "user_name": self._me.name, "channel_id": self._slack.directory.home,
                "trigger_id": secrets.token_hex(8), "response_url": f"{self._base}/response/{secrets.token_hex(4)}"}))
        elif line.isdecimal() and 1 <= int(line) <= len(self._screen.controls):
            await self._use(self._screen.controls[int(line) - 1])
        elif line.lower() == "home":
            event = {"type": "app_home_opened", "user": self._me.id, "tab": "home", "channel": "D" + self._me.id}
            await self._dispatch(json.dumps({"type": "event_callback", "team_id": TEAM, "event_id": "Ev" + secrets.token_hex(6),
                                             "event": event}), json_body=True)
        elif line:
            self._screen.say("shell.what")

    async def _use(self, control: Control) -> None:
        if control.url:
            self._screen.say("shell.open", url=control.url)
            return
        if control.confirm is not None and not await self._asking.confirmed(control.confirm):
            self._screen.say("shell.not_confirmed")
            return
        action: dict[str, Any] = {"action_id": control.action_id, "block_id": control.block_id, "type": control.kind}
        if control.kind == "static_select":
            chosen = await self._asking.choose(control.options)
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
            self._screen.show(text(self._screen.lang, "shell.only_you"), {"text": response.body})
        while self._slack.modals:
            await self._asking.fill(self._slack.modals.pop(0))

async def run_shell(settings: Settings, *, email: str, lang: str, demo: bool = False) -> int:
    """`demo`: the services are the built-in stand-ins (bot.demo.world), and the banner says so."""
    stdin, stdout = sys.stdin, sys.stdout  # looked up now: a test (or a pipe) may have replaced them
    assert lang in LANGUAGES
    name = email.split("@")[0] or "you"
    directory = Directory(Person(person_id(email, lang), name, email, slack_locale(lang), settings.digest_timezone))
    console = ConsoleSlack(Screen(directory, lang, stdout, styled=stdout.isatty()))
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
