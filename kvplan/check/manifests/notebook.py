"""A Jupyter notebook (`.ipynb`, nbformat 4 JSON) read as the Python script its code cells make
(kvplan.check.manifests.python_script) and as the shell commands it runs
(kvplan.check.manifests.notebook_shell). Every line of every code cell is counted, in order (the
"joined" lines): a line number counts them, and a note says in which cell and on which of its
lines a construction or a server start is. IPython's own syntax is not Python: a line magic
(`%time`, `%pip install vllm`), a shell line (`!pip install ...`, continued by a trailing
backslash onto the lines after it, as IPython joins them) and a help line (`x?`) are left out of
the Python, and a cell magic (`%%bash`, `%%writefile`: the whole cell is another language's or a
file's text) leaves its cell out; each is named in a note. `%%capture`, `%%time` and `%%timeit`
run their cell's body as Python: it is read as a code cell. Markdown and raw cells are not code.

The shell: each `!` line (with its continuation lines) runs in a shell of its own, and each
`%%bash` / `%%sh` / `%%script bash|sh` cell in one shell (Notebook.chunks): a chunk that starts
a server is read as a shell script is. `%env NAME=value` sets a variable every later shell
inherits (Notebook.env). The lines that run pip (`!pip install vllm==0.6.3`, `%pip install
"sglang[all]==0.4.1"`, a %%bash or %%sh cell, the `!` / `%` lines of any code cell) are kept
apart: an exact pin of an engine there is the release the notebook runs (Notebook.pins)."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class Chunk:
    """Shell text the notebook runs in one shell: a `!` line (with its continuation lines) or
    the body of a %%bash / %%sh cell; `line` is the joined line of its first line."""

    line: int
    lines: list[str]
    cell: int
    magic: str  # "!" or the cell magic (%%bash, %%sh, %%script bash)
    indented: bool = False  # a `!` line inside a Python block (an `if`, a loop, a function)
    # every line of the chunk is on the one line `line` of the file: a cell magic nbconvert
    # wrote as one get_ipython().run_cell_magic(...) call (notebook_export, task h91readers2)
    on_line: bool = False

    @property
    def end(self) -> int:
        return self.line if self.on_line else self.line + len(self.lines) - 1


@dataclass
class Notebook:
    """The joined code, where each cell starts in it, and the shell it runs."""

    code: str = ""
    starts: list[tuple[int, int]] = field(default_factory=list)  # (cell number, first line)
    notes: list[str] = field(default_factory=list)
    note_at: list[int] = field(default_factory=list)  # the joined line of each note
    problem: str = ""  # why the file is no notebook kvplan reads
    # the lines that run in a shell, and where each is: `!pip install vllm==0.6.3`, `%pip ...`,
    # the body of a %%bash / %%sh cell and the `!` / `%` lines of a %%capture cell (pins)
    shell: list[tuple[str, str]] = field(default_factory=list)
    shell_at: list[int] = field(default_factory=list)  # the joined line of each shell line
    chunks: list[Chunk] = field(default_factory=list)
    env: list[tuple[int, str, str]] = field(default_factory=list)  # (line, name, value): %env
    # what the file is: a Jupyter notebook (its lines are its code cells joined in order), or a
    # notebook saved as Python (kvplan.check.manifests.notebook_py: the file's own lines)
    kind: str = "notebook"
    cell_word: str = "code cell"  # Databricks calls its cells commands
    kind_note: str = ""  # how the file was read, said on each server its shell starts too

    def at(self, line: int) -> str:
        """Where a line of the code kvplan reads is, in the file's words."""
        if self.kind == "notebook":
            return f"{self.where(line)} (line {line} of its code cells joined in order)"
        return f"{self.where(line)} (line {line} of the file)"

    def add_shell(self, lines: Iterable[tuple[int, str, str]]) -> None:
        """Shell lines the notebook runs: (joined line, text, where it is in the notebook)."""
        for at, text, where in lines:
            self.shell.append((text, where))
            self.shell_at.append(at)

    def pins(self) -> tuple[dict[str, tuple[str, str]], list[str]]:
        """engine -> (release, note) of an exact pin in a `pip install` the notebook runs
        (kvplan.check.manifests.launcher_sites.pip_pins, as SkyPilot's `setup` is read): its
        `!` / `%` lines and shell cells, and (task h91readers2) the commands its own Python runs
        (`os.system("pip install vllm==0.6.3")`, `subprocess.run(["pip", "install", ...])`,
        python_servers.starts, as a plain script's are read: python_pins), in line order, the
        last exact pin of an engine its release."""
        from kvplan.check.manifests.launcher_sites import pip_pins
        from kvplan.check.manifests.python_pins import notebook_lines

        python = notebook_lines(self)
        if not python:
            return pip_pins("\n".join(line for line, _ in self.shell),
                            lambda n: self.shell[n - 1][1])
        rows = sorted([*((at, text, where, {}) for (text, where), at in
                         zip(self.shell, self.shell_at, strict=True)), *python],
                      key=lambda row: row[0])
        return pip_pins("\n".join(row[1] for row in rows), lambda n: rows[n - 1][2],
                        lambda n: rows[n - 1][3])

    def where(self, line: int) -> str:
        """`code cell N, its line M` of a line of the joined code."""
        cell, first = 0, 1
        for number, start in self.starts:
            if start > line:
                break
            cell, first = number, start
        return f"{self.cell_word} {cell}, its line {line - first + 1}"

    def note(self, line: int, text: str) -> None:
        self.notes.append(text)
        self.note_at.append(line)

    def notes_but(self, lines: set[int]) -> list[str]:
        """The notes, less those on the lines given (shell lines read as a server start)."""
        return [n for n, at in zip(self.notes, self.note_at) if at not in lines]


# cell magics whose lines run in a shell (their pip installs run, their servers start)
_SHELL_CELLS = frozenset({"%%bash", "%%sh"})
# cell magics whose body IPython runs as the cell's own code (IPython's built-in magics: %%capture
# captures its output, %%time and %%timeit time it): read as a code cell without the magic line
_PYTHON_CELLS = frozenset({"%%capture", "%%time", "%%timeit"})
# `%env NAME=value` / `%env NAME value` (IPython's %env sets os.environ, which every later `!`
# line and %%bash cell inherits)
_ENV = re.compile(r"^%env\s+([A-Za-z_][A-Za-z0-9_]*)(?:\s*=\s*|\s+)(\S.*?)\s*$")


# IPython's help line `obj?` / `obj.attr??` / `%magic?` at the end of the code
# (inputtransformer2.py _help_end_re, :580 in ipython 9.16.1-46-g7f0ee5568; HelpEnd.find looks at
# the last token before the newline, so a line whose comment ends in `?` is Python); `?obj`
# (ESC_HELP) is caught by the leading escapes
_HELP_END = re.compile(r"%{0,2}[a-zA-Z_*][\w*]*(?:\.[a-zA-Z_*][\w*]*)*\?\??$")
_NAME_CHAR = re.compile(r"[\w*]")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_*")


def help_end(text: str) -> bool:
    """Whether `text` ends in a help line's name and `?` / `??` (_HELP_END.search), in time
    linear in the line: the search tried every start of a long run of word characters to its
    end, so a code line holding a 30,000-character literal took 69 s (task h80review). A match
    ends the line, and one exists exactly when the run of name characters before the one or two
    `?` holds a character a name starts with (the name from there is a match on its own)."""
    marks = len(text) - len(text.rstrip("?"))
    if marks not in (1, 2):
        return False
    end = start = len(text) - marks
    while start > 0 and _NAME_CHAR.match(text[start - 1]):
        start -= 1
    return any(c in _NAME_START for c in text[start:end])


# `NAME = !cmd` / `a, b = %magic args`: IPython's SystemAssign and MagicAssign
# (inputtransformer2.py :383 and :350), rewritten as IPython does, to a call kvplan does not make
_ASSIGN = re.compile(r"(\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)(!|%(?=[A-Za-z_]))(.*)$")


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


def _shell_magic(first: str) -> str | None:
    """The cell magic of a cell whose body runs in a shell: %%bash, %%sh, %%script bash|sh."""
    words = first.split()
    if words[0] in _SHELL_CELLS:
        return words[0]
    if words[0] == "%%script" and len(words) > 1 and words[1].rsplit("/", 1)[-1] in ("bash",
                                                                                      "sh"):
        return f"%%script {words[1]}"
    return None


def _magic_line(body: list[str]) -> int | None:
    """The index of a cell's `%%` magic line: its first line, or the first after comment and
    blank lines (Colab runs `# Launch the server` then `%%bash` as a bash cell: the stored
    sglang 690AB notebook's outputs show it); None when the cell has none."""
    for i, line in enumerate(body):
        stripped = line.strip()
        if stripped.startswith("%%"):
            return i
        if stripped and not stripped.startswith("#"):
            return None
    return None


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
        # IPython dedents a cell first (inputtransformer2.py leading_indent, textwrap.dedent)
        _cell(out, number, textwrap.dedent(source).splitlines(), lines)
    out.code = "\n".join(lines) + "\n"
    return out


def _cell(out: Notebook, number: int, body: list[str], lines: list[str]) -> None:
    """One code cell's lines appended to the joined code (`lines`), its shell and notes kept."""
    first = len(lines) + 1
    out.starts.append((number, first))
    at = _magic_line(body)
    if at is not None:
        magic = body[at].split()[0]
        if magic in _PYTHON_CELLS:
            body[at] = ""
        else:
            after = (f" (after {at} comment line(s), as Colab runs such a cell: IPython "
                     "itself takes a cell magic on the first line only)") if at else ""
            out.note(first + at, f"{out.cell_word} {number} left out: its cell magic {magic} makes "
                                 f"it no Python{after}")
            shell = _shell_magic(body[at].strip())
            if shell is not None:
                out.add_shell((first + i - 1, line, f"{out.cell_word} {number}, its line {i}")
                              for i, line in enumerate(body[at + 1:], start=at + 2))
                out.chunks.append(Chunk(first + at + 1, body[at + 1:], number, shell))
            lines.extend("" for _ in body)
            return
    is_open = _Open(lines)
    i = 0
    while i < len(body):
        line = body[i]
        stripped = line.lstrip()
        at = first + i
        assign = _ASSIGN.match(line)
        ipython = assign is not None or stripped.startswith(("%", "!", "?")) or (
            help_end(stripped) and "#" not in stripped)
        if ipython and not is_open():  # inside brackets or a string, a line is Python's
            out.note(at, f"{out.cell_word} {number}, its line {i + 1}: `{stripped[:40]}` left out "
                         "(IPython syntax, not Python)")
            span = [line]
            if stripped.startswith(("!", "%")) or assign is not None:  # IPython joins a
                # `\`-continued escape line (find_end_of_continued_line)
                while span[-1].rstrip().endswith("\\") and i + len(span) < len(body):
                    span.append(body[i + len(span)])
            if assign is not None:  # `gpus = !nvidia-smi -L`: bound to the command's output
                lhs, esc, rest = assign.groups()
                if esc == "!":
                    out.add_shell((at + k, s, f"{out.cell_word} {number}, its line {i + 1 + k}")
                                  for k, s in enumerate([rest, *span[1:]]))
                    call = f"get_ipython().getoutput({rest!r})"
                else:
                    name, _, args = rest.partition(" ")
                    call = f"get_ipython().run_line_magic({name!r}, {args!r})"
                lines.extend([lhs + call, *("" for _ in span[1:])])
                i += len(span)
                continue
            if stripped.startswith("!"):
                command = stripped.lstrip("!")
                out.chunks.append(Chunk(at, [command, *span[1:]], number, "!",
                                        line[:1].isspace()))
            env = _ENV.match(stripped)
            if env is not None:
                out.env.append((at, env.group(1), env.group(2)))
            if stripped.startswith(("%", "!")):
                out.add_shell((at + k, s, f"{out.cell_word} {number}, its line {i + 1 + k}")
                              for k, s in enumerate(span))
            # IPython makes the line one statement (get_ipython().system(...)): as the first
            # line of a block (`if x:` above it), `pass` keeps the block one Python parses
            opens = stripped != line and any(b.strip() for b in body[:i]) and \
                [b for b in body[:i] if b.strip()][-1].rstrip().endswith(":")
            lines.extend([line[:len(line) - len(stripped)] + "pass" if opens else "",
                          *("" for _ in span[1:])])
            i += len(span)
            continue
        lines.append(line)
        i += 1
