"""`python -m bot [serve]`: the command line of the bot."""

from __future__ import annotations

import argparse
import asyncio
import sys

from bot import logs
from bot.config import ConfigError, load_settings
from bot.server import serve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="Slack bot for video rooms and dossier digests.")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("serve", help="run the Slack app (HTTP, or Socket Mode when SLACK_APP_TOKEN is set)")
    args = parser.parse_args(argv)
    try:
        settings = load_settings()
        logs.configure(settings.log_level)
        if args.command in (None, "serve"):
            asyncio.run(serve(settings))
    except ConfigError as error:
        print(f"roombot: configuration error: {error}", file=sys.stderr)
        return 2
    return 0
