"""Print kvplan/check/engine_flags/vllm_python_releases.json: what vLLM's Python API takes, release
by release, read with Python's ast (nothing of vLLM is imported) from vllm wheels on PyPI.

    pip download --no-deps vllm==0.9.0 -d /tmp/whl   # one wheel per release to read
    python benchmarks/extract_vllm_python.py /tmp/whl/vllm-0.8.5-*.whl /tmp/whl/vllm-0.9.0-*.whl ... \
        > kvplan/check/engine_flags/vllm_python_releases.json

Per wheel (task h82vllmrel):
- `fields`: the fields of `class EngineArgs` in vllm/engine/arg_utils.py (its annotated names;
  ClassVar ones are no fields), the keywords `EngineArgs(...)` takes, and so those `LLM(...)`
  hands to it through **kwargs; a keyword that is none of them raises TypeError;
- `async_fields`: the fields `class AsyncEngineArgs(EngineArgs)` adds;
- `engine_args_line` / `async_line`: the `class` lines (the @dataclass above them);
- `llm_line`: the line of `def __init__` of `class LLM` in vllm/entrypoints/llm.py;
  `llm_params`: its parameters after `self` that take a positional argument (in order),
  `llm_keyword_only`: those after a bare `*` (LLM's own parameters, keyword only),
  `llm_posargs_line`: the line of the first parameter a positional argument cannot reach
  (the `*`'s first parameter), 0 when every parameter is positional or keyword.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path

ARG_UTILS = "vllm/engine/arg_utils.py"
LLM = "vllm/entrypoints/llm.py"


def _is_classvar(annotation: ast.expr) -> bool:
    text = ast.unparse(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


def class_fields(tree: ast.Module, name: str) -> tuple[list[str], int]:
    """(the annotated field names of `class name`, the class's line)."""
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            fields = [s.target.id for s in node.body
                      if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                      and not _is_classvar(s.annotation)]
            return fields, node.lineno
    raise SystemExit(f"no class {name}")


def llm_init(tree: ast.Module) -> dict[str, object]:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "LLM":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    args = item.args
                    params = [a.arg for a in [*args.posonlyargs, *args.args]][1:]
                    kwonly = [a.arg for a in args.kwonlyargs]
                    first_kw = args.kwonlyargs[0].lineno if args.kwonlyargs else 0
                    return {"llm_line": item.lineno, "llm_params": params,
                            "llm_keyword_only": kwonly, "llm_posargs_line": first_kw}
    raise SystemExit("no LLM.__init__")


def read(wheel: Path) -> tuple[str, dict[str, object]]:
    match = re.match(r"vllm-([^-]+)-", wheel.name)
    if match is None:
        raise SystemExit(f"{wheel}: not a vllm wheel's name")
    with zipfile.ZipFile(wheel) as whl:
        arg_utils = ast.parse(whl.read(ARG_UTILS).decode())
        llm = ast.parse(whl.read(LLM).decode())
    fields, line = class_fields(arg_utils, "EngineArgs")
    async_fields, async_line = class_fields(arg_utils, "AsyncEngineArgs")
    return match.group(1), {"wheel": wheel.name, "engine_args_line": line,
                            "async_line": async_line, "fields": sorted(fields),
                            "async_fields": sorted(async_fields), **llm_init(llm)}


def main(argv: list[str]) -> int:
    from kvplan.engines.release import read_release

    releases = dict(read(Path(a)) for a in argv)
    ordered = sorted(releases, key=lambda r: read_release(r).key())  # type: ignore[union-attr]
    out = {"data": "vLLM's Python API per release: benchmarks/extract_vllm_python.py",
           "releases": {r: releases[r] for r in ordered}}
    print(json.dumps(out, indent=1, sort_keys=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
