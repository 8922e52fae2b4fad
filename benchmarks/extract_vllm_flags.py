"""Print kvplan/check/engine_flags/vllm.py: every option `vllm serve` accepts, read with Python's
ast (nothing of vLLM is imported) from a vllm wheel or the folder it was unpacked into.

    python benchmarks/extract_vllm_flags.py /tmp/whl/vllm-0.34.0-cp38-abi3-manylinux_2_28_x86_64.whl \
        > kvplan/check/engine_flags/vllm.py

What `vllm serve` registers (vllm/entrypoints/common/cli_args.py make_arg_parser, then
FrontendArgs.add_cli_args and AsyncEngineArgs.add_cli_args):
- the option strings of every `add_argument` call in vllm/engine/arg_utils.py and
  vllm/entrypoints/common/cli_args.py;
- `--field-name` for each field of a *FrontendArgs dataclass in cli_args.py
  (BaseFrontendArgs.add_cli_args adds one per field);
- `--no-X` for each boolean option: one whose field (the option's name, `-` read as `_`) is
  annotated with `bool` in EngineArgs (or in the *FrontendArgs class for its own fields), but not
  `bool | str | None`, which takes an optional value (arg_utils._compute_kwargs sets
  argparse.BooleanOptionalAction for these);
- FlexibleArgumentParser registers vllm.utils.argparse_utils.EnableDisableAction for
  BooleanOptionalAction: an `--enable-X` option also takes `--disable-X` (and the reverse),
  next to argparse's own `--no-enable-X` / `--no-disable-X`.

It prints VALUED after FLAGS: the options named like switches that take a value (valued()).
The table's MULTI_VALUE section below them is benchmarks/extract_multi_value.py's.

This is the rule the 0.33.0 table was made by (commit 8f93a90 printed that file byte for byte
from the 0.33.0 wheel), with one gap closed since (task h41flags034): the old rule read the
fields of EngineArgs only, so AsyncEngineArgs's `--enable-log-requests` (a BooleanOptionalAction,
arg_utils.py:3296-3299 in 0.34.0) got no `--disable-log-requests` / `--no-enable-log-requests`,
which vLLM accepts.
"""

from __future__ import annotations

import ast
import re
import sys
import zipfile
from pathlib import Path

ARG_UTILS = "vllm/engine/arg_utils.py"
CLI_ARGS = "vllm/entrypoints/common/cli_args.py"
WIDTH = 104  # the table: 8 spaces, then as many quoted options as fit in 104 columns


def read_sources(where: Path) -> tuple[str, dict[str, str]]:
    """(the wheel's file name, {path: text}) for the two modules, from a wheel or a folder."""
    if where.is_dir():
        return "", {p: (where / p).read_text() for p in (ARG_UTILS, CLI_ARGS)}
    with zipfile.ZipFile(where) as wheel:
        return where.name, {p: wheel.read(p).decode() for p in (ARG_UTILS, CLI_ARGS)}


def read_version(where: Path) -> str:
    """The release: from the wheel's name, else the folder's vllm/_version.py."""
    match = re.match(r"vllm-([^-]+)-", where.name)
    if match:
        return match.group(1)
    text = (where / "vllm/_version.py").read_text()
    found = re.search(r"__version__ = version = '([^']+)'", text)
    if found is None:
        raise SystemExit(f"no version in {where / 'vllm/_version.py'}")
    return found.group(1)


def _names(node: ast.expr | None) -> set[str]:
    """The plain names in an annotation (`bool | None` -> {bool, None})."""
    if node is None:
        return set()
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return set()
    out = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            out.add(sub.id)
        elif isinstance(sub, ast.Constant) and sub.value is None:
            out.add("None")
    return out


def is_bool(annotation: ast.expr | None) -> bool:
    """_compute_kwargs's test: holds bool, and is not the optional-valued bool | str | None."""
    names = _names(annotation)
    return "bool" in names and names != {"bool", "str", "None"}


def fields(cls: ast.ClassDef) -> dict[str, ast.expr]:
    return {st.target.id: st.annotation for st in cls.body
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)}


def classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}


def negations(option: str) -> list[str]:
    """What BooleanOptionalAction and EnableDisableAction add for a boolean option."""
    name = option[2:]
    out = [f"--no-{name}"]
    for prefix, inverse in (("enable-", "disable-"), ("disable-", "enable-")):
        if name.startswith(prefix):
            out.append(f"--{inverse}{name.removeprefix(prefix)}")
    return out


def add_argument_options(tree: ast.Module, annotations: dict[str, ast.expr]) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        opts = [a.value for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value[:1] == "-"]
        out.update(opts)
        for opt in opts:
            if opt.startswith("--") and is_bool(annotations.get(opt[2:].replace("-", "_"))):
                out.update(negations(opt))
    return out


def extract(sources: dict[str, str]) -> set[str]:
    engine = ast.parse(sources[ARG_UTILS])
    frontend = ast.parse(sources[CLI_ARGS])
    found = classes(engine)
    # EngineArgs's fields, and AsyncEngineArgs's own (its --enable-log-requests, a
    # BooleanOptionalAction: `vllm serve` takes --disable-log-requests / --no-enable-log-requests)
    engine_fields = fields(found["EngineArgs"])
    if "AsyncEngineArgs" in found:
        engine_fields.update(fields(found["AsyncEngineArgs"]))
    out = add_argument_options(engine, engine_fields) | add_argument_options(frontend, {})
    for name, cls in classes(frontend).items():
        if not name.endswith("FrontendArgs"):
            continue
        for field, annotation in fields(cls).items():
            opt = "--" + field.replace("_", "-")
            out.add(opt)
            if is_bool(annotation):
                out.update(negations(opt))
    return out


_SWITCH_PREFIXES = ("--enable-", "--disable-", "--no-")


def valued(sources: dict[str, str]) -> set[str]:
    """The options named like switches (`--enable-*`, `--disable-*`, `--no-*`, which kvplan reads
    as taking no value) that take one: a field of EngineArgs / AsyncEngineArgs or of a
    *FrontendArgs class so named whose annotation holds no bool (_compute_kwargs gives a bool
    field BooleanOptionalAction, any other a value; task h82shell: FrontendArgs's
    `disable_access_log_for_endpoints: str | None`, a comma-separated string)."""
    out: set[str] = set()
    for path in (ARG_UTILS, CLI_ARGS):
        for name, cls in classes(ast.parse(sources[path])).items():
            if name not in ("EngineArgs", "AsyncEngineArgs") and not name.endswith("FrontendArgs"):
                continue
            for field, annotation in fields(cls).items():
                opt = "--" + field.replace("_", "-")
                if opt.startswith(_SWITCH_PREFIXES) and "bool" not in _names(annotation):
                    out.add(opt)
    return out


def table(flags: set[str]) -> list[str]:
    """The quoted options, sorted, packed greedily into lines of at most WIDTH columns."""
    lines: list[str] = []
    line = ""
    for flag in sorted(flags):
        word = f'"{flag}",'
        if line and len(line) + 1 + len(word) > WIDTH:
            lines.append(line)
            line = ""
        line = f"{line} {word}" if line else " " * 8 + word
    if line:
        lines.append(line)
    return lines


def module(version: str, wheel: str, flags: set[str], switch_valued: set[str]) -> str:
    origin = f"the vllm-{version} wheel on PyPI ({wheel})" if wheel else f"vllm {version} source"
    head = f'''"""Every option `vllm serve` (vLLM {version}) accepts: the option strings of every ''' + \
        f'''add_argument call in
vllm/engine/arg_utils.py and vllm/entrypoints/common/cli_args.py, the fields of the *FrontendArgs
dataclasses (one `--field-name` each), `--no-X` for each boolean field (BooleanOptionalAction) and
the `--enable-X` / `--disable-X` pairs vllm.utils.argparse_utils.EnableDisableAction adds.
Extracted with Python's ast from the vllm {version} wheel by benchmarks/extract_vllm_flags.py;
regenerate from a newer release with it."""

from __future__ import annotations

SOURCE = {{
    'repo': 'vllm-project/vllm',
    'version': '{version}',
    'paths': 'vllm/engine/arg_utils.py, vllm/entrypoints/common/cli_args.py',
    'from': '{origin}',
}}

FLAGS: frozenset[str] = frozenset(
    [
'''
    tail = (
        "\n# Options named like switches (--enable-*, --disable-*, --no-*) that take a value: "
        "a field\n# so named whose annotation holds no bool (benchmarks/extract_vllm_flags.py "
        "valued()); kvplan\n# reads every other such option as taking none "
        "(kvplan.check.argv.takes_no_value).\n"
        "VALUED: frozenset[str] = frozenset(\n    [\n" + "\n".join(table(switch_valued))
        + "\n    ]\n)\n")
    return head + "\n".join(table(flags)) + "\n    ]\n)\n" + tail


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    where = Path(argv[0])
    wheel, sources = read_sources(where)
    sys.stdout.write(module(read_version(where), wheel, extract(sources), valued(sources)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
