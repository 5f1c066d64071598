"""Tables the command line prints (`keys list`, `digest --dry-run`), whole wherever they go.

On a terminal wide enough they are drawn as a table; on a narrower one each row is a block of
`name: value` lines, so that no cell is ever broken across the columns (`1234/5`, `Aide/s/aux`);
anywhere else (a pipe, a file, a cron mail, a container's log) they are plain tab-separated rows
that nothing cuts or wraps, so a secret's masked form or a démarche's title reads whole and
`cut -f` works.
Cells may hold text from a service: it is shown as text, never read as markup, and control
characters (an escape sequence in a title) are dropped.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.table import Table

#: Control characters but tab and line end: the rest can move the cursor, recolour or retitle a terminal.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(value: object) -> str:
    """`value` as one line of plain text: control characters out, tabs and line ends as spaces."""
    return CONTROL.sub("", str(value).replace("\t", " ").replace("\r\n", " ").replace("\n", " "))


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[object]], *, right: Sequence[int] = (),
                notes: Sequence[str] = (), out: TextIO | None = None) -> None:
    """`right`: the columns (by index) aligned right on a terminal; `notes` follow the table."""
    out = out or sys.stdout
    if not out.isatty():
        lines = [clean(title), "\t".join(clean(cell) for cell in header)]
        lines += ["\t".join(clean(cell) for cell in row) for row in rows]
        out.write("\n".join([*lines, *(clean(note) for note in notes)]) + "\n")
        return
    from rich.console import Console  # on a terminal only: rich is 80 ms of a start (`python -X importtime`)
    from rich.text import Text

    console = Console(file=out)
    widest = [max(len(clean(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    if sum(widest) + 3 * len(widest) + 1 > console.width:  # a table would break cells: one block a row
        console.print(Text(clean(title)), soft_wrap=True)
        for row in rows:
            console.print()
            for name, cell in zip(header, row, strict=True):
                console.print(Text(f"{clean(name)}: {clean(cell)}"), soft_wrap=True)
    else:
        console.print(_table(title, header, rows, right))
    for note in notes:
        console.print(Text(clean(note)), soft_wrap=True)


def _table(title: str, header: Sequence[str], rows: Sequence[Sequence[object]], right: Sequence[int]) -> Table:
    """The rows as rich's table, which fits the terminal's width."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(clean(title)))
    for index, name in enumerate(header):
        table.add_column(Text(clean(name)), justify="right" if index in right else "left", no_wrap=True)
    for row in rows:
        table.add_row(*(Text(clean(cell)) for cell in row))
    return table
