"""Print the options `python -m sglang.launch_server` accepts, per release, read with Python's ast
(nothing of SGLang is imported) from sglang wheels (task h70sglkw).

    python benchmarks/extract_sglang_flags.py /tmp/whl/sglang-0.5.23-*.whl   # sglang.py's FLAGS
    python benchmarks/extract_sglang_flags.py /tmp/whl/sglang-*.whl \
        > kvplan/check/engine_flags/sglang_releases.py

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

Run with one wheel it prints the lines of the FLAGS list of kvplan/check/engine_flags/sglang.py
(the 0.5.23 wheel: 559 options, that file's lines byte for byte). Run with several it prints the
module kvplan/check/engine_flags/sglang_releases.py: the releases read, oldest first, and for each
the options it added and removed against the one before it, so that the newest table (sglang.py)
and these steps give every release's set. Task h70sglkw ran it over the 119 wheels that module's
WHEELS names, every sglang release on PyPI from 0.3.0 to 0.5.23:

    for v in 0.3.0 ... 0.5.23; do pip download --no-deps sglang==$v -d /tmp/whl; done
    python benchmarks/extract_sglang_flags.py /tmp/whl/sglang-*.whl \
        > kvplan/check/engine_flags/sglang_releases.py
"""

from __future__ import annotations

import ast
import re
import sys
import zipfile
from pathlib import Path

SERVER_ARGS = "sglang/srt/server_args.py"
FIELDS = "sglang/srt/arg_groups/fields/"
WIDTH = 104


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


def read_wheel(path: Path) -> tuple[str, set[str]]:
    """(the release, its options) from a sglang wheel."""
    match = re.match(r"sglang-([^-]+)-", path.name)
    if match is None:
        raise SystemExit(f"{path.name}: not a sglang wheel's name")
    with zipfile.ZipFile(path) as wheel:
        names = wheel.namelist()
        server = ast.parse(wheel.read(SERVER_ARGS).decode())
        flags = add_argument_options(server)
        dataclass = "add_cli_args_from_dataclass" in ast.unparse(server)
        if dataclass:
            for node in ast.walk(server):
                if isinstance(node, ast.ClassDef) and node.name == "ServerArgs":
                    flags |= field_options(node.body)
            for name in sorted(n for n in names if n.startswith(FIELDS) and n.endswith(".py")):
                tree = ast.parse(wheel.read(name).decode())
                for node in ast.walk(tree):
                    if isinstance(node, ast.ClassDef):
                        flags |= field_options(node.body)
    return match.group(1), flags


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


def _words(flags: set[str], indent: int) -> list[str]:
    """The options, sorted, as one space-separated string literal over lines of at most WIDTH
    columns (implicit concatenation; each line after the first starts with the space)."""
    lines: list[str] = []
    text = ""
    for flag in sorted(flags):
        word = f" {flag}" if text or lines else flag
        if len(text) + len(word) + indent + 2 > WIDTH:
            lines.append(text)
            text, word = "", f" {flag}"
        text += word
    lines.append(text)
    return [" " * indent + f'"{line}"' for line in lines]


def module(releases: list[tuple[str, str, set[str]]]) -> str:
    """The generated module: WHEELS (release -> wheel, oldest first) and STEPS[release] =
    (added, removed) against the release before it in WHEELS, for every release but the oldest;
    the newest release's set is kvplan/check/engine_flags/sglang.py FLAGS."""
    out = [
        '"""The options `python -m sglang.launch_server` accepts in each sglang release read: '
        'the newest',
        "release's set is kvplan/check/engine_flags/sglang.py FLAGS, and STEPS gives, for each "
        "release but the",
        "oldest, the options it added and removed against the release before it. Generated by",
        "benchmarks/extract_sglang_flags.py (its rule in its docstring) from the sglang wheels on "
        "PyPI named",
        'in WHEELS; do not edit by hand: rerun it over the wheels."""',
        "",
        "from __future__ import annotations",
        "",
        "# release -> the wheel it was read from (sglang/srt/server_args.py and "
        "srt/arg_groups/fields/*.py),",
        "# oldest first",
        "WHEELS: dict[str, str] = {",
    ]
    out += [f'    "{rel}": "{wheel}",' for rel, wheel, _ in releases]
    out += ["}", "", "# release -> (options added, options removed) against the release before "
            "it in WHEELS,", "# each space-separated",
            "STEPS: dict[str, tuple[str, str]] = {"]
    before = releases[0][2]
    for rel, _, flags in releases[1:]:
        added, removed = flags - before, before - flags
        one = f'    "{rel}": ("{" ".join(sorted(added))}", "{" ".join(sorted(removed))}"),'
        if len(one) <= WIDTH:
            out.append(one)
        else:
            out.append(f'    "{rel}": (')
            for group in (added, removed):
                lines = _words(group, 8)
                lines[-1] += ","
                out += lines
            out.append("    ),")
        before = flags
    out += ["}", ""]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    read = [(*read_wheel(Path(p)), Path(p).name) for p in argv]
    if len(read) == 1:
        sys.stdout.write("\n".join(_table(read[0][1], 8)) + "\n")
        return 0
    read.sort(key=lambda r: release_key(r[0]))
    sys.stdout.write(module([(rel, wheel, flags) for rel, flags, wheel in read]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
