"""`python -m bot [serve]`: the command line of the bot."""

from __future__ import annotations

import argparse
import asyncio
import sys

from bot import logs
from bot.config import ConfigError, load_settings
from bot.digest_cli import run_digest_command
from bot.server import serve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="Slack bot for video rooms and dossier digests.")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("serve", help="run the Slack app (HTTP, or Socket Mode when SLACK_APP_TOKEN is set)")
    digest = commands.add_parser("digest", help="post today's dossier digest now, unless it was posted already")
    digest.add_argument("--force", action="store_true", help="post it again even if today's went out")
    digest.add_argument("--dry-run", action="store_true", help="print the digest here; post nothing")
    args = parser.parse_args(argv)
    try:
        settings = load_settings()
        logs.configure(settings.log_level)
        if args.command in (None, "serve"):
            asyncio.run(serve(settings))
        elif args.command == "digest":
            return asyncio.run(run_digest_command(settings, force=args.force, dry_run=args.dry_run))
    except ConfigError as error:
        print(f"roombot: configuration error: {error}", file=sys.stderr)
        return 2
    return 0
