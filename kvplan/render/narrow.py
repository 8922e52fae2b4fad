"""A table wider than the terminal, as one block of `header value` pairs per row.

Until task srefirst a `size` or `fleet` grid (and `fleet --search`'s ranking) at 60 columns
(COLUMNS=60, the narrowest kvplan lays out) cut every number to an ellipsis (`2,0…` for 2,000
tokens, `54.3 …` for 54.3 GiB) and dropped whole columns past the edge: figures a reader could
take for others. Where the table's natural width is more than the line, each row is printed as
its columns' pairs instead, wrapped between pairs, so no value is ever cut or split.
"""

from __future__ import annotations

import re
import textwrap

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

FIGURE = re.compile(r"^[(\[]?[-+$]?\d[\d,.]*[%x]?[)\],;:]*$")  # 8,030,261,248 / (85,045,477,376 / 1.55
NBSP = "\u00a0"  # textwrap breaks only at ASCII white space: a pair joined by it stays whole


def _console() -> Console:
    return Console(width=10_000, height=25)


def natural_width(table: Table) -> int:
    """The columns the table takes with no cell folded or cut."""
    return _console().measure(table).maximum


def _plain(cell: object) -> str:
    """A cell's words: a nested grid (a hanging indent) gives its cells' words."""
    if isinstance(cell, Table):
        return " ".join(_plain(x) for c in cell.columns for x in c.cells)
    return " ".join(str(cell).split())


def _figure_width(console: Console, cell: object) -> int:
    """The columns a cell needs to show its longest figure whole: a nested grid (a hanging
    indent's mark) adds what it lays around its text."""
    figures = [len(w) for w in _plain(cell).split() if FIGURE.match(w)]
    if not figures:
        return 0
    around = 0
    if isinstance(cell, Table) and cell.columns:  # what the grid lays before its last column
        last = [console.measure(x).maximum for x in cell.columns[-1].cells] or [0]
        around = console.measure(cell).maximum - max(last)
    return max(figures) + max(0, around)


def foldable(table: Table) -> int:
    """The columns a table can give up by folding the columns that may wrap (a GPU name in
    `fleet --search`), each down to its `min_width` (or 1). A column that does not fold a word
    (rich's default overflow, an ellipsis) gives up no more than its longest word: narrower,
    rich cuts it (`131,…` B/token in `models` and `8,030,261,2…` in `explain` at 60 columns
    until task uxfix). A nested grid (explain's hanging formula, whose text folds a long source
    path) gives up no more than its longest number (FIGURE), which is never folded."""
    console = _console()
    total = 0
    for c in table.columns:
        if c.no_wrap:
            continue
        cells = [c.header, *c.cells]
        floor = c.min_width or 1
        if c.overflow != "fold":
            floor = max([floor, *(_figure_width(console, cell) if isinstance(cell, Table)
                                  else console.measure(cell).minimum for cell in cells)])
        total += max(0, max(console.measure(cell).maximum for cell in cells) - floor)
    return total


def fits(table: Table, width: int) -> bool:
    """Whether rich lays the table out in `width` without cutting a cell: the columns that may
    not wrap keep their widest cell."""
    return natural_width(table) - foldable(table) <= width


def row_blocks(table: Table, width: int) -> list[RenderableType]:
    """Each row as `header value` pairs, separated by commas, wrapped at `width` (continuation
    lines indented 2); an empty cell is left out. A table's title stays its first line."""
    headers = [_plain(c.header) for c in table.columns]
    columns = [[_plain(cell) for cell in c.cells] for c in table.columns]
    out: list[RenderableType] = []
    if table.title:
        out.append(Text(_plain(table.title), style="bold"))
    for i in range(table.row_count):
        pairs = [f"{h} {col[i]}".strip().replace(" ", NBSP)
                 for h, col in zip(headers, columns, strict=True) if col[i].strip()]
        for line in textwrap.wrap(", ".join(pairs), width, subsequent_indent="  ",
                                  break_long_words=False, break_on_hyphens=False):
            out.append(Text(line.replace(NBSP, " ")))
    return out


def fit(table: Table, width: int) -> list[RenderableType]:
    """The table as it is where it fits `width`; else its rows as blocks of pairs."""
    return [table] if fits(table, width) else row_blocks(table, width)
