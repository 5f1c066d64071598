"""The digest's chart: the 14-day trend of its démarches' dossiers, one line per state, as a PNG
with alternative text; drawn by `plot` in a process of its own."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import sys
from pathlib import Path

from babel.dates import format_date

from domain.dossiers.series import first_known
from handlers.i18n import text

#: How long drawing may take, the worker's start (about a second) included.
DRAW_SECONDS = 60


#: The folder holding this code, so that the worker draws with the same code as its caller.
_CODE = str(Path(__file__).resolve().parents[2])


class ChartNotDrawn(Exception):
    """The drawing process failed; its last error line says why."""


async def render(lang: str, last_day: dt.date, series: dict[str, list[int | None]]) -> bytes:
    """The PNG, from a drawing process that ends with it: the caller stays as small as it was."""
    asked = json.dumps({"lang": lang, "last_day": last_day.isoformat(), "series": series}).encode()
    worker = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "handlers.digest.plot",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (_CODE, os.environ.get("PYTHONPATH"))))},
    )
    try:
        png, errors = await asyncio.wait_for(worker.communicate(asked), DRAW_SECONDS)
    except BaseException:  # too slow, or the caller gave up: the worker goes too
        if worker.returncode is None:
            worker.kill()
            await worker.wait()
        raise
    if worker.returncode != 0 or not png.startswith(b"\x89PNG"):
        last = errors.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {worker.returncode}"]
        raise ChartNotDrawn(last[0])
    return png


def alt_text(lang: str, last_day: dt.date, series: dict[str, list[int | None]]) -> str:
    """What the chart shows, in words: since when, and each state's first and last known count."""
    parts = []
    for state, values in series.items():
        known = [v for v in values if v is not None]
        if known:
            parts.append(text(lang, "chart.state_trend", state=text(lang, f"state.{state}"), first=known[0], last=known[-1]))
    width = max((len(values) for values in series.values()), default=0)
    first = first_known(series)
    if first == 0:
        return text(lang, "chart.alt", trends="; ".join(parts))[:1000]
    since = format_date(last_day - dt.timedelta(days=width - 1 - first), "d MMMM", locale=lang)
    return text(lang, "chart.alt_since", date=since, trends="; ".join(parts))[:1000]
