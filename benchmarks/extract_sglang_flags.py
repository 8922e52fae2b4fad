"""Print the options `python -m sglang.launch_server` accepts, per release, read with Python's ast
(nothing of SGLang is imported) from sglang wheels (task h70sglkw), with each release's
multi-value options and the choices of its pool-moving options (task h71sglfix).

    python benchmarks/extract_sglang_flags.py /tmp/whl/sglang-0.5.23-*.whl   # sglang.py's FLAGS
    python benchmarks/extract_sglang_flags.py /tmp/whl/sglang-*.whl \
        > kvplan/check/engine_flags/sglang_releases.json

What ServerArgs.add_cli_args registers (sglang/srt/server_args.py; the parser is a plain
`argparse.ArgumentParser()` in every release read, so argparse's prefix matching holds):
- the option strings of every `add_argument` call in srt/server_args.py (every call in every
  release read names its options as string constants);
- `--no-X` for each long option of a call with `action=argparse.BooleanOptionalAction`;
- from 0.5.14, `add_cli_args_from_dataclass(parser, ServerArgs)` (srt/arg_groups/arg_utils.py):
  each field annotated `A[T, Arg(...)]` or `A[T, "help"]` of class ServerArgs (server_args.py)
  or, from 0.5.20, of the classes in srt/arg_groups/fields/*.py, unless Arg(no_cli=True); its
  names are Arg.cli_name (else `--field-name`) and Arg.aliases; an Arg(action=
  argparse.BooleanOptionalAction) adds `--no-X` too.

Multi-value options (argparse nargs "+" / "*"): the add_argument calls with such nargs, and the
fields add_cli_args_from_dataclass gives them (benchmarks/extract_multi_value.py's rule,
field_multi). Choices of CHOICE_OPTIONS (--kv-cache-dtype, --dtype, --attention-backend): the
`choices=` of their add_argument call or Arg(...), a list of string constants or a NAME bound
to one in server_args.py (module level, or inside add_cli_args: 0.5.0rc1 to 0.5.1's
ATTN_BACKENDS) or srt/arg_groups/choices.py (0.5.20 on), or A + B of those; anything else stops
the script. A release defining add_attention_backend_choices (0.5.2rc0 on) lets a plugin extend
--attention-backend's choices at run time: listed in `extendable`.

Run with one wheel it prints the lines of the FLAGS list of kvplan/check/engine_flags/sglang.py
(the 0.5.23 wheel: 559 options, that file's lines byte for byte). Run with several it prints the
JSON kvplan/check/engine_flags/sglang_releases.json (`data` says its keys): the releases read,
oldest first, and for each the options it added and removed against the one before it, so that
the newest table (sglang.py) and these steps give every release's set; its multi-value options
the same way; and the choices read. Task h70sglkw ran it over the 119 wheels its `wheels` names,
every sglang release on PyPI from 0.3.0 to 0.5.23 (then into a generated module of 565 lines,
which task h71sglfix replaced with the JSON, read by kvplan only when a release is stated):

    for v in 0.3.0 ... 0.5.23; do pip download --no-deps sglang==$v -d /tmp/whl; done
    python benchmarks/extract_sglang_flags.py /tmp/whl/sglang-*.whl \
        > kvplan/check/engine_flags/sglang_releases.json
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path
from typing import NamedTuple

SERVER_ARGS = "sglang/srt/server_args.py"
FIELDS = "sglang/srt/arg_groups/fields/"
WIDTH = 104


class Release(NamedTuple):
    release: str
    flags: set[str]
    choices: dict[str, list[str]]
    multi: set[str]
    hook: bool
    wheel: str


def _const(node: ast.expr | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _boolean_optional(node: ast.expr | None) -> bool:
    return node is not None and ast.unparse(node).endswith("BooleanOptionalAction")


def _negations(names: list[str]) -> list[str]:
    return ["--no-" + n[2:] for n in names if n.startswith("--")]


def add_argument_options(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        names = [str(_const(a)) for a in node.args if isinstance(_const(a), str)]
        if len(names) != len(node.args):
            raise SystemExit(f"add_argument at line {node.lineno} names an option that is no "
                             "string constant: read it by hand")
        names = [n for n in names if n.startswith("-")]
        out.update(names)
        if _boolean_optional(_kw(node, "action")):
            out.update(_negations(names))
    return out


def field_options(body: list[ast.stmt]) -> set[str]:
    """add_cli_args_from_dataclass's names for the annotated fields of one class body."""
    out: set[str] = set()
    for st in body:
        if not (isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)):
            continue
        ann = st.annotation
        if not (isinstance(ann, ast.Subscript) and ast.unparse(ann.value) in ("A", "Annotated")):
            continue
        elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        metas = elts[1:]
        arg = next((m for m in metas if isinstance(m, ast.Call) and ast.unparse(m.func) == "Arg"),
                   None)
        if arg is None:
            # _unwrap_annotated: a bare string is Arg(help=...); nothing else registers it
            if any(isinstance(_const(m), str) for m in metas):
                out.add("--" + st.target.id.replace("_", "-"))
            continue
        if _const(_kw(arg, "no_cli")) is True:
            continue
        cli = _const(_kw(arg, "cli_name")) or "--" + st.target.id.replace("_", "-")
        names = [str(cli)]
        aliases = _kw(arg, "aliases")
        if aliases is not None:
            if not isinstance(aliases, (ast.List, ast.Tuple)) or not all(
                    isinstance(_const(a), str) for a in aliases.elts):
                raise SystemExit(f"aliases of {st.target.id} (line {st.lineno}) are no list of "
                                 "string constants: read them by hand")
            names += [str(_const(a)) for a in aliases.elts]
        out.update(names)
        if _boolean_optional(_kw(arg, "action")):
            out.update(_negations(names))
    return out


# the options whose choices are read per release (task h71sglfix): the pool-moving ones kvplan
# reads whose value argparse checks against a list
CHOICE_OPTIONS = ("--kv-cache-dtype", "--dtype", "--attention-backend")
# the module-level files a `choices=NAME` is looked up in (NAME = [...] there): server_args.py,
# and from 0.5.20 srt/arg_groups/choices.py
CHOICE_FILES = (SERVER_ARGS, "sglang/srt/arg_groups/choices.py")
# a release whose server_args.py (or choices.py) defines this lets a plugin extend
# --attention-backend's choices at run time (0.5.2 on): a value outside the list read may be a
# plugin's
EXTEND_HOOK = "add_attention_backend_choices"


def _value(node: ast.expr | None, names: dict[str, ast.expr], what: str) -> list[str]:
    """A choices expression as its list of strings: a list or tuple of string constants, a
    module-level NAME bound to one, or A + B of those."""
    if isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(_const(e), str)
                                                        for e in node.elts):
        return [str(_const(e)) for e in node.elts]
    if isinstance(node, ast.Name) and node.id in names:
        return _value(names[node.id], names, what)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _value(node.left, names, what) + _value(node.right, names, what)
    raise SystemExit(f"choices of {what} ({ast.unparse(node) if node else None}) are no list "
                     "of string constants: read them by hand")


def _module_names(trees: list[ast.Module]) -> dict[str, ast.expr]:
    """NAME -> the value bound to it, at module level or inside a function (0.5.0rc1 to 0.5.1
    bind ATTN_BACKENDS inside add_cli_args); a NAME bound twice to different values is left
    out, so a choices= naming it stops the script."""
    out: dict[str, ast.expr] = {}
    twice: set[str] = set()
    for tree in trees:
        for st in ast.walk(tree):
            if (isinstance(st, ast.Assign) and len(st.targets) == 1
                    and isinstance(st.targets[0], ast.Name)):
                name = st.targets[0].id
                if name in out and ast.unparse(out[name]) != ast.unparse(st.value):
                    twice.add(name)
                out[name] = st.value
    return {k: v for k, v in out.items() if k not in twice}


def _arg_calls(trees: list[ast.Module]) -> list[tuple[list[str], ast.Call]]:
    """(option names, the call holding its keywords) of every add_argument call and every
    annotated dataclass field's Arg(...) (a field's names: cli_name or --field-name, aliases)."""
    out: list[tuple[list[str], ast.Call]] = []
    for tree in trees:
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "add_argument"):
                out.append(([str(_const(a)) for a in node.args if isinstance(_const(a), str)],
                            node))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                ann = node.annotation
                if not (isinstance(ann, ast.Subscript)
                        and ast.unparse(ann.value) in ("A", "Annotated")):
                    continue
                elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
                arg = next((m for m in elts[1:] if isinstance(m, ast.Call)
                            and ast.unparse(m.func) == "Arg"), None)
                if arg is None:
                    continue
                cli = _const(_kw(arg, "cli_name")) or "--" + node.target.id.replace("_", "-")
                aliases = _kw(arg, "aliases")
                names = [str(cli)] + ([str(_const(a)) for a in aliases.elts]
                                      if isinstance(aliases, (ast.List, ast.Tuple)) else [])
                out.append((names, arg))
    return out


def choices_of(trees: list[ast.Module], names: dict[str, ast.expr],
               flags: set[str]) -> dict[str, list[str]]:
    """CHOICE_OPTIONS -> the values argparse takes (in the source's order), for those the
    release has."""
    out: dict[str, list[str]] = {}
    for options, call in _arg_calls(trees):
        for option in CHOICE_OPTIONS:
            if option in options and option in flags:
                found = _kw(call, "choices")
                values = None if found is None else _value(found, names, option)
                if option in out and out[option] != values:
                    raise SystemExit(f"{option} is registered twice with other choices")
                if values is not None:
                    out[option] = values
    return out


def read_wheel(path: Path) -> tuple[str, set[str], dict[str, list[str]], set[str], bool]:
    """(the release, its options, CHOICE_OPTIONS' choices, its multi-value options, whether a
    plugin may extend --attention-backend's choices) from a sglang wheel."""
    from extract_multi_value import add_argument_multi, field_multi

    match = re.match(r"sglang-([^-]+)-", path.name)
    if match is None:
        raise SystemExit(f"{path.name}: not a sglang wheel's name")
    with zipfile.ZipFile(path) as wheel:
        names = wheel.namelist()
        server = ast.parse(wheel.read(SERVER_ARGS).decode())
        flags = add_argument_options(server)
        multi = add_argument_multi(server)
        trees = [server]
        dataclass = "add_cli_args_from_dataclass" in ast.unparse(server)
        if dataclass:
            for node in ast.walk(server):
                if isinstance(node, ast.ClassDef) and node.name == "ServerArgs":
                    flags |= field_options(node.body)
                    multi |= field_multi(node.body)
            for name in sorted(n for n in names if n.startswith(FIELDS) and n.endswith(".py")):
                tree = ast.parse(wheel.read(name).decode())
                trees.append(tree)
                for node in ast.walk(tree):
                    if isinstance(node, ast.ClassDef):
                        flags |= field_options(node.body)
                        multi |= field_multi(node.body)
        modules = [ast.parse(wheel.read(n).decode()) for n in CHOICE_FILES if n in names]
        hook = any(EXTEND_HOOK in ast.unparse(m) for m in modules)
        choices = choices_of(trees, _module_names(modules), flags)
    return match.group(1), flags, choices, multi & flags, hook


def release_key(text: str) -> tuple[tuple[int, ...], int, int]:
    """PEP 440 order for the releases read: 0.5.2rc0 < 0.5.2 < 0.5.2.post1."""
    found = re.fullmatch(r"(\d+(?:\.\d+)*)(?:rc(\d+))?(?:\.post(\d+))?", text)
    if found is None:
        raise SystemExit(f"{text}: not a release this script orders")
    numbers = tuple(int(p) for p in found.group(1).split("."))
    rc = int(found.group(2)) if found.group(2) is not None else 1 << 30
    return numbers, rc, int(found.group(3) or 0)


def _table(flags: set[str], indent: int) -> list[str]:
    """The quoted options, sorted, packed greedily into lines of at most WIDTH columns."""
    lines: list[str] = []
    line = ""
    for flag in sorted(flags):
        word = f'"{flag}",'
        if line and len(line) + 1 + len(word) > WIDTH:
            lines.append(line)
            line = ""
        line = f"{line} {word}" if line else " " * indent + word
    if line:
        lines.append(line)
    return lines


def _steps(sets: list[tuple[str, set[str]]]) -> dict[str, list[list[str]]]:
    """release -> [added, removed] (sorted) against the release before it; the first release
    gets its whole set as added."""
    out: dict[str, list[list[str]]] = {}
    before: set[str] = set()
    for rel, have in sets:
        out[rel] = [sorted(have - before), sorted(before - have)]
        before = have
    return out


def data(releases: list[Release]) -> str:
    """The JSON kvplan/check/engine_flags/sglang_releases.json, releases oldest first:
    - wheels: release -> the wheel it was read from;
    - steps: release -> [options added, options removed] against the release before it, for
      every release but the oldest (the newest release's set is sglang.py's FLAGS);
    - multi_value: release -> [added, removed] of its multi-value options (the oldest: all);
    - choices: option (CHOICE_OPTIONS) -> release -> its choices, at the oldest release with
      the option and each release where they change (null: the release lacks the option);
    - extendable: the releases whose --attention-backend choices a plugin may extend."""
    steps = _steps([(r.release, r.flags) for r in releases])
    del steps[releases[0].release]
    choices: dict[str, dict[str, list[str] | None]] = {}
    for option in CHOICE_OPTIONS:
        at: dict[str, list[str] | None] = {}
        last: list[str] | None = None
        for r in releases:
            now = r.choices.get(option)
            if now != last and (at or now is not None):
                at[r.release] = now
            last = now
        choices[option] = at
    doc = {
        "comment": "Generated by benchmarks/extract_sglang_flags.py (its rule in its docstring) "
                   "from the sglang wheels on PyPI named in wheels; do not edit by hand: rerun "
                   "it over the wheels.",
        "wheels": {r.release: r.wheel for r in releases},
        "steps": steps,
        "multi_value": _steps([(r.release, r.multi) for r in releases]),
        "choices": choices,
        "extendable": [r.release for r in releases if r.hook],
    }
    return json.dumps(doc, indent=1) + "\n"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    read = [Release(*read_wheel(Path(p)), Path(p).name) for p in argv]
    if len(read) == 1:
        sys.stdout.write("\n".join(_table(read[0].flags, 8)) + "\n")
        return 0
    read.sort(key=lambda r: release_key(r.release))
    sys.stdout.write(data(read))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
