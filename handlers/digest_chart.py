"""The digest's chart: the 14-day trend of its démarches' dossiers, one line per state, as a PNG
with alternative text (matplotlib, drawn off-screen)."""

from __future__ import annotations

import datetime as dt
import io

import matplotlib

matplotlib.use("Agg")  # no display: render to memory

from babel.dates import format_date
from matplotlib.figure import Figure

from clients.dossiers.digest_store import Snapshot
from clients.dossiers.service import STATES
from handlers.i18n import text

#: One colour per state, from the French state design system's palette (readable side by side).
_COLOURS = {"en_construction": "#000091", "en_instruction": "#b34000", "accepte": "#18753c", "refuse": "#ce0500",
            "sans_suite": "#666666"}


def by_state(days: list[list[Snapshot | None]]) -> dict[str, list[int | None]]:
    """Each day's count per state, summed over the démarches (None on a day none was counted)."""
    width = max((len(d) for d in days), default=0)
    series: dict[str, list[int | None]] = {state: [] for state in STATES}
    for index in range(width):
        known = [d[index] for d in days if index < len(d) and d[index] is not None]
        for state in STATES:
            series[state].append(sum(s.by_state.get(state, 0) for s in known if s) if known else None)
    return series


def render(lang: str, last_day: dt.date, series: dict[str, list[int | None]]) -> bytes:
    """The PNG; days without counts are gaps in the lines."""
    width = max((len(values) for values in series.values()), default=0)
    days = [last_day - dt.timedelta(days=width - 1 - i) for i in range(width)]
    figure = Figure(figsize=(8, 3.6), dpi=100)
    axes = figure.add_subplot()
    positions = list(range(width))
    for state, values in series.items():
        axes.plot(positions, [float("nan") if v is None else v for v in values], marker="o", markersize=3,
                  color=_COLOURS.get(state), label=text(lang, f"state.{state}"))
    axes.set_title(text(lang, "chart.title"))
    axes.set_xticks(positions, [format_date(day, "d MMM", locale=lang) for day in days], fontsize=7)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=7, loc="upper left")
    figure.tight_layout()
    out = io.BytesIO()
    figure.savefig(out, format="png")
    return out.getvalue()


def alt_text(lang: str, series: dict[str, list[int | None]]) -> str:
    """What the chart shows, in words: each state's first and last known count."""
    parts = []
    for state, values in series.items():
        known = [v for v in values if v is not None]
        if known:
            parts.append(text(lang, "chart.state_trend", state=text(lang, f"state.{state}"), first=known[0], last=known[-1]))
    return text(lang, "chart.alt", trends="; ".join(parts))[:1000]
