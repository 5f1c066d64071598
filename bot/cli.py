"""`python -m bot [serve]`: the command line of the bot."""

from __future__ import annotations

import argparse
import contextlib
import gc
import sys
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.requirements import missing_before_parsing
from handlers.i18n import LANGUAGES

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from bot.config import Settings
    from bot.serving.stop_signals import StopSignals


def main(argv: list[str] | None = None) -> int:
    parser, commands = _parser()
    args = parser.parse_args(argv)
    _refuse_usage(args, commands)
    if (args.command or "serve") != "serve":
        return _command(args, None)
    from bot.serving.stop_signals import StopSignals

    with StopSignals.taken() as signals:  # a stop asked while serve loads is kept for its server
        return _command(args, signals)


def _command(args: argparse.Namespace, signals: StopSignals | None) -> int:
    if args.command == "shell" and args.demo:
        return run_demo(email=args.shell_as or DEMO_EMAIL, lang=args.lang)
    # Each command imports what it needs once it is chosen: `--help`, a usage error or a missing
    # variable answer before the configuration's parser, the clients or Bolt are loaded.
    unset = missing_before_parsing(args.command or "serve", dry_run=bool(getattr(args, "dry_run", False)))
    if unset is not None:
        print(f"roombot: configuration error: {unset}", file=sys.stderr)
        return 2
    from bot import logs
    from bot.config import ConfigError, load_settings

    try:
        settings = load_settings()
    except ConfigError as error:
        print(f"roombot: configuration error: {error}", file=sys.stderr)
        return 2
    # a command an operator reads (the shell, check, digest, keys) answers on its own: its log lines
    # would break into it, so only warnings are written (to stderr) unless LOG_LEVEL says otherwise
    quiet = args.command not in (None, "serve") and "log_level" not in settings.model_fields_set
    logs.configure("WARNING" if quiet else settings.log_level)
    from redis.exceptions import RedisError

    try:
        settings.require_for(args.command or "serve", dry_run=bool(getattr(args, "dry_run", False)))
        return run(args, settings, signals)
    except ConfigError as error:
        print(f"roombot: configuration error: {error}", file=sys.stderr)
        return 2
    except RedisError as error:  # the URL may hold a password: name the variable, not its value
        from bot import operator_advice as advice

        print(f"roombot: {advice.redis_problem(error, settings)}", file=sys.stderr)
        return 1


DEMO_EMAIL = "you@example.gouv.fr"


def _parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The command line's parser, and each command's own (to refuse their usage errors)."""
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Slack bot for video rooms and dossier digests. Without a command it serves, as `serve` does. "
                    "Configuration comes from the environment and ./.env (see .env.example).",
    )
    parser.add_argument("--version", action=_Version, help="print the bot's version and exit")
    commands = parser.add_subparsers(dest="command", title="commands", metavar="COMMAND")
    commands.add_parser("serve", help="run the Slack app (HTTP, or Socket Mode when SLACK_APP_TOKEN is set)",
                        description="Run the Slack app: POST /slack/events (or Socket Mode when SLACK_APP_TOKEN is set), "
                                    "GET /healthz and /metrics on HOST:PORT, and the digests' and watches' schedules.")
    digest = commands.add_parser("digest", help="post today's dossier digest now, unless it was posted already",
                                 description="Post today's operator digest (DIGEST_CHANNEL, DIGEST_DEMARCHES) now, unless "
                                             "it went out already; or print it here with --dry-run.")
    digest.add_argument("--force", action="store_true", help="post it again even if today's went out")
    digest.add_argument("--dry-run", action="store_true", help="print the digest here, AI line included; post nothing")
    digest.add_argument("--no-ai", action="store_true", help="leave the AI line out (no call to the inference service)")
    digest.add_argument("--chart", type=Path, metavar="FILE", help="with --dry-run: write the chart (PNG) to FILE")
    digest.add_argument("--fresh", action="store_true",
                        help="with --dry-run: count afresh, even if another run counted within the last 30 minutes")
    check = commands.add_parser("check", help="try the configuration against every configured service",
                                description="Try the configuration against every configured service: one line each, "
                                            "✓, ⚠ or ✗ with what to do; exit 1 on any ✗.")
    check.add_argument("--as", dest="as_email", metavar="EMAIL", help="also get a room-service token for EMAIL and list their rooms "
                       "(a room service that creates accounts makes EMAIL's account if it has none)")
    shell = commands.add_parser("shell", help="try the bot without Slack: type /room …, click buttons by number",
                                description="The bot without Slack, in this console: type /room, /digest or /dossier; "
                                            "a number uses the button shown with it; home shows the Home tab.")
    shell.add_argument("--as", dest="shell_as", metavar="EMAIL", help="the person you act as (required without --demo)")
    shell.add_argument("--demo", action="store_true",
                       help="nothing to set: built-in stand-ins of the room, dossier and inference services, with a "
                            "demo démarche you administer (n° 12345)")
    shell.add_argument("--lang", choices=LANGUAGES, default=None, help="the language you read")
    keys = commands.add_parser("keys", help="the inference service's API keys",
                               description="The inference service's API keys (ALBERT_API_KEY's account): list them, or "
                                           "rotate the bot's own.")
    key_actions = keys.add_subparsers(dest="action", title="actions", metavar="ACTION")
    key_actions.add_parser("list", help="list the account's keys, secrets masked")
    rotate = key_actions.add_parser("rotate", help="create a fresh key, check it, use it, revoke the bot's previous one")
    rotate.add_argument("--expires-in-days", type=_days, default=90, metavar="N", help="lifetime of the new key (default 90; 0: none)")
    return parser, {"digest": digest, "shell": shell, "keys": keys}


def _refuse_usage(args: argparse.Namespace, commands: dict[str, argparse.ArgumentParser]) -> None:
    """What argparse cannot say of a command's options together: said as its usage error (exit 2)."""
    if args.command == "keys" and args.action is None:
        commands["keys"].error("say what to do with the keys: `keys list` shows them, `keys rotate` gives the bot a fresh one")
    if args.command == "shell" and not args.demo and not args.shell_as:
        commands["shell"].error("say who you are: --as EMAIL (your address on the room service), or try it with --demo")
    if args.command == "digest" and not args.dry_run and (args.chart or args.fresh):
        commands["digest"].error("--chart and --fresh go with --dry-run (a real run posts the chart in Slack, and --force counts afresh)")


def run_demo(*, email: str, lang: str | None) -> int:
    """The shell against built-in stand-ins, whatever is configured: nothing leaves the machine, and
    nothing the demo does is kept (its Redis lives in a folder removed at the end)."""
    from bot import logs
    from bot.commands.console import run_shell
    from bot.config import Settings
    from bot.demo.world import demo_world

    with demo_world(email) as demo:
        settings = Settings(_env_file=None, **{name.lower(): value for name, value in demo.environment.items()})  # type: ignore[arg-type]
        logs.configure("WARNING")
        return started(run_shell(settings, email=email, lang=lang or settings.default_language, demo=True))


class _Version(argparse.Action):
    """`--version`, read from the installed package only when asked (argparse's own action would
    need it for every command line)."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from bot.version import version

        print(f"roombot {version()}")
        parser.exit()


@contextlib.contextmanager
def _kept_or_scratch(settings: Settings) -> Iterator[Settings]:
    """`check` reads what `serve` keeps and makes nothing: with no Redis configured and no data kept
    under DATA_DIR yet, its embedded Redis lives in a temporary folder (it made ./var/redis in
    whatever folder it was run)."""
    if settings.redis_url or settings.redis_sentinels or (settings.data_dir / "redis").exists():
        yield settings
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="roombot-check-") as folder:
        yield settings.model_copy(update={"data_dir": Path(folder)})


def _days(value: str) -> int:
    """A key's lifetime: a whole number of days, 0 for none (the service refuses other values)."""
    try:
        days = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of days") from None
    if not 0 <= days <= 3650:
        raise argparse.ArgumentTypeError(f"{days} days: give 0 (no expiry) to 3650")
    return days


def started(work: Coroutine[Any, Any, int]) -> int:
    """Runs a command's work, the collector on again if `python -m bot` turned it off while
    loading (bot/__main__.py). What loading made is frozen first, as `serve` does: the collector's
    first passes would otherwise walk all of it. Called in a process that kept it on (`main()` from
    a test), it freezes nothing: that process's garbage stays collectable."""
    import asyncio

    if not gc.isenabled():
        gc.freeze()
        gc.enable()
    return asyncio.run(work)


def run(args: argparse.Namespace, settings: Settings, signals: StopSignals | None = None) -> int:
    if args.command == "digest":
        from bot.commands.digest import run_digest_command

        return started(run_digest_command(settings, force=args.force, dry_run=args.dry_run, with_ai=not args.no_ai,
                                              chart=args.chart, fresh=args.fresh))
    if args.command == "shell":
        from bot.commands.console import run_shell

        return started(run_shell(settings, email=args.shell_as, lang=args.lang or settings.default_language))
    if args.command == "check":
        from bot.commands.check import run_check_command
        from bot.version import version

        print(f"roombot {version()}")  # which notes of CHANGELOG.md apply
        with _kept_or_scratch(settings) as checked:
            return started(run_check_command(checked, as_email=args.as_email))
    if args.command == "keys":
        from bot.commands.keys import run_keys_command

        return started(run_keys_command(settings, args.action, expires_in_days=getattr(args, "expires_in_days", 0)))
    import asyncio
    import logging

    from bot.serving.listen import serve
    from bot.version import version

    logging.getLogger("bot").info("roombot %s", version())
    assert signals is not None  # taken by main() for serve
    return asyncio.run(serve(settings, _startup_checks, signals))  # which turns the collector on once it has built what it keeps


async def _startup_checks(settings: Settings, redis: Redis) -> None:
    """`serve`'s start-up checks, loaded once its app is built: `check`'s modules are not needed
    to listen."""
    from bot.commands.check import log_failures

    await log_failures(settings, redis)
