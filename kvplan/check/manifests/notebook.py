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
import re
import textwrap
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


# IPython's help line `obj?` / `obj.attr??` / `%magic?` at the end of the code
# (inputtransformer2.py _help_end_re, :580 in ipython 9.16.1-46-g7f0ee5568; HelpEnd.find looks at
# the last token before the newline, so a line whose comment ends in `?` is Python); `?obj`
# (ESC_HELP) is caught by the leading escapes
_HELP_END = re.compile(r"%{0,2}[a-zA-Z_*][\w*]*(?:\.[a-zA-Z_*][\w*]*)*\?\??$")


# `NAME = !cmd` / `a, b = %magic args`: IPython's SystemAssign and MagicAssign
# (inputtransformer2.py :383 and :350), rewritten as IPython does, to a call kvplan does not make
_ASSIGN = re.compile(r"(\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)(!|%(?=[A-Za-z_]))(.*)$")


def _read_line(line: str, where: str, is_open: _Open, out: Notebook) -> tuple[str, bool]:
    """A code line as kvplan reads it (`is_open`: whether the lines before it leave a bracket or
    string open), with
    IPython's own syntax left out and named in a note, and whether a trailing backslash
    continues it. A shell or magic line goes to `out.shell` (its pins are read)."""
    stripped = line.lstrip()
    assign = _ASSIGN.match(line)
    if assign is None and not stripped.startswith(("%", "!", "?")) and \
            (_HELP_END.search(stripped) is None or "#" in stripped):
        return line, False
    if is_open():  # inside brackets or a string: Python's, not IPython's
        return line, False
    out.notes.append(f"{where}: `{stripped[:40]}` left out (IPython syntax, not Python)")
    if assign is not None:  # `gpus = !nvidia-smi -L`: bound to the command's output
        lhs, esc, rest = assign.groups()
        if esc == "!":
            out.shell.append((rest, where))
            return f"{lhs}get_ipython().getoutput({rest!r})", rest.endswith("\\")
        name, _, args = rest.partition(" ")
        return f"{lhs}get_ipython().run_line_magic({name!r}, {args!r})", rest.endswith("\\")
    going = False
    if stripped.startswith(("%", "!")):
        out.shell.append((line, where))
        going = line.endswith("\\")
    indent = line[: len(line) - len(stripped)]
    # IPython keeps the line's indent (inputtransformer2.py EscapedCommand.transform, `indent +
    # call`): an indented line is a statement of its block (`if IN_COLAB:` then `    !pip
    # install ...`), so it stays one
    return (f"{indent}pass" if indent else ""), going


class _Open:
    """Whether a cell's code so far ends inside brackets or a string, so the next line continues
    a Python statement: IPython looks for its escapes at the start of a logical line only
    (inputtransformer2.py EscapedCommand.find, on tokens_by_line), so `msg = ("hello %s"` then
    `       % name)` is Python's % operator. Each line is scanned once, as it is read: brackets,
    quotes (triple ones too; a backslash escapes the next character), comments and a trailing
    backslash, as Python's tokenizer sees them."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines  # the joined code, growing as the cell is read
        self.done = len(lines)  # the lines scanned so far
        self.depth = 0  # open brackets
        self.quote = ""  # the string open at the end ('', "'", '"', "'''", '"""')
        self.joined = False  # the last line ends in a backslash outside a string

    def __call__(self) -> bool:
        for line in self.lines[self.done:]:
            self._scan(line)
        self.done = len(self.lines)
        return self.depth > 0 or bool(self.quote) or self.joined

    def _scan(self, line: str) -> None:
        i, n, comment = 0, len(line), False
        while i < n:
            if self.quote:
                if line[i] == "\\":
                    i += 2
                elif line.startswith(self.quote, i):
                    i, self.quote = i + len(self.quote), ""
                else:
                    i += 1
                continue
            c = line[i]
            if c == "#":
                comment = True
                break
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth = max(self.depth - 1, 0)
            elif c in "'\"":
                self.quote = line[i:i + 3] if line[i:i + 3] in ("'''", '"""') else c
                i += len(self.quote)
                continue
            i += 1
        self.joined = not self.quote and not comment and line.endswith("\\")
        if len(self.quote) == 1 and not line.endswith("\\"):
            self.quote = ""  # a one-quote string ends with its line (else Python stops there)


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
            out.problem = (f"not a notebook kvplan reads: cell {index} is a "
                           f"{type(cell).__name__}, not a cell (nbformat 4: an object with "
                           "cell_type and source)")
            return out
        if cell.get("cell_type") != "code":
            continue
        number += 1
        source = _source(cell)
        if source is None:
            out.problem = (f"not a notebook kvplan reads: code cell {number}'s source is "
                           "neither a string nor a list of strings (nbformat 4)")
            return out
        # IPython dedents a cell first (inputtransformer2.py leading_indent, textwrap.dedent)
        body = textwrap.dedent(source).splitlines()
        # and drops its leading blank lines before it looks for a cell magic (leading_empty_lines)
        top = next((k for k, line in enumerate(body) if line.strip()), len(body))
        if top < len(body) and body[top].lstrip().startswith("%%"):
            magic = body[top].split()[0]
            if magic in _PYTHON_CELLS:
                body[top] = ""
            else:
                out.notes.append(f"code cell {number} left out: its cell magic {magic} makes "
                                 "it no Python")
                if magic in _SHELL_CELLS:
                    out.shell.extend((line, f"code cell {number}, its line {i}")
                                     for i, line in enumerate(body[top + 1:], start=top + 2))
                continue
        out.starts.append((number, len(lines) + 1))
        is_open = _Open(lines)
        going = False  # the line before is an IPython line a trailing backslash continues
        for i, line in enumerate(body, start=1):
            where = f"code cell {number}, its line {i}"
            if going:  # part of that command (inputtransformer2.py find_end_of_continued_line)
                out.shell.append((line, where))
                going = line.endswith("\\")
                lines.append("")
                continue
            line, going = _read_line(line, where, is_open, out)
            lines.append(line)
    out.code = "\n".join(lines) + "\n"
    return out
