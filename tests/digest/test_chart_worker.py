"""The chart is drawn by a process of its own: the serving process never loads the plotting library."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

import pytest

from handlers.digest.chart import ChartNotDrawn, render
from tests.conftest import ROOT

SERVING_AND_DRAWING = """
import asyncio, datetime as dt, sys
import bot.serving.server, bot.wiring, bot.commands.digest, bot.commands.console
from handlers.digest.chart import render
png = asyncio.run(render("fr", dt.date(2026, 1, 14), {"accepte": [1, 2, 3], "refuse": [None, 1, 1]}))
assert png.startswith(b"\\x89PNG"), png[:20]
print(sorted(name for name in sys.modules if name.split(".")[0] in ("matplotlib", "numpy", "PIL")))
"""


def test_serving_and_drawing_leave_the_plotting_library_out_of_the_process():
    shown = subprocess.run([sys.executable, "-c", SERVING_AND_DRAWING], cwd=ROOT, capture_output=True, text=True,
                           timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == "[]"


async def test_a_drawing_that_fails_says_why():
    with pytest.raises(ChartNotDrawn, match="Error"):
        await render("fr", dt.date(2026, 1, 14), {"accepte": [{"not": "a count"}]})  # type: ignore[list-item]
