"""A Jupyter notebook (`.ipynb`, nbformat 4 JSON) read as the Python script its code cells make
(kvplan.check.manifests.python_script): the code cells' sources joined in order, each cell's
lines kept so that a line number counts the joined code (a note says in which cell and on which
of its lines a construction is). IPython's own syntax is not Python: a line magic (`%time`,
`%pip install vllm`), a shell line (`!pip install ...`) and a help line (`x?`) are left out, and
a cell magic (`%%bash`, `%%writefile`: the whole cell is another language's or a file's text)
leaves its cell out; each is named in a note. Markdown and raw cells are not code."""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass
class Notebook:
    """The joined code and where each cell starts in it."""

    code: str = ""
    starts: list[tuple[int, int]] = field(default_factory=list)  # (cell number, first line)
    notes: list[str] = field(default_factory=list)
    problem: str = ""  # why the file is no notebook kvplan reads

    def where(self, line: int) -> str:
        """`code cell N, its line M` of a line of the joined code."""
        cell, first = 0, 1
        for number, start in self.starts:
            if start > line:
                break
            cell, first = number, start
        return f"code cell {cell}, its line {line - first + 1}"


def _source(cell: dict[str, object]) -> str:
    src = cell.get("source", "")
    if isinstance(src, list):
        return "".join(str(s) for s in src)
    return str(src)


def read_notebook(text: str) -> Notebook:
    out = Notebook()
    try:
        data = json.loads(text)
    except ValueError as err:
        out.problem = f"not a notebook: its JSON does not parse ({err})"
        return out
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        out.problem = "not a notebook kvplan reads: no `cells` list (nbformat 4)"
        return out
    lines: list[str] = []
    number = 0
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        number += 1
        body = _source(cell).splitlines()
        if body and body[0].lstrip().startswith("%%"):
            out.notes.append(f"code cell {number} left out: its cell magic "
                             f"{body[0].split()[0]} makes it no Python")
            continue
        out.starts.append((number, len(lines) + 1))
        for i, line in enumerate(body, start=1):
            stripped = line.lstrip()
            if stripped.startswith(("%", "!")) or (stripped.endswith("?") and
                                                   not stripped.startswith("#")):
                out.notes.append(f"code cell {number}, its line {i}: `{stripped[:40]}` left "
                                 "out (IPython syntax, not Python)")
                line = ""
            lines.append(line)
    out.code = "\n".join(lines) + "\n"
    return out
