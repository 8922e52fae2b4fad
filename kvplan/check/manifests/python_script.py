"""Python scripts that start an engine in-process (offline batch inference, RL trainers,
benchmarks): vLLM `LLM(...)` and `LLMEngine.from_engine_args(EngineArgs(...))`, SGLang
`sglang.Engine(...)`, TensorRT-LLM `LLM(...)`. One deployment per construction, in file order.

The file is parsed with the standard library's `ast`, never imported or run (size-limited as
every input, kvplan.inputs.text). Which engine a class belongs to is decided by the import it
comes from (vLLM and TensorRT-LLM both call theirs `LLM`); the engines' Python APIs are
kvplan.engines.python_api. Each keyword becomes the option of the engine's command line with
the same name (vLLM `gpu_memory_utilization=0.9` is `--gpu-memory-utilization 0.9`; SGLang
`mem_fraction_static` is `--mem-fraction-static`), and the manifests' one conversion reads those
words with the engine's option table (kvplan.check.manifests.launch); TensorRT-LLM's keywords
are the LLM API's, the keys of trtllm-serve's options YAML, read as that file is
(kvplan.engines.trtllm_config). Values: kvplan.check.manifests.python_values; one the file does
not state is refused when the option moves the pool (an ERROR naming the keyword and its line),
noted otherwise. A keyword the engine does not take stops it (TypeError): refused the same way.

The GPUs: `os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"` before the construction lists them, as
the variable does for a shell script; the GPU model is never in a script: `--gpu`, else judged
over the catalog (WARN), as the shell-script reader does.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kvplan.check.manifests.pods import PodSite
from kvplan.check.manifests.python_constructions import (
    Construction,
    constructions,
    read_imports,
    references,
)
from kvplan.check.manifests.python_keywords import keywords
from kvplan.check.manifests.script_files import ScriptFiles
from kvplan.check.target import SCRIPT, Target
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc
from kvplan.engines.python_api import APIS

# engine -> (release, note) of the exact pins a notebook's `pip install` lines hold, and the
# notes on the ones not read (launcher_sites.pip_pins)
Pins = tuple[dict[str, tuple[str, str]], list[str]]
KIND = "shell command"  # the site kind of a server the script starts itself (a script target)


def _read(c: Construction, path: Path, release: str | None = None,
          ) -> tuple[list[str], list[int], ScriptFiles]:
    """The engine's command words (and their lines) the construction amounts to; `release`:
    the one a notebook's pin states, whose option table reads the keywords (task h80sglpy)."""
    from kvplan.check.manifests.python_attrs import attribute_keywords, server_args
    from kvplan.check.manifests.python_words import option_words, options_file_words

    call = server_args(c) if c.api.args_keyword else c.call
    kws = keywords(c, call, release)
    if c.args_name is not None and c.api.unknown_attribute:  # `sa.x = v` before the launch
        kws = attribute_keywords(c, c.args_name, c.start or c.call, c.ctx, kws, release)
    if c.api.options_file:
        return options_file_words(c, kws, ScriptFiles(path))
    words, lines = option_words(c, kws, release)
    return words, lines, ScriptFiles(path)


def _visible_sets(tree: ast.Module, env_names: tuple[str, ...]) -> list[tuple[int, str]]:
    """(line, value) of each literal `os.environ["CUDA_VISIBLE_DEVICES"] = "..."`, in line
    order (one walk of the tree for the whole file)."""
    return [(line, v) for line, n, v in _environ_sets(tree, env_names)
            if n == "CUDA_VISIBLE_DEVICES"]


def _environ_sets(tree: ast.Module, env_names: tuple[str, ...]) -> list[tuple[int, str, str]]:
    """(line, name, value) of each literal `os.environ["NAME"] = "value"`, in line order: the
    variables every process the script starts after that line inherits."""
    out: list[tuple[int, str, str]] = []
    environ = {f"{o}.environ" for o in env_names}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Subscript) and \
                ast.unparse(node.targets[0].value) in environ and \
                isinstance(node.targets[0].slice, ast.Constant) and \
                isinstance(node.targets[0].slice.value, str) and \
                isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.append((node.lineno, node.targets[0].slice.value, node.value.value))
    return sorted(out)


def _visible(sets: list[tuple[int, str]], before: int) -> str | None:
    """CUDA_VISIBLE_DEVICES as the script last sets it (a literal) before line `before`."""
    return next((v for line, v in reversed(sets) if line < before), None)


# bounds on what one script may hold (docs/limits.md): a 16 MiB script took over 120 s and
# 7.4 GB, at 512 KiB `kvplan check` takes 3.3 s and 195 MB (measured on this reader, task
# h60pyreview); engine scripts are a few KiB (the public corpus's largest is 3.4 KB)
MAX_CODE_BYTES = 512 * 1024
MAX_CONSTRUCTIONS = 64


TOO_DEEP = ("not Python that kvplan can read: an expression is nested too deep (Python's parser, "
            "or kvplan's walk of its tree, ran out of stack); describe the deployment in a "
            "kvplan/v1 file")


def _compile(text: str, path: Path) -> Any:
    """Python's parser, its warnings kept off kvplan's output: `"\\%"` in a script is an invalid
    escape, a DeprecationWarning on 3.11 and a SyntaxWarning printed to stderr from 3.12
    (round 2's vllm-prover-v2-tp2.py has one); the script's own style is not kvplan's report."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return compile(text, str(path), "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def parse(path: Path, text: str) -> ast.Module | None:
    """The file's syntax tree (top-level `await` allowed, as a notebook cell has it)."""
    try:
        tree = _compile(text, path)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return tree if isinstance(tree, ast.Module) else None


def _unparsed(path: Path, text: str) -> Target | None:
    """An ERROR for a file that names an engine but is not Python that parses."""
    if not any(api.package in text for api in APIS):
        return None
    try:
        _compile(text, path)
    except SyntaxError as err:
        line = err.lineno or 1
        return Target(file=str(path), kind=SCRIPT, line=line, problems=[Problem(
            "", f"not Python that parses ({err.msg}); kvplan reads the engine a script starts "
            "with Python's own parser: fix the file, or describe the deployment in a kvplan/v1 "
            "file", line)])
    except ValueError as err:
        return Target(file=str(path), kind=SCRIPT, line=1, problems=[Problem(
            "", f"not Python that parses ({err})", 1)])
    except (MemoryError, RecursionError):  # Python's parser on an expression nested too deep
        return Target(file=str(path), kind=SCRIPT, line=1, problems=[Problem("", TOO_DEEP, 1)])
    return None


def _release(c: Construction, pins: Pins | None) -> dict[str, tuple[str, str]]:
    """The engine release of construction `c`: an exact pin of its engine in a `pip install`
    the notebook runs (`pins`), else the one installed, said in a note."""
    releases, said = pins or ({}, [])
    c.notes.extend(n for n in said if n not in c.notes)
    engine = c.api.engine
    if engine in releases:
        return {engine: releases[engine]}
    c.notes.append(f"{c.what} (line {c.line}) starts {engine} inside the script, read without "
                   f"running it: the {engine} release is the one installed, which the script "
                   "does not name")
    if releases:
        named = "; ".join(note.split(": ", 1)[0] for _, note in releases.values())
        c.notes.append(f"{named}: not the engine {c.what} runs, so not its release")
    return {}


def sites(path: Path, tree: ast.Module, found: list[Construction],
          pins: Pins | None = None) -> list[PodSite]:
    """A site for each engine construction `found` in the file's tree; `pins`: the engine
    releases a notebook's `pip install` lines pin (notebook.Notebook.pins)."""
    from kvplan.check.manifests.shell import _visible as visible_count

    out: list[PodSite] = []
    sets = _visible_sets(tree, found[0].ctx.env_names) if found else []
    for k, c in enumerate(found):
        pinned = (pins or ({}, []))[0].get(c.api.engine)
        words, lines, files = _read(c, path, pinned[0] if pinned is not None else None)
        releases = _release(c, pins)
        env: dict[str, str] = {}
        cuda = _visible(sets, c.line)
        if cuda is not None:
            env["CUDA_VISIBLE_DEVICES"] = cuda
        count, said = visible_count(env)
        if not said:
            said = "no CUDA_VISIBLE_DEVICES in the script: every GPU of the machine is visible"
        pod_at: tuple[Any, ...] = ("constructions", k)
        c_at = (*pod_at, "containers", 0)
        line_of = {c_at + ("command", i): n for i, n in enumerate(lines)}
        # the command kvplan builds from the keywords is no command the file writes: model= is
        # the constructor's own keyword, not `vllm serve --model` (stray_words.model_option)
        container = {"image": "", "command": words, "implied_entry": True,
                     "env": [{"name": n, "value": v} for n, v in env.items()],
                     "resources": {"limits": {"nvidia.com/gpu": count}}}
        site = PodSite(KIND, {"containers": [container]}, pod_at, [(container, c_at)], 1,
                       pod_at, group=k, lines={pod_at: c.line, c_at: c.line, **line_of},
                       problems=c.problems, notes=c.notes, line_at=pod_at, gpus_said=said,
                       release_unknown=not releases, files=files)
        site.releases = releases
        site.stated = dict(c.stated)
        out.append(site)
    return out


def targets(path: Path, text: str, side_cache: dict[Path, Any],
            default_gpu: str | None, pins: Pins | None = None,
            given: Callable[[int], dict[str, str]] | None = None) -> list[Target]:
    """Every deployment a Python script starts, through the manifests' one conversion."""
    from kvplan.check.manifests import site_targets
    from kvplan.check.manifests.shell import UNRENDERED, directive_notes

    doc = Doc(data={}, start_line=1, lines={})
    out: list[Target] = []
    if len(text.encode()) > MAX_CODE_BYTES:
        return [_refused(path, f"{len(text.encode()):,} bytes of Python, over the "
                         f"{MAX_CODE_BYTES:,} kvplan parses in a script or a notebook's code "
                         "cells (docs/limits.md); describe the deployment in a kvplan/v1 file")]
    unparsed = _unparsed(path, text)
    if unparsed is not None:
        return [unparsed]
    tree = parse(path, text)
    if tree is None:
        return []
    imports = read_imports(tree)
    found = constructions(tree, imports)
    if len(found) > MAX_CONSTRUCTIONS:
        return [_refused(path, f"{len(found):,} engine constructions, over the "
                         f"{MAX_CONSTRUCTIONS} kvplan reads in one script (docs/limits.md); "
                         "describe the deployments in a kvplan/v1 file")]
    for line, why in references(tree, imports):
        out.append(Target(file=str(path), kind=SCRIPT, line=line, problems=[Problem(
            "", why, line)]))
    from kvplan.check.manifests.python_constructions import _env_names
    from kvplan.check.manifests.python_pins import script_pins

    sets = _environ_sets(tree, _env_names(imports))
    given = given or (lambda line: {name: value for at, name, value in sets if at < line})
    if pins is None:  # a plain script: its own pip commands (a notebook's are its `!` lines)
        pins = script_pins(tree, imports, given)
    for site in sites(path, tree, found, pins):
        for target in site_targets(doc, path, [site], None, {}, side_cache, default_gpu):
            target.gpu_vendor = None  # a pip install names no vendor
            if site.problems:
                target.problems = [p for p in target.problems
                                   if p in site.problems or UNRENDERED not in p.message]
            if not target.problems and not target.deployment and site.problems:
                target.problems = list(site.problems)
            target.kind = SCRIPT
            target.problems = [_in_python(p) for p in target.problems]
            target.notes.extend(directive_notes(path, text))  # read in silence before h70hostile
            out.append(target)
    from kvplan.check.manifests.python_servers import targets as server_targets

    out += server_targets(path, tree, imports, side_cache, default_gpu, given, pins,
                          MAX_CONSTRUCTIONS)
    return sorted(out, key=lambda t: t.line)


def _refused(path: Path, why: str) -> Target:
    return Target(file=str(path), kind=SCRIPT, line=1, problems=[Problem("", why, 1)])


def _in_python(p: Problem) -> Problem:
    """A problem of the manifests' conversion in a Python script's words: an option is the
    keyword of the same name (`--model` is `model`, `--served-model-name <hf id>` is
    `served_model_name="<hf id>"`)."""
    from kvplan.engine_traits import TRAITS

    message = p.message
    for t in TRAITS.values():
        flag = t.served_name_flag
        if flag and f"{flag} <hf id>" in message:
            message = message.replace(f"{flag} <hf id>",
                                      f"{flag.lstrip('-').replace('-', '_')}=\"<hf id>\"")
    field = p.field
    own = {flag: keyword for api in APIS for keyword, flag in api.keyword_flags}
    if field in own:  # SGLang's --fp8-gemm-backend is the field fp8_gemm_runner_backend
        field = own[field]
    elif field.startswith("--") and " " not in field:  # `--model` is the keyword `model`
        field = field.lstrip("-").replace("-", "_")
    return Problem(field, message, p.line)


def _guarded(path: Path, text: str, side_cache: dict[Path, Any],
             default_gpu: str | None, pins: Pins | None = None,
             given: Callable[[int], dict[str, str]] | None = None) -> list[Target]:
    """targets(), with a syntax tree too deep to walk (`x = 1 + 1 + ...` a thousand terms deep
    parses, but printing or resolving it recurses past Python's stack) one ERROR, not a crash."""
    try:
        return targets(path, text, side_cache, default_gpu, pins, given)
    except (RecursionError, MemoryError):
        return [Target(file=str(path), kind=SCRIPT, line=1, problems=[Problem(
            "", TOO_DEEP, 1)])]


def read_python(path: Path, side_cache: dict[Path, Any],
                default_gpu: str | None) -> list[Target] | None:
    """The deployments of a Python script; None when it cannot be read as text."""
    from kvplan.errors import InputError
    from kvplan.inputs.text import read_text

    try:
        text = read_text(path)
    except InputError:
        return None
    book = _notebook(path, text)
    if book is None:
        return _guarded(path, text, side_cache, default_gpu)
    if book.problem:
        return [Target(file=str(path), kind=SCRIPT, line=1,
                       problems=[Problem("", book.problem, 1)])]
    from kvplan.check.manifests.notebook_shell import (
        _environ,
        _given,
        launches,
        notebook_words,
    )

    sets = _environ(book.code)
    out = _guarded(path, book.code, side_cache, default_gpu, book.pins(),
                   lambda line: _given(book, sets, line))
    started, read = launches(path, book, side_cache, default_gpu)  # its `!` / %%bash servers
    for t in started if book.kind_note else []:  # a .py read as a notebook: said on each
        t.notes.insert(1, book.kind_note)
    notes = book.notes_but(read)
    from kvplan.check.manifests.python_servers import FROM_PYTHON

    for t in out:
        if any(FROM_PYTHON in n for n in t.notes):  # a server the notebook's Python starts
            notebook_words(t)
        t.notes[:0] = [f"a {book.kind}: line {t.line} is {book.at(t.line)}"
                       if book.kind != "notebook" else
                       f"a notebook: line {t.line} of its code cells joined in order is "
                       f"{book.where(t.line)}", *notes]
    return sorted([*out, *started], key=lambda t: t.line)


def _notebook(path: Path, text: str) -> Any:
    """The notebook a file is: a `.ipynb`, or a `.py` saved as one (Databricks source, a
    Jupytext percent script: kvplan.check.manifests.notebook_py); None for a plain script."""
    if path.suffix == ".ipynb":
        from kvplan.check.manifests.notebook import read_notebook

        return read_notebook(text)
    from kvplan.check.manifests.notebook_py import as_notebook

    return as_notebook(text)
