"""The digest's chart: the 14-day trend of its démarches' dossiers, one line per state, as a PNG
with alternative text (matplotlib, drawn off-screen)."""

from __future__ import annotations

import datetime as dt
import io

import matplotlib

matplotlib.use("Agg")  # no display: render to memory

from babel.dates import format_date
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

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
    out = io.BytesIO()
    figure(lang, last_day, series).savefig(out, format="png")
    return out.getvalue()


def figure(lang: str, last_day: dt.date, series: dict[str, list[int | None]]) -> Figure:
    """The count axis from 0, the legend beside the plot, days without counts as gaps; the days
    before the first count are left out, and the title says since when it counts."""
    width = max((len(values) for values in series.values()), default=0)
    first = _first_known(series)
    days = [last_day - dt.timedelta(days=width - 1 - i) for i in range(first, width)]
    drawn = Figure(figsize=(8, 3.6), dpi=100, layout="constrained")
    axes = drawn.add_subplot()
    positions = list(range(len(days)))
    for state, values in series.items():
        axes.plot(positions, [float("nan") if v is None else v for v in values[first:]], marker="o", markersize=3,
                  color=_COLOURS.get(state), label=text(lang, f"state.{state}"))
    # fewer days of history than the window: say since when, rather than draw an empty axis
    since = format_date(days[0], "d MMMM", locale=lang) if first > 0 else None
    axes.set_title(text(lang, "chart.title_since", date=since) if since else text(lang, "chart.title"), fontsize=11)
    axes.set_xticks(positions, [format_date(day, "d MMM", locale=lang) for day in days], fontsize=7)
    axes.set_ylim(bottom=0, top=max(_highest(series) * 1.08, 1))
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylabel(text(lang, "chart.y_label"))
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    return drawn


def alt_text(lang: str, last_day: dt.date, series: dict[str, list[int | None]]) -> str:
    """What the chart shows, in words: since when, and each state's first and last known count."""
    parts = []
    for state, values in series.items():
        known = [v for v in values if v is not None]
        if known:
            parts.append(text(lang, "chart.state_trend", state=text(lang, f"state.{state}"), first=known[0], last=known[-1]))
    width = max((len(values) for values in series.values()), default=0)
    first = _first_known(series)
    if first == 0:
        return text(lang, "chart.alt", trends="; ".join(parts))[:1000]
    since = format_date(last_day - dt.timedelta(days=width - 1 - first), "d MMMM", locale=lang)
    return text(lang, "chart.alt_since", date=since, trends="; ".join(parts))[:1000]


def _first_known(series: dict[str, list[int | None]]) -> int:
    """The index of the first day any state was counted (0 when none was)."""
    known = [index for values in series.values() for index, value in enumerate(values) if value is not None]
    return min(known, default=0)


def _highest(series: dict[str, list[int | None]]) -> int:
    return max((value for values in series.values() for value in values if value is not None), default=0)
