"""The servers a Jupyter notebook starts from its shell (kvplan.check.manifests.notebook's
chunks): a `!` line (`!vllm serve ...`, `!nohup python -m sglang.launch_server ... &`, with its
backslash-continued lines) or a `%%bash` / `%%sh` cell, each read by the shell-script reader
(kvplan.check.manifests.shell) as the shell IPython starts for it runs it:

- each `!` line runs in a shell of its own (IPython's `system`), and each %%bash cell in one
  shell: a variable one sets (`!export MODEL=...`) reaches no other. `%env NAME=value` sets
  os.environ, which every later shell inherits, and so does a literal `os.environ["NAME"] =
  "value"` in the Python before it: both are the variables the chunk starts with;
- IPython expands a `!` line before the shell sees it (IPython's var_expand: `{expr}` and `$name`
  from the notebook's variables; `{{`, `}}` and `$$` are the characters themselves). A name the
  notebook binds once to a literal (`MODEL = "Qwen/Qwen3-8B"`) is that value; another expression
  is refused on a server's line with the reason; when a field names nothing the notebook binds
  (`$HOME`), IPython's expansion fails and it runs the line as written, and so does kvplan.
  A %%bash cell is not expanded;
- an exact engine pin in any `pip install` the notebook runs is the release (Notebook.pins).

Line numbers count every line of every code cell in order (the notebook's joined lines), as for
the Python the notebook runs; a note names the cell and its line.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from kvplan.check.manifests.notebook import Chunk, Notebook
from kvplan.check.manifests.shell_limits import MAX_SERVERS, too_many_servers
from kvplan.check.target import SCRIPT, Target
from kvplan.deploy import Problem

# IPython's DollarFormatter: `$name` / `$name.attr` outside single quotes (`$$` is a `$`), and
# string.Formatter's `{field}` (`{{` / `}}` are braces)
_FIELD = re.compile(r"\{\{|\}\}|\$\$|\{([^{}]*)\}|\$([A-Za-z_][\w.]*)")


def _bindings(code: str) -> tuple[set[str], dict[str, str]]:
    """(every name the notebook's Python binds, those bound once to a str / int / float literal
    and their text); empty when its code does not parse."""
    from kvplan.check.manifests.python_script import parse

    tree = parse(Path("notebook"), code)
    if tree is None:
        return set(), {}
    counts: dict[str, int] = {}
    values: dict[str, str] = {}
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names = [node.id]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.alias):
            names = [(node.asname or node.name).split(".")[0]]
        for name in names:
            counts[name] = counts.get(name, 0) + 1
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value.value
            if len(targets) == 1 and isinstance(targets[0], ast.Name) and \
                    isinstance(value, (str, int, float)) and not isinstance(value, bool):
                values[targets[0].id] = str(value)
    return set(counts), {k: v for k, v in values.items() if counts.get(k) == 1}


def expand(text: str, bound: set[str], literals: dict[str, str]) -> tuple[str, str | None]:
    """A `!` line as IPython hands it to the shell: (the text, why kvplan cannot say what an
    expression in it is, or None)."""
    fields = [m for m in _FIELD.finditer(text) if m.group(1) is not None or m.group(2)]
    if not fields:
        return text, None
    for m in fields:  # a name the notebook does not bind: IPython runs the line as written
        expr = m.group(1) if m.group(1) is not None else m.group(2)
        try:
            tree = ast.parse(expr.strip(), mode="eval")
        except SyntaxError:
            return text, None
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        if not used or not used <= bound:
            return text, None
    why = None

    def sub(m: re.Match[str]) -> str:
        nonlocal why
        whole = m.group(0)
        if whole in ("{{", "}}", "$$"):
            return whole[0]
        expr = (m.group(1) if m.group(1) is not None else m.group(2)).strip()
        if expr in literals:
            return literals[expr]
        why = why or (f"`{whole}`: IPython puts the value of the Python expression {expr} "
                      "here when the line runs; kvplan reads a name the notebook binds once to "
                      "a literal (MODEL = \"Qwen/Qwen3-8B\"), and this is not one: write the "
                      "value in the line, or bind the name once to it")
        return whole
    return _FIELD.sub(sub, text), why


def _environ(code: str) -> list[tuple[int, str, str]]:
    """(line, name, value) of each literal `os.environ["NAME"] = "value"` in the Python."""
    from kvplan.check.manifests.python_script import parse

    tree = parse(Path("notebook"), code)
    out: list[tuple[int, str, str]] = []
    for node in ast.walk(tree) if tree is not None else []:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Subscript) and \
                ast.unparse(node.targets[0].value) == "os.environ" and \
                isinstance(node.targets[0].slice, ast.Constant) and \
                isinstance(node.targets[0].slice.value, str) and \
                isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.append((node.lineno, node.targets[0].slice.value, node.value.value))
    return out


def _given(book: Notebook, sets: list[tuple[int, str, str]], line: int) -> dict[str, str]:
    """The variables a chunk's shell starts with: %env and os.environ sets before it."""
    return {name: value for at, name, value in sorted([*book.env, *sets]) if at < line}


def _text(chunk: Chunk) -> str:
    """The chunk's lines as a script, read from its own line on (`first_line=chunk.line`) so its
    line numbers are the notebook's joined lines. It was padded with chunk.line - 1 blank lines,
    which every reader of the script then walked: a notebook of 3,000 `!vllm serve` lines took
    74 s, most of it in those blank lines (task h90hostile, cProfile)."""
    return "\n".join(chunk.lines) + "\n"


def _said(chunk: Chunk, book: Notebook, line: int) -> str:
    """Where a server start of the chunk is, in the notebook's words."""
    at = book.at(line)
    if chunk.on_line:
        return (f"a {book.kind}: {at}, a {chunk.magic} cell nbconvert wrote as one "
                "get_ipython().run_cell_magic(...) call, read as a shell script")
    if chunk.magic == "!":
        return (f"a {book.kind}: the `!` line of {at}, which IPython runs in a shell of its own "
                "(a variable another `!` line sets does not reach it)")
    return f"a {book.kind}: {at}, in its {chunk.magic} cell, read as a shell script"


def launches(path: Path, book: Notebook, side_cache: dict[Path, Any],
             default_gpu: str | None) -> tuple[list[Target], set[int]]:
    """Every server the notebook's shell starts (one Target each, as a script's), and the joined
    lines of the chunks that start one (their "left out" notes are replaced by the verdict)."""
    from kvplan.check.manifests import shell

    if not book.chunks:
        return [], set()
    bound, literals = _bindings(book.code)
    sets = _environ(book.code)
    pins = book.pins()
    out: list[Target] = []
    read: set[int] = set()
    starting: list[tuple[Chunk, dict[str, str]]] = []
    count = 0
    for chunk in book.chunks:
        given = _given(book, sets, chunk.line)
        starts = _starts(path, chunk, given)
        if starts:
            starting.append((chunk, given))
            count += starts
        if count > MAX_SERVERS:  # each is planned: the notebook is refused as a whole, and
            # its shell lines are said by this ERROR, not one "left out" note each
            total, starting_lines = _count(path, book, sets)
            err = too_many_servers(total, chunk.line)
            return [Target(file=str(path), kind=SCRIPT, line=err.line, problems=[
                Problem("", err.message, err.line)], notes=[_said(chunk, book, chunk.line)])
                ], starting_lines
    for chunk, given in starting:
        raw = _text(chunk)
        read.update(range(chunk.line, chunk.end + 1))
        if not chunk.on_line and (chunk.magic == "%%bash" or
                                  chunk.magic.startswith(("%%sh", "%%script"))):
            read.add(chunk.line - 1)  # the magic line's note
        text, why = (raw, None) if chunk.magic != "!" else expand(raw, bound, literals)
        if why is not None:
            out.append(Target(file=str(path), kind=SCRIPT, line=chunk.line, problems=[
                Problem("", why, chunk.line)], notes=[_said(chunk, book, chunk.line)]))
            continue
        for t in shell.targets(path, text, side_cache, default_gpu, given=given, pins=pins,
                               first_line=chunk.line):
            notebook_words(t)
            if chunk.on_line:
                _on_line(t, chunk)
            t.notes.insert(0, _said(chunk, book, t.line or chunk.line))
            if chunk.indented:
                t.notes.insert(1, "the `!` line is indented inside Python code (an `if`, a loop "
                                  "or a function): read as if it runs once; kvplan does not "
                                  "follow the Python around it")
            out.append(t)
    return out, read


def _on_line(t: Target, chunk: Chunk) -> None:
    """A target of a chunk whose lines all sit on the file's line chunk.line (a cell magic
    nbconvert wrote as one call): its lines are that line, and a note names the cell's line."""
    from dataclasses import replace

    cell_line = (t.line or chunk.line) - chunk.line + 1
    t.line = chunk.line
    t.problems = [replace(p, line=chunk.line) if p.line is not None else p for p in t.problems]
    t.refusals = [replace(p, line=chunk.line) if p.line is not None else p for p in t.refusals]
    if t.doc is not None:
        t.doc = replace(t.doc, lines={key: chunk.line for key in t.doc.lines})
    t.notes.insert(0, f"the server starts on line {cell_line} of that cell's script (the "
                      f"cell's lines are one string on line {chunk.line})")


def starts_server(path: Path, book: Notebook) -> bool:
    """Whether a shell line or cell of the notebook starts a server (or one refused by name):
    a folder walk reads such a notebook (kvplan.check.manifests.python_walk.starts_engine)."""
    return any(_starts(path, chunk, {}) for chunk in book.chunks)


def _count(path: Path, book: Notebook, sets: list[tuple[int, str, str]]) -> tuple[int, set[int]]:
    """The server starts of every chunk, and the joined lines of the chunks that start one, for
    the ERROR of a notebook over MAX_SERVERS."""
    total, lines = 0, set[int]()
    for chunk in book.chunks:
        starts = _starts(path, chunk, _given(book, sets, chunk.line))
        if starts:
            total += starts
            lines.update(range(chunk.line, chunk.end + 1))
    return total, lines


def _starts(path: Path, chunk: Chunk, given: dict[str, str]) -> int:
    """How many servers the chunk starts (or refuses by name), read without its line number
    (which line it is on does not change what it starts): read with blank lines before it,
    each chunk cost the lines above it, and a notebook of 20,000 `!` lines took over 200 s
    (task h80review). A script over MAX_SERVERS counts as one past the limit."""
    from kvplan.check.manifests import shell

    found, refused = shell.sites(path, "\n".join(chunk.lines) + "\n", given)
    if len(refused) == 1 and not found and refused[0].problems and \
            "server starts, over the" in refused[0].problems[0].message:
        return MAX_SERVERS + 1
    return len(found) + len(refused)


# the shell reader's words for a variable or release the script does not state, in a notebook's
_SCRIPT_WORDS = (
    ("set it in the script, or render it first (envsubst)",
     "set it in the notebook (`%env NAME=value`, or a literal `os.environ[\"NAME\"] = \"value\"` "
     "before the line), or write the value in the line"),
    ("the script does not set", "the notebook does not set"),
    ("which the script does not name", "which the notebook does not name"),
    ("the script does not name the installed", "the notebook does not name the installed"),
    ("no CUDA_VISIBLE_DEVICES in the script", "no CUDA_VISIBLE_DEVICES in the notebook"),
)


def notebook_words(t: Target) -> None:
    """A target of a notebook's shell line (or of a server its Python starts) told in the
    notebook's words: it sets no variable as a script does (`%env`, os.environ)."""
    def said(text: str) -> str:
        for old, new in _SCRIPT_WORDS:
            text = text.replace(old, new)
        return text

    t.problems = [Problem(p.field, said(p.message), p.line) for p in t.problems]
    t.notes = [said(n) for n in t.notes]
