"""Notebooks saved as Python: a Databricks notebook exported as source (`# Databricks notebook
source` on its first line, cells separated by `# COMMAND ----------`, a cell in another language
or a magic cell written as `# MAGIC` lines: `# MAGIC %sh vllm serve ...`, `# MAGIC %pip install
vllm==0.6.2`) and a Jupytext percent script (`# %%` starts a code cell, `# %% [markdown]` a
markdown one; Jupytext writes a notebook's magics commented, `# !vllm serve ...`, `# %pip
install ...`, and VS Code's cells may hold them as written, `!vllm serve ...`).
nbconvert's script export (`# In[N]:` cells, IPython's syntax written as `get_ipython()` calls)
is read back by kvplan.check.manifests.notebook_export (task h90readers).

Each is read as the notebook it is (kvplan.check.manifests.notebook's Notebook): its Python, its
shell lines and cells (notebook_shell), its pip pins. Line numbers are the file's own lines.

Databricks (docs.databricks.com "Export and import Databricks notebooks", source format): a
`%sh` cell runs its lines in a shell on the driver, as Jupyter's %%sh; `%pip` is IPython's
%pip; `%md`, `%sql`, `%scala`, `%r`, `%fs` cells are not Python; `%run` runs another notebook,
which kvplan does not follow (noted).
"""

from __future__ import annotations

import re

from kvplan.check.manifests.notebook import Chunk, Notebook, _cell
from kvplan.check.manifests.notebook_export import IN_MARK, has_calls, unwrite

DATABRICKS = "# Databricks notebook source"
_COMMAND = re.compile(r"^# COMMAND -{5,}\s*$")
_MAGIC = re.compile(r"^# MAGIC(?: |$)")
_PERCENT = re.compile(r"^#\s?%%(?:\s|$)")
_MARKDOWN = re.compile(r"^#\s?%%.*\[(?:markdown|md|raw)\]")
_COMMENTED = re.compile(r"^(\s*)# ?([!%].*)$")  # Jupytext's escaped magic: `# !vllm serve`
# Databricks language magics: the whole cell is another language's text (not Python)
_OTHER = frozenset({"%md", "%md-sandbox", "%sql", "%scala", "%r", "%fs", "%run"})


def as_notebook(text: str) -> Notebook | None:
    """The notebook a `.py` file is saved as, or None when it is a plain script."""
    lines = text.splitlines()
    if lines and lines[0].strip() == DATABRICKS:
        return _databricks(lines)
    if any(_PERCENT.match(line) for line in lines):
        return _percent(lines)
    if any(IN_MARK.match(line) for line in lines):
        return _nbconvert(lines)
    if has_calls(lines):  # IPython's calls without cell markers: one cell
        out = Notebook()
        joined: list[str] = []
        _cell(out, 1, [unwrite(out, i + 1, line) for i, line in enumerate(lines)], joined)
        return _finish(out, joined, "notebook exported as Python (IPython calls, no cells)")
    return _raw_lines(text, lines)


# a line IPython runs and Python does not parse: `!cmd`, `%magic` (a `%%` cell magic too)
_ESCAPE = re.compile(r"^\s*(?:![^=]|%%?[A-Za-z])")
RAW_KIND = "Python file with IPython `!` / `%` lines and no cell markers"


def _raw_lines(text: str, lines: list[str]) -> Notebook | None:
    """A `.py` with IPython's lines written as they are and no cell markers (Colab's "Download
    .py": `!pip install vllm==0.8.5`, `!vllm serve ...` kept as written), which is no Python that
    parses (task h91readers2: an ERROR "not Python that parses" before). Read as one notebook
    cell: its `!` / `%` lines as a notebook's, the rest as Python (where that parses); noted.
    None when the file parses, or holds no such line."""
    import ast
    import warnings

    if not any(_ESCAPE.match(line) for line in lines):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
        return None
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        pass
    out = Notebook()
    joined: list[str] = []
    _cell(out, 1, list(lines), joined)
    if not (out.shell or out.chunks):  # no IPython line outside a string: a plain script
        return None
    said = sorted({at for at in out.note_at})
    out.kind_note = (f"a {RAW_KIND} (as Colab's \"Download .py\" writes a notebook): not "
                     f"Python that parses, so its {len(said)} IPython line(s) (first: line "
                     f"{said[0] if said else 1}) are read as a notebook's `!` / `%` lines, and "
                     "the rest as Python")
    out.note(said[0] if said else 1, out.kind_note)
    return _finish(out, joined, RAW_KIND)


def _finish(out: Notebook, joined: list[str], kind: str) -> Notebook:
    out.code = "\n".join(joined) + "\n"
    out.kind = kind
    return out


def _cells(lines: list[str], starts: re.Pattern[str]) -> list[tuple[int, list[str]]]:
    """(the 0-based index of its first line, its lines) of each cell; a separator line opens
    the cell after it (it is a comment to Python)."""
    cells: list[tuple[int, list[str]]] = [(0, [])]
    for i, line in enumerate(lines):
        if starts.match(line) and (cells[-1][1] or i):
            cells.append((i, []))
        cells[-1][1].append(line)
    return [c for c in cells if c[1]]


def _databricks(lines: list[str]) -> Notebook:
    out = Notebook(cell_word="command")
    joined: list[str] = []
    for number, (_, body) in enumerate(_cells(lines, _COMMAND), start=1):
        magic = [line for line in body if _MAGIC.match(line)]
        rest = [line for line in body if line.strip() and not _MAGIC.match(line) and
                not line.startswith("# DBTITLE") and not _COMMAND.match(line) and
                line.strip() != DATABRICKS]
        if magic and not rest:
            _magic_cell(out, number, body, joined)
        else:
            _cell(out, number, list(body), joined)
    return _finish(out, joined, "Databricks notebook (source format)")


def _magic_cell(out: Notebook, number: int, body: list[str], joined: list[str]) -> None:
    """A cell written as `# MAGIC` lines: its first word says what runs it."""
    first = len(joined) + 1
    text = [re.sub(r"^# MAGIC ?", "", line) if _MAGIC.match(line) else "" for line in body]
    at = next((i for i, t in enumerate(text) if t.strip()), 0)
    word = text[at].split()[0] if text[at].split() else ""
    if word == "%sh":
        out.starts.append((number, first))
        out.note(first + at, f"command {number} left out: its magic %sh runs it in a shell "
                             "(read as a shell script), no Python")
        cmd = [text[at].strip()[len("%sh"):].strip(), *text[at + 1:]]
        out.add_shell((first + at + k, t, f"command {number}, line {first + at + k}")
                      for k, t in enumerate(cmd))
        out.chunks.append(Chunk(first + at, cmd, number, "%sh"))
        joined.extend("" for _ in body)
        return
    if word in _OTHER:
        out.starts.append((number, first))
        why = ("runs another notebook, which kvplan does not follow" if word == "%run"
               else "is not Python")
        out.note(first + at, f"command {number} left out: its magic {word} {why}")
        joined.extend("" for _ in body)
        return
    if word == "%python":
        text[at] = ""
    _cell(out, number, text, joined)


def _nbconvert(lines: list[str]) -> Notebook:
    """nbconvert's script export (notebook_export): `# In[N]:` opens a code cell; the lines
    before the first are its header and markdown cells, comments."""
    out = Notebook()
    joined: list[str] = []
    number = 0
    for first, body in _cells(lines, IN_MARK):
        if not IN_MARK.match(body[0]):  # the header: `#!/usr/bin/env python`, `# coding: utf-8`
            if any(line.strip() and not line.lstrip().startswith("#") for line in body):
                number += 1
                _cell(out, number, list(body), joined)
            else:
                joined.extend("" for _ in body)
            continue
        number += 1
        _cell(out, number, [unwrite(out, first + i + 1, line, number)
                            for i, line in enumerate(body)],
              joined)
    return _finish(out, joined, "notebook exported as Python by nbconvert")


def _percent(lines: list[str]) -> Notebook:
    out = Notebook()
    joined: list[str] = []
    number = 0  # code cells are counted, as a .ipynb's are (notebook.read_notebook)
    for _, body in _cells(lines, _PERCENT):
        if _MARKDOWN.match(body[0]):
            joined.extend("" for _ in body)
            continue
        number += 1
        cell = [unwrite(out, len(joined) + 1 + i, line, number) for i, line in enumerate(body)]
        for i, line in enumerate(cell):
            m = _COMMENTED.match(line)
            if i and m is not None and not _PERCENT.match(line):
                cell[i] = m.group(1) + m.group(2)
                out.note(len(joined) + 1 + i, f"line {len(joined) + 1 + i}: `{line.strip()[:40]}` "
                         "is a magic Jupytext writes commented in the percent format: it runs "
                         "in the notebook, read so")
        _cell(out, number, cell, joined)
    return _finish(out, joined, "Jupytext percent script")
