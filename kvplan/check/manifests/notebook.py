"""A Jupyter notebook (`.ipynb`, nbformat 4 JSON) read as the Python script its code cells make
(kvplan.check.manifests.python_script): the code cells' sources joined in order, each cell's
lines kept so that a line number counts the joined code (a note says in which cell and on which
of its lines a construction is). IPython's own syntax is not Python: a line magic (`%time`,
`%pip install vllm`), a shell line (`!pip install ...`) and a help line (`x?`) are left out, and
a cell magic (`%%bash`, `%%writefile`: the whole cell is another language's or a file's text)
leaves its cell out; each is named in a note. `%%capture`, `%%time` and `%%timeit` run their
cell's body as Python: it is read as a code cell. Markdown and raw cells are not code. The lines that
run pip (`!pip install vllm==0.6.3`, `%pip install "sglang[all]==0.4.1"`, a %%bash or %%sh cell,
the `!` / `%` lines of any code cell) are kept apart: an exact pin of an engine there is the
release the notebook runs (Notebook.pins)."""

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
    # the lines that run in a shell, and where each is: `!pip install vllm==0.6.3`, `%pip ...`,
    # the body of a %%bash / %%sh cell and the `!` / `%` lines of a %%capture cell (pins)
    shell: list[tuple[str, str]] = field(default_factory=list)

    def pins(self) -> tuple[dict[str, tuple[str, str]], list[str]]:
        """engine -> (release, note) of an exact pin in a `pip install` the notebook runs
        (kvplan.check.manifests.launcher_sites.pip_pins, as SkyPilot's `setup` is read)."""
        from kvplan.check.manifests.launcher_sites import pip_pins

        return pip_pins("\n".join(line for line, _ in self.shell),
                        lambda n: self.shell[n - 1][1])

    def where(self, line: int) -> str:
        """`code cell N, its line M` of a line of the joined code."""
        cell, first = 0, 1
        for number, start in self.starts:
            if start > line:
                break
            cell, first = number, start
        return f"code cell {cell}, its line {line - first + 1}"


# cell magics whose lines run in a shell (their pip installs run)
_SHELL_CELLS = frozenset({"%%bash", "%%sh"})
# cell magics whose body IPython runs as the cell's own code (IPython's built-in magics: %%capture
# captures its output, %%time and %%timeit time it): read as a code cell without the magic line
_PYTHON_CELLS = frozenset({"%%capture", "%%time", "%%timeit"})


def _source(cell: dict[str, object]) -> str | None:
    """A cell's source (nbformat 4: a string or a list of strings); None when it is neither."""
    src = cell.get("source", "")
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        return "".join(src)
    return src if isinstance(src, str) else None


def read_notebook(text: str) -> Notebook:
    out = Notebook()
    try:
        data = json.loads(text)
    except ValueError as err:
        out.problem = f"not a notebook: its JSON does not parse ({err})"
        return out
    except RecursionError:
        out.problem = "not a notebook kvplan reads: its JSON is nested too deeply"
        return out
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        out.problem = "not a notebook kvplan reads: no `cells` list (nbformat 4)"
        return out
    lines: list[str] = []
    number = 0
    for index, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            name = type(cell).__name__
            out.problem = (f"not a notebook kvplan reads: cell {index} is "
                           f"{'an' if name[0] in 'aeiou' else 'a'} {name}, not a cell "
                           "(nbformat 4: an object with cell_type and source)")
            return out
        kind = cell.get("cell_type")
        if not isinstance(kind, str):  # a code cell left out in silence before h70hostile
            out.problem = (f"not a notebook kvplan reads: cell {index}'s cell_type is "
                           f"{'missing' if kind is None else 'a ' + type(kind).__name__}, not "
                           "code, markdown or raw (nbformat 4)")
            return out
        if kind != "code":
            continue
        number += 1
        source = _source(cell)
        if source is None:
            out.problem = (f"not a notebook kvplan reads: code cell {number}'s source is "
                           "neither a string nor a list of strings (nbformat 4)")
            return out
        body = source.splitlines()
        if body and body[0].lstrip().startswith("%%"):
            magic = body[0].split()[0]
            if magic in _PYTHON_CELLS:
                body[0] = ""
            else:
                out.notes.append(f"code cell {number} left out: its cell magic {magic} makes "
                                 "it no Python")
                if magic in _SHELL_CELLS:
                    out.shell.extend((line, f"code cell {number}, its line {i}")
                                     for i, line in enumerate(body[1:], start=2))
                continue
        out.starts.append((number, len(lines) + 1))
        for i, line in enumerate(body, start=1):
            stripped = line.lstrip()
            if stripped.startswith(("%", "!")) or (stripped.endswith("?") and
                                                   not stripped.startswith("#")):
                out.notes.append(f"code cell {number}, its line {i}: `{stripped[:40]}` left "
                                 "out (IPython syntax, not Python)")
                if stripped.startswith(("%", "!")):
                    out.shell.append((line, f"code cell {number}, its line {i}"))
                line = ""
            lines.append(line)
    out.code = "\n".join(lines) + "\n"
    return out
