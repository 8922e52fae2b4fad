"""The engine releases a plain Python script's own pip commands pin (task h90readers): a
`subprocess.run(["pip", "install", "vllm==0.8.5"])`, `os.system("pip install vllm==0.8.5")` or
`subprocess.check_call([sys.executable, "-m", "pip", "install", ...])` runs pip as a notebook's
`!pip install vllm==0.8.5` does, and is read the same way: the commands of the script's calls that
run a program (kvplan.check.manifests.python_servers.starts, in line order), each read as the
shell text it runs, go through the one pip reader (launcher_sites.pip_pins: an exact pin is the
release, the last one replacing an earlier one; a range, a variable kvplan does not know, or a pip
that installs nothing, pip_commands.inert, is noted). Before, only a notebook's (and a Jupytext or
Databricks `.py` notebook's) pip lines were read, and a plain script's server was planned on the
engine profile's default release, "the one installed, which the script does not name"
(ebubekir-pulat/OptimEAGLE's FlashEAGLE/LIO/Chat_Template_Test.py: `subprocess.run(["uv", "pip",
"install", "sglang[all]>=0.5.3rc0"])` then SGLang's launch_server_cmd).

Task h91readers2: a notebook's own Python cells are read so too (notebook_lines), their commands
merged in line order with the notebook's `!` / `%` pip lines (Notebook.pins): before, a notebook
whose cell ran `os.system("pip install vllm==0.6.3")` planned its server on the profile's
default release, "the one installed, which the notebook does not name"."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kvplan.check.manifests.python_constructions import Imports

# (joined line, command line, where it is said to be, the variables it starts with)
Row = tuple[int, str, str, dict[str, str]]


def script_pins(tree: ast.Module, imports: Imports, given: Callable[[int], dict[str, str]],
                ) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """engine -> (release, note) of the exact pins the script's pip commands hold, and the notes
    on the ones not read; each named by its call, `subprocess.run(...) (line 14)`; `given(line)`:
    the variables a command on that line starts with (os.environ sets before it)."""
    from kvplan.check.manifests.launcher_sites import pip_pins
    from kvplan.check.manifests.python_servers import starts

    text: list[str] = []
    where: list[str] = []
    env: list[dict[str, str]] = []
    for start in starts(tree, imports):
        for line in start.text.strip("\n").splitlines() or [""]:
            text.append(line)
            where.append(f"{start.what} (line {start.line})")
            env.append({**given(start.line), **start.env})
    if not text:
        return {}, []
    return pip_pins("\n".join(text), lambda n: where[n - 1], lambda n: env[n - 1])


def notebook_lines(book: Any) -> list[Row]:
    """The command lines a notebook's Python runs (python_servers.starts over its joined code),
    each named by its call and cell (`os.system(...) (code cell 2, its line 1)`), with the
    variables it starts with (`%env`, literal os.environ sets before it, the call's env=);
    empty when its code does not parse."""
    from kvplan.check.manifests.notebook_shell import _environ, _given
    from kvplan.check.manifests.python_constructions import read_imports
    from kvplan.check.manifests.python_script import parse
    from kvplan.check.manifests.python_servers import starts

    tree = parse(Path("notebook"), book.code)
    if tree is None:
        return []
    sets = _environ(book.code)
    rows: list[Row] = []
    for start in starts(tree, read_imports(tree)):
        where = f"{start.what} ({book.where(start.line)})"
        env = {**_given(book, sets, start.line), **start.env}
        rows.extend((start.line, line, where, env)
                    for line in start.text.strip("\n").splitlines() or [""])
    return rows
