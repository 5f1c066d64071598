"""`python -m bot digest [--force] [--dry-run [--no-ai]]`: today's digest from a terminal or a cron job."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

from babel.dates import format_date

from bot import operator_advice as advice
from bot.commands.tables import clean, print_table
from bot.config import Settings
from bot.redis_server import open_redis
from bot.wiring import digest_job
from clients.dossiers.digest_store import RUN_WINDOW
from clients.dossiers.models import STATES
from domain.dossiers.lines import Digest
from handlers.digest.chart import render
from handlers.digest.messages import ai_line, needs_line, sparkline
from handlers.digest.post import DigestNotPosted
from handlers.i18n import clock, text


async def run_digest_command(
    settings: Settings, *, force: bool, dry_run: bool, with_ai: bool = True, chart: Path | None = None, fresh: bool = False
) -> int:
    """A dry run shows what would be posted, the AI line included (it calls the inference service
    as a real run does) unless `with_ai` is False, and writes the chart to `chart` when given. It
    reuses counts another run made within the run window unless `fresh` (a forced run never does)."""
    slack = None
    if not dry_run and settings.slack_bot_token is not None:
        # Bolt and aiohttp load only to post: a dry run is 0.5 s quicker
        from bot.serving.slack_app import slack_client
        from bot.serving.workspace_clients import Workspaces

        slack = Workspaces(slack_client(settings))
    day = dt.datetime.now(settings.zone).date()
    summary = None
    async with open_redis(settings) as redis, digest_job(settings, redis, slack, with_ai=with_ai) as job:
        with _progress() as progress_for:
            if dry_run:
                lang = settings.default_language
                digest = await job.counting.compute(day, progress_for, fresh=fresh)
                summary = ai_line(lang, await job.digests.summary(digest, text(lang, "digest.ai_instructions")))
                trend = await job.counting.trend(day, digest) if chart is not None else None
                if chart is not None and trend is not None:
                    await asyncio.to_thread(chart.write_bytes, await render(lang, day, trend))
            else:
                try:
                    outcome = await job.run(day, force=force, progress_for=progress_for)
                except DigestNotPosted as error:
                    print(f"roombot: {clean(error)}", file=sys.stderr)
                    return 1
                except Exception as error:  # Slack gone or refusing: one line, naming what to check
                    if not _from_slack(error):
                        raise
                    print(f"roombot: digest of {day} not posted: {advice.slack(error, settings)}", file=sys.stderr)
                    return 1
    if dry_run:
        _print_table(settings.default_language, day, digest, settings.zone)
        if summary:
            print(clean(for_terminal(summary)))  # as Slack would show it, minus any control character
    else:
        print(f"digest of {day}: {outcome}")
    return 0


#: the emoji codes the catalogs use, as a terminal shows them
_EMOJI = {":sparkles:": "✨", ":warning:": "⚠️", ":bell:": "🔔", ":eyes:": "👀", ":white_check_mark:": "✅", ":wrench:": "🔧"}
_CODE = re.compile(r":[a-z0-9_+-]+:")
_EMPHASIS = re.compile(r"(?<![\w*_])([_*])(?=\S)(.+?)(?<=\S)\1(?![\w*_])")


def for_terminal(mrkdwn: str) -> str:
    """Slack mrkdwn as a terminal should show it: emoji codes as the emoji, `_italic_` and `*bold*`
    without their marks, and Slack's escapes (&amp; &lt; &gt;) undone."""
    shown = _CODE.sub(lambda found: _EMOJI.get(found.group(0), found.group(0)), mrkdwn)
    shown = _EMPHASIS.sub(r"\2", shown)
    return shown.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _from_slack(error: Exception) -> bool:
    """What posting meets when Slack cannot be reached or refuses the token (aiohttp and slack_sdk
    are loaded only by a real run: a dry run stays quick)."""
    import aiohttp
    from slack_sdk.errors import SlackApiError, SlackClientError

    return isinstance(error, (OSError, TimeoutError, aiohttp.ClientError, SlackApiError, SlackClientError))


@contextlib.contextmanager
def _progress() -> Iterator[Callable[[int], Callable[[int, int], None]] | None]:
    """A progress bar per démarche on a terminal (pages fetched, dossiers counted); nothing otherwise."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console  # on a terminal only (see tables.py)
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("démarche {task.fields[demarche]}"), BarColumn(),
               TextColumn("{task.fields[pages]} pages · {task.fields[dossiers]} dossiers"), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=False) as progress:

        def for_demarche(number: int) -> Callable[[int, int], None]:
            task = progress.add_task("", total=None, demarche=number, pages=0, dossiers=0)
            return lambda pages, dossiers: progress.update(task, pages=pages, dossiers=dossiers)

        yield for_demarche


def _print_table(lang: str, day: dt.date, digest: Digest, zone: ZoneInfo) -> None:
    """One row per démarche; the démarches that could not be counted, and where counts were
    reused rather than made now, are said below the table."""
    header = [text(lang, key) for key in ("cli.number", "cli.demarche", "cli.total", *(f"state.{s}" for s in STATES),
                                          "cli.change", "cli.new", "cli.trend", "cli.counted")]
    rows = []
    for line in digest.lines:
        counts, previous = line.counts, line.previous
        counted = clock(lang, counts.counted_at.astimezone(zone)) + (" *" if line.reused else "")
        rows.append([
            counts.number, counts.title, counts.total, *(counts.by_state.get(s, 0) for s in STATES),
            f"{counts.total - previous.total:+d}" if previous else "", counts.deposited_since if previous else "",
            sparkline(line.history), counted,
        ])
    notes = [f"n° {line.counts.number} · {for_terminal(needs_line(lang, line.counts.needs, line.late_days))}"
             for line in digest.lines if line.counts.needs.anything]  # what needs doing, as in Slack
    notes += [text(lang, "cli.failed", number=f.number, reason=text(lang, f"digest.reason.{f.reason}")) for f in digest.failures]
    if any(line.reused for line in digest.lines):
        notes.append(text(lang, "cli.reused", minutes=RUN_WINDOW // 60))
    title = text(lang, "digest.title", date=format_date(day, format="long", locale=lang))
    print_table(title, header, rows, right=range(2, len(header) - 2), notes=notes)
