"""Servers a Python script or notebook starts as another process: `subprocess.Popen(["vllm",
"serve", MODEL, ...])`, `subprocess.run("python -m vllm.entrypoints.openai.api_server ...",
shell=True)`, `os.system("vllm serve ... &")`, SGLang's `launch_server_cmd(...)` (sglang.utils,
sglang.test.doc_patch) and `popen_launch_server(model, base_url, other_args=[...])`
(sglang.test.test_utils), the `sh` package's `sh.vllm(...)`.

Each call's command is rebuilt as the words (or the shell text) the program receives
(kvplan.check.manifests.python_argv) and read by the shell-script reader
(kvplan.check.manifests.shell), its one table of options: a server start it finds is a deployment
on the call's line. A piece of the command the file does not state (a parameter, a value computed
when the script runs) is a variable the shell reader finds unset: an ERROR when it is the model or
an option kvplan reads, a note otherwise, each said here with the Python expression and why.
"""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kvplan.check.argv import SHELLS
from kvplan.check.manifests.python_argv import HOLE, Render, changed_lists, sglang_split
from kvplan.check.manifests.python_constructions import FIX, Imports
from kvplan.check.manifests.python_values import Context, Scope, resolve
from kvplan.check.target import SCRIPT, Target
from kvplan.deploy import Problem
from kvplan.engines.python_api import DOC_PATCH_FLAGS, DOC_PATCH_SOURCE, LAUNCH_HELPERS

# subprocess's functions that run a program (Lib/subprocess.py: run, call, check_call,
# check_output and Popen take `args` first, a sequence, or a string with shell=True)
_SUBPROCESS = frozenset({"Popen", "run", "call", "check_call", "check_output", "getoutput",
                         "getstatusoutput"})
_SHELL_ALWAYS = frozenset({"getoutput", "getstatusoutput"})  # run their string in a shell
_OS_SHELL = frozenset({"system", "popen"})  # os.system / os.popen run a string in a shell
_OS_EXEC = frozenset({"execv", "execvp", "execve", "execvpe"})  # (file, argv list)
FROM_PYTHON = "starts this server from Python: its command read as a shell script's"
_HOLE = re.compile(r"'?\$\{(" + HOLE + r"\d+)\}'?")


@dataclass
class Start:
    """One call that runs a program, as the shell text kvplan reads."""

    line: int
    what: str
    text: str
    render: Render
    env: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _arg(call: ast.Call, index: int, name: str) -> ast.expr | None:
    got = _kw(call, name)
    if got is None and len(call.args) > index and not isinstance(call.args[index], ast.Starred):
        return call.args[index]
    return got


def _env(call: ast.Call, r: Render, start: Start) -> None:
    """`env=` of the call: a dict the file states (`{**os.environ, "K": "v"}` and
    `dict(os.environ, K="v")` too) is the environment the command starts with."""
    node = _kw(call, "env")
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return
    pairs: dict[str, ast.expr] = {}
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values):
            if k is None and ast.unparse(v).endswith("os.environ"):
                continue
            if k is None or not isinstance(k, ast.Constant) or not isinstance(k.value, str):
                pairs = {}
                break
            pairs[k.value] = v
        else:
            _set_env(pairs, r, start)
            return
    elif isinstance(node, ast.Call) and ast.unparse(node.func) == "dict" and \
            all(ast.unparse(a).endswith("os.environ") for a in node.args):
        _set_env({k.arg: k.value for k in node.keywords if k.arg}, r, start)
        return
    got = resolve(node, r.ctx)
    if got.read and isinstance(got.value, dict):
        start.env.update({str(k): str(v) for k, v in got.value.items()})
        return
    start.notes.append(f"env={ast.unparse(node)[:40]} is not read ({got.why or 'not a dict'}): "
                       "the command is read with the script's own environment")


def _set_env(pairs: dict[str, ast.expr], r: Render, start: Start) -> None:
    for name, value in pairs.items():
        text = r.text(value)
        if HOLE not in text:
            start.env[name] = text
        else:
            r.holes.popitem()
            start.notes.append(f"env {name}={ast.unparse(value)[:40]} is not read: the command "
                               f"is read without {name}")


def _subprocess(call: ast.Call, name: str, r: Render, start: Start) -> bool:
    args = _arg(call, 0, "args") if name not in _SHELL_ALWAYS else _arg(call, 0, "cmd")
    if args is None:
        return False
    shell = _kw(call, "shell")
    shell_on = name in _SHELL_ALWAYS or (shell is not None and resolve(shell, r.ctx).value is True)
    if shell is not None and not resolve(shell, r.ctx).read:
        start.notes.append(f"shell={ast.unparse(shell)[:30]} is not read: taken as False")
    if isinstance(args, (ast.List, ast.Tuple)) or _splits(args) or (
            isinstance(args, ast.Name) and _is_list(args, r)):
        words = r.words(args, strict=True)
        if shell_on:  # a sequence with shell=True: its first item is the shell's script
            start.text = words[0] if words else ""
            if len(words) > 1 and len(words[0].split()) == 1:  # ["vllm", "serve", ...]
                start.text = _argv_text(words)  # what was meant: named, never read as run
                start.problems.append(Problem("", (
                    f"{start.what} is given a list with shell=True: the shell runs its first "
                    f"item {words[0][:40]!r} alone, and the others ({shlex.join(words[1:3])[:60]}"
                    f"{' ...' if len(words) > 3 else ''}) are the shell's own $0, $1 ..., not "
                    "the command's words, so no server starts; pass the list without shell=True, "
                    "or one string with shell=True"), start.line))
            return True
        start.text = _argv_text(words)
        if r.ints:
            start.problems.append(Problem("", f"{start.what}: {', '.join(r.ints)} in the "
                                          "argument list is not a string: subprocess raises "
                                          "TypeError when the script runs and no server starts; "
                                          "write it as a string", start.line))
        return True
    text = r.text(args)
    if shell_on:
        start.text = text
        return True
    # a string without shell=True names the program to run: `vllm serve x` is no program
    start.text = text
    words = text.split()
    if len(words) > 1:
        start.problems.append(Problem("", (
            f"{start.what} is given the string {text[:60]!r} without shell=True: Python runs a "
            "program of that whole name (FileNotFoundError) and no server starts; pass the "
            "words as a list (`shlex.split(...)`) or add shell=True"), start.line))
    return True


def _splits(node: ast.expr) -> bool:
    """`shlex.split(x)`, `x.split()`, `list(x)`: a call that makes a list of words."""
    return isinstance(node, ast.Call) and (
        ast.unparse(node.func) in ("shlex.split", "list", "tuple") or (
            isinstance(node.func, ast.Attribute) and node.func.attr == "split"))


def _argv_text(words: list[str]) -> str:
    """The shell text of a program's words: `["bash", "-c", SCRIPT]` runs SCRIPT in a shell
    (its further words are the script's $0, $1 ...), read as that script; else the words as
    one command line."""
    if len(words) >= 3 and words[0].rsplit("/", 1)[-1] in SHELLS and words[1] in ("-c", "-lc"):
        return words[2]
    return shlex.join(words)


def _is_list(node: ast.Name, r: Render) -> bool:
    """Whether a name holds a list of words (what it is bound to, else its resolved value);
    a list changed in place (`cmd.append(...)`) is one too."""
    if r._changed(node.id) is not None:
        return True
    bound = r._single(node)
    if bound is None:
        got = resolve(node, r.ctx)
        return got.read and isinstance(got.value, list)
    return isinstance(bound, (ast.List, ast.Tuple, ast.ListComp)) or _splits(bound) or (
        isinstance(bound, ast.BinOp) and isinstance(bound.left, (ast.List, ast.Tuple)))


def _sglang(call: ast.Call, module: str, r: Render, start: Start) -> bool:
    """launch_server_cmd / execute_shell_command: SGLang's own split of the string."""
    command = _arg(call, 0, "command")
    if command is None:
        return False
    env, words = sglang_split(r.text(command))
    start.env.update(env)
    name = start.what.split("(")[0].rsplit(".", 1)[-1]
    if name == "launch_server_cmd":
        port = _arg(call, 2, "port")
        got = resolve(port, r.ctx) if port is not None else None
        if got is not None and got.read and got.value is not None:
            words += ["--port", str(got.value)]
            start.notes.extend(n for n in got.notes if n not in start.notes)
        start.notes.append(f"{name} appends `--port` (sglang 0.5.23 utils.py:504; a free port "
                           "it reserves unless port= is given), not used by kvplan's plan")
        if module.endswith("doc_patch"):
            words += DOC_PATCH_FLAGS
            start.notes.append(f"sglang.test.doc_patch's launch_server_cmd appends "
                               f"`{' '.join(DOC_PATCH_FLAGS)}` ({DOC_PATCH_SOURCE}): read as "
                               "part of the command (the installed sglang's doc_patch decides; "
                               "kvplan reads 0.5.23's)")
    start.text = shlex.join(words)
    start.notes.append(f"{start.what}: its string split as SGLang does (no shell; sglang 0.5.23 "
                       "utils.py:473-486)")
    return True


def _popen_launch_server(call: ast.Call, r: Render, start: Start) -> bool:
    """sglang.test.test_utils.popen_launch_server (sglang 0.5.23 test_utils.py:731-813)."""
    model = _arg(call, 0, "model")
    if model is None:
        return False
    words = ["sglang", "serve", "--model-path", r.text(model)]
    other = _arg(call, 4, "other_args")
    if other is not None and not (isinstance(other, ast.Constant) and other.value is None):
        words += r.words(other)
    device = _arg(call, 7, "device")
    if device is not None:
        got = resolve(device, r.ctx)
        if got.read and got.value != "auto":
            words += ["--device", str(got.value)]
        elif not got.read:
            words += ["--device", r.hole(device, got.why)]
    base = _arg(call, 1, "base_url")
    got_base = resolve(base, r.ctx) if base is not None else None
    if got_base is not None and got_base.read and isinstance(got_base.value, str) and \
            got_base.value.count(":") == 2:
        _, host, port = got_base.value.split(":")
        words += ["--host", host[2:], "--port", port]
    for extra in ("pd_separated", "num_replicas"):
        if _kw(call, extra) is not None:
            start.problems.append(Problem(extra, f"{start.what}: {extra}= starts "
                                          "sglang.launch_pd_server, which kvplan does not read; "
                                          f"{FIX}", start.line))
    start.text = shlex.join(words)
    start.notes.append(f"{start.what}: read as the command it runs, `sglang serve --model-path "
                       "MODEL <other_args> --host H --port P` (sglang 0.5.23 test_utils.py:731-813; "
                       "device \"auto\" adds the machine's own device, a GPU's when it has one, "
                       ":752-754)")
    return True


def _sh(call: ast.Call, program: str, r: Render, start: Start) -> bool:
    """`sh.vllm("serve", model, ...)`: the program and its positional arguments."""
    words = [program.replace("_", "-")]
    for a in call.args:
        words += r.words(a.value) if isinstance(a, ast.Starred) else [r.text(a)]
    options = [k.arg for k in call.keywords if k.arg and not k.arg.startswith("_")]
    if options:
        start.problems.append(Problem("", f"{start.what}: keyword arguments "
                                      f"{', '.join(options)} become options by the sh package's "
                                      "own rules, which kvplan does not apply; write them as "
                                      "positional strings (\"--max-model-len\", \"8192\")",
                                      start.line))
    start.text = shlex.join(words)
    return True


def _start(call: ast.Call, imports: Imports, r: Render) -> Start | None:
    origin = imports.origin(call.func)
    if origin is None:
        return None
    package, name = origin
    module = imports.module(call.func)
    start = Start(call.lineno, f"{_short(call.func)}(...)", "", r)
    if package == "subprocess" and name in _SUBPROCESS:
        found = _subprocess(call, name, r, start)
    elif package == "os" and name in _OS_SHELL and call.args:
        start.text, found = r.text(call.args[0]), True
    elif package == "os" and name in _OS_EXEC and len(call.args) >= 2:
        start.text, found = _argv_text(r.words(call.args[1])), True
    elif package == "asyncio" and name == "create_subprocess_shell" and call.args:
        start.text, found = r.text(call.args[0]), True
    elif package == "asyncio" and name == "create_subprocess_exec" and call.args:
        words: list[str] = []
        for a in call.args:
            words += r.words(a.value) if isinstance(a, ast.Starred) else [r.text(a)]
        start.text, found = shlex.join(words), True
    elif LAUNCH_HELPERS.get((package, name)) == "split":
        found = _sglang(call, module, r, start)
    elif LAUNCH_HELPERS.get((package, name)) == "test_server":
        found = _popen_launch_server(call, r, start)
    elif package == "sh" and name not in ("Command",) and isinstance(call.func, ast.Attribute):
        found = _sh(call, name, r, start)
    else:
        return None
    if not found:
        return None
    _env(call, r, start)
    start.notes[:0] = r.notes
    return start


def _short(node: ast.AST) -> str:
    text = ast.unparse(node).splitlines()[0]
    return text if len(text) <= 50 else text[:47] + "..."


def starts(tree: ast.Module, imports: Imports) -> list[Start]:
    """Every call of the file that runs a program kvplan reads, in line order."""
    from kvplan.check.manifests.python_constructions import _env_names, scoped_calls

    module = Scope(tree, "module")
    out: list[Start] = []
    changed = changed_lists(tree)
    for call, function, loop in scoped_calls(tree):
        r = Render(Context(module, function, (), _env_names(imports)), tree, changed=changed)
        got = _start(call, imports, r)
        if got is not None:
            if loop is not None:
                got.notes.append(f"{got.what} (line {got.line}) is inside a loop (line "
                                 f"{getattr(loop, 'lineno', 0)}): each pass starts "
                                 "another server; kvplan plans one, as started once")
            out.append(got)
    return sorted(out, key=lambda s: s.line)


def _mentions(text: str) -> bool:
    return re.search(r"vllm|sglang|trtllm", text) is not None


def _said(start: Start, message: str, note: bool) -> str:
    """A shell-reader message about a hole, in the script's words."""
    m = _HOLE.search(message)
    if m is None:
        return message
    expr, why = start.render.holes.get(m.group(1), ("?", "not read"))
    if note:
        flag = message.split(":", 1)[0]
        return (f"{flag}: {expr} ({start.what}, line {start.line}) is not read: {why}; "
                f"kvplan's plan does not read {flag}, so it is passed over")
    return (f"{expr} in the command of {start.what} (line {start.line}) is not read: {why}; "
            f"it is the model or an option kvplan reads, so kvplan cannot plan the pool "
            f"without it; {FIX}")


def targets(path: Path, tree: ast.Module, imports: Imports, side_cache: dict[Path, Any],
            default_gpu: str | None, given: Callable[[int], dict[str, str]],
            pins: Any = None, most: int = 64) -> list[Target]:
    """The deployments of the servers the file's Python starts; `given(line)`: the variables a
    command on that line starts with (os.environ sets before it, a notebook's %env); more than
    `most` calls that run a program are one ERROR (docs/limits.md), as constructions are."""
    from kvplan.check.manifests import shell

    out: list[Target] = []
    found_starts = starts(tree, imports)
    if len(found_starts) > most:
        return [Target(file=str(path), kind=SCRIPT, line=1, problems=[Problem(
            "", f"{len(found_starts):,} calls that run a program (subprocess, os.system, "
            f"SGLang's launchers), over the {most} kvplan reads in one script (docs/limits.md); "
            "describe the deployments in a kvplan/v1 file", 1)])]
    for start in found_starts:
        text = start.text.lstrip("\n")
        raw = "\n" * (start.line - 1) + text + "\n"
        env = {**given(start.line), **start.env}
        found, refused = shell.sites(path, raw, env)
        if not found and not refused:
            if start.render.holes and _mentions(text + " ".join(start.render.seen)):
                out.append(Target(file=str(path), kind=SCRIPT, line=start.line, problems=[
                    Problem("", _unnamed(start), start.line)]))
            continue
        if start.problems:
            out.append(Target(file=str(path), kind=SCRIPT, line=start.line,
                              problems=list(start.problems), notes=list(start.notes)))
            continue
        for t in shell.targets(path, raw, side_cache, default_gpu, given=env, pins=pins):
            t.problems = [Problem(p.field, _said(start, p.message, False), p.line)
                          for p in t.problems]
            t.notes = [f"{start.what} (line {start.line}) {FROM_PYTHON}", *start.notes,
                       *(_said(start, n, True) for n in t.notes)]
            out.append(t)
    return out


def _unnamed(start: Start) -> str:
    holes = "; ".join(f"{e}: {w}" for e, w in start.render.holes.values())
    return (f"{start.what} (line {start.line}) runs a command kvplan cannot read whole ({holes}): "
            "if it starts vLLM, SGLang or TensorRT-LLM, write the command in the script (a "
            "literal list or string, or names bound once to literals), or describe the "
            "deployment in a kvplan/v1 file")


def any_start(path: Path, tree: ast.Module, imports: Imports) -> bool:
    """Whether a call starts a server (or one kvplan refuses by name): a folder walk reads it."""
    from kvplan.check.manifests import shell

    for start in starts(tree, imports):
        text = start.text.lstrip("\n")
        found, refused = shell.sites(path, text + "\n", dict(start.env))
        if found or refused or (start.render.holes and
                                  _mentions(text + " ".join(start.render.seen))):
            return True
    return False
