"""The chart's drawing, in a short-lived process of its own (`python -m handlers.digest.plot`):
matplotlib costs the serving process 0.5 s to import and some 40 MB that it would keep for ever,
for a picture drawn once a day. The series comes as JSON on stdin, the PNG goes to stdout."""

from __future__ import annotations

import datetime as dt
import json
import sys

import matplotlib

matplotlib.use("Agg")  # no display: render to memory

from babel.dates import format_date
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from domain.dossiers.series import first_known, highest
from handlers.i18n import text

#: One colour per state, from the French state design system's palette (readable side by side).
COLOURS = {"en_construction": "#000091", "en_instruction": "#b34000", "accepte": "#18753c", "refuse": "#ce0500",
            "sans_suite": "#666666"}


def figure(lang: str, last_day: dt.date, series: dict[str, list[int | None]]) -> Figure:
    """The count axis from 0, the legend beside the plot, days without counts as gaps; the days
    before the first count are left out, and the title says since when it counts."""
    width = max((len(values) for values in series.values()), default=0)
    first = first_known(series)
    days = [last_day - dt.timedelta(days=width - 1 - i) for i in range(first, width)]
    drawn = Figure(figsize=(8, 3.6), dpi=100, layout="constrained")
    axes = drawn.add_subplot()
    positions = list(range(len(days)))
    for state, values in series.items():
        axes.plot(positions, [float("nan") if v is None else v for v in values[first:]], marker="o", markersize=3,
                  color=COLOURS.get(state), label=text(lang, f"state.{state}"))
    # fewer days of history than the window: say since when, rather than draw an empty axis
    since = format_date(days[0], "d MMMM", locale=lang) if first > 0 else None
    axes.set_title(text(lang, "chart.title_since", date=since) if since else text(lang, "chart.title"), fontsize=11)
    axes.set_xticks(positions, [format_date(day, "d MMM", locale=lang) for day in days], fontsize=7)
    axes.set_ylim(bottom=0, top=max(highest(series) * 1.08, 1))
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylabel(text(lang, "chart.y_label"))
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    return drawn


def main() -> None:
    asked = json.load(sys.stdin)
    drawn = figure(asked["lang"], dt.date.fromisoformat(asked["last_day"]), asked["series"])
    drawn.savefig(sys.stdout.buffer, format="png")


if __name__ == "__main__":
    main()
