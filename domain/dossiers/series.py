"""What both the chart's words and its drawing read off a series of daily counts per state; kept
apart so that the drawing process (handlers/digest/plot.py) loads neither the dossier client nor the job."""

from __future__ import annotations


def first_known(series: dict[str, list[int | None]]) -> int:
    """The index of the first day any state was counted (0 when none was)."""
    known = [index for values in series.values() for index, value in enumerate(values) if value is not None]
    return min(known, default=0)


def highest(series: dict[str, list[int | None]]) -> int:
    return max((value for values in series.values() for value in values if value is not None), default=0)
