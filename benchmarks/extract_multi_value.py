"""Print the options that take several values (argparse nargs="+" / "*") of SGLang's and vLLM's
servers, read with Python's ast (nothing of either engine is imported) from the folders their
wheels were unpacked into (task h43nargs):

    python benchmarks/extract_multi_value.py sglang /tmp/src/sglang-0.5.23
    python benchmarks/extract_multi_value.py vllm /tmp/src/vllm-0.34.0

SGLang 0.5.23 (sglang/srt/arg_groups/arg_utils.py add_cli_args_from_dataclass): every field of
the classes in srt/arg_groups/fields/ annotated `A[T, Arg(...)]` (or `A[T, "help"]`) and not
no_cli; its names are Arg.cli_name (else `--field-name`) and Arg.aliases. It takes several
values where
- Arg.action is set and Arg.action_kwargs holds nargs "+" / "*";
- else T, with Optional[...] / `X | None` taken off (_unwrap_optional: one non-None member
  only), is not a Literal, is `List[X]` / `list[X]` and Arg.type_parser is unset: nargs is
  Arg.nargs or "+";
- else (a scalar) Arg.nargs is "+" / "*".
Plus the add_argument calls of srt/server_args.py with nargs "+" / "*".

vLLM 0.34.0 (vllm/engine/arg_utils.py _compute_kwargs; FlexibleArgumentParser): an
add_argument call with nargs "+" / "*" in arg_utils.py or entrypoints/common/cli_args.py; and an
EngineArgs / *FrontendArgs field whose annotation is a list (`list[int]`, `list[str] | None`):
_compute_kwargs sets nargs="+" for a field whose type contains list (its `contains_type(type_hints,
list)` branch), unless the type is also a dict / JSON-parsed type (then one JSON value). The
options of a field are read from the add_argument calls that name its `**kwargs["field"]`.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

MULTI = {"+", "*"}


def _const(node: ast.expr | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _src(node: ast.expr) -> str:
    return ast.unparse(node)


def _unwrap_optional(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.Subscript) and _src(node.value) == "Optional":
        return node.slice
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        parts = [node.left, node.right]
        rest = [p for p in parts if _src(p) != "None"]
        if len(rest) == 1:
            return rest[0]
    if isinstance(node, ast.Subscript) and _src(node.value) == "Union":
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        rest = [p for p in items if _src(p) != "None"]
        if len(rest) == 1:
            return rest[0]
    return node


def _is_list(node: ast.expr) -> bool:
    return isinstance(node, ast.Subscript) and _src(node.value) in ("List", "list")


def multi_names(node: ast.stmt) -> list[str]:
    """The option names of one class-body statement that add_cli_args_from_dataclass makes take
    several values (the rule in the module's docstring); [] for any other statement."""
    if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
        return []
    ann = node.annotation
    if not (isinstance(ann, ast.Subscript) and _src(ann.value) in ("A", "Annotated")):
        return []
    elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
    inner, metas = elts[0], elts[1:]
    arg = next((m for m in metas if isinstance(m, ast.Call) and _src(m.func) == "Arg"), None)
    if arg is None and not any(isinstance(_const(m), str) for m in metas):
        return []
    call = arg or ast.Call(func=ast.Name("Arg"), args=[], keywords=[])
    if _const(_kw(call, "no_cli")) is True:
        return []
    nargs = _const(_kw(call, "nargs"))
    if _kw(call, "action") is not None and _const(_kw(call, "action")) is not None or (
            _kw(call, "action") is not None and not isinstance(_kw(call, "action"),
                                                                ast.Constant)):
        kwargs = _kw(call, "action_kwargs")
        taken = None
        if isinstance(kwargs, ast.Dict):
            taken = next((_const(v) for k, v in zip(kwargs.keys, kwargs.values)
                          if _const(k) == "nargs"), None)
        multi = taken in MULTI
    else:
        typ = _unwrap_optional(inner)
        if isinstance(typ, ast.Subscript) and _src(typ.value) == "Literal":
            multi = False
        elif _is_list(typ) and _kw(call, "type_parser") is None:
            multi = (nargs or "+") in MULTI
        else:
            multi = nargs in MULTI
    if not multi:
        return []
    cli = _const(_kw(call, "cli_name")) or "--" + node.target.id.replace("_", "-")
    aliases = _kw(call, "aliases")
    return [str(cli)] + ([str(_const(a)) for a in aliases.elts]
                         if isinstance(aliases, ast.List) else [])


def field_multi(body: list[ast.stmt]) -> set[str]:
    """The multi-value options of one dataclass body (benchmarks/extract_sglang_flags.py reads
    every release's with it, task h71sglfix)."""
    return {name for st in body for name in multi_names(st)}


def add_argument_multi(tree: ast.Module) -> set[str]:
    """The options of the add_argument calls with nargs "+" / "*" in one module."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument" and _const(_kw(node, "nargs")) in MULTI):
            out.update(str(_const(a)) for a in node.args
                       if isinstance(_const(a), str) and str(_const(a)).startswith("-"))
    return out


def sglang(root: Path) -> dict[str, str]:
    """option -> where (file:line) for SGLang's multi-value options."""
    out: dict[str, str] = {}
    base = root / "sglang/srt"
    for path in sorted((base / "arg_groups/fields").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            for name in multi_names(node) if isinstance(node, ast.stmt) else []:
                out[name] = f"srt/arg_groups/fields/{path.name}:{node.lineno}"
    out.update(_add_argument(base / "server_args.py", "srt/server_args.py"))
    return out


def _add_argument(path: Path, label: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        if _const(_kw(node, "nargs")) in MULTI:
            for a in node.args:
                if isinstance(_const(a), str) and str(_const(a)).startswith("-"):
                    out[str(_const(a))] = f"{label}:{node.lineno}"
    return out


def vllm(root: Path) -> dict[str, str]:
    arg_utils = root / "vllm/engine/arg_utils.py"
    cli_args = root / "vllm/entrypoints/common/cli_args.py"
    out = _add_argument(arg_utils, "vllm/engine/arg_utils.py")
    out.update(_add_argument(cli_args, "vllm/entrypoints/common/cli_args.py"))
    out.update(vllm_fields(root))
    return out




_BUILTIN = {"int", "str", "float", "bool", "None", "list", "dict", "tuple", "set", "Any",
            "Literal", "Path", "Callable", "type", "bytes", "object"}


def _members(node: ast.expr) -> list[ast.expr]:
    """get_type_hints: Annotated and Union / X | Y flattened, one level."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        node = ast.parse(node.value, mode="eval").body
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _members(node.left) + _members(node.right)
    if isinstance(node, ast.Subscript) and _src(node.value) in ("Union", "Optional",
                                                                 "Annotated"):
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if _src(node.value) == "Annotated":
            items = items[:1]
        return [m for item in items for m in _members(item)]
    return [node]


def _head(node: ast.expr) -> str:
    return _src(node.value if isinstance(node, ast.Subscript) else node).split(".")[-1]


def vllm_takes_several(annotation: ast.expr, dataclasses: set[str]) -> bool:
    """_compute_kwargs's branches in order: a dataclass member (one JSON value), {bool, str,
    None} (nargs "?"), bool, Literal: one value; then tuple / list / set: nargs "+" (a fixed
    tuple[int, int]: nargs 2)."""
    heads = {_head(m) for m in _members(annotation)}
    if heads & dataclasses or heads == {"bool", "str", "None"} or "bool" in heads:
        return False
    if "Literal" in heads:
        return False
    return bool(heads & {"tuple", "list", "set", "List", "Tuple", "Set"})


def _classes(paths: list[Path]) -> dict[str, dict[str, ast.expr]]:
    out: dict[str, dict[str, ast.expr]] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                out[node.name] = {st.target.id: st.annotation for st in node.body
                                  if isinstance(st, ast.AnnAssign)
                                  and isinstance(st.target, ast.Name)}
    return out


def vllm_fields(root: Path) -> dict[str, str]:
    """The field-typed options: `--x`, **<var>_kwargs["field"] in arg_utils.py, <var>_kwargs =
    get_kwargs(<Config class>); the *FrontendArgs fields of cli_args.py (less those whose nargs
    _customize_cli_kwargs deletes)."""
    arg_utils = root / "vllm/engine/arg_utils.py"
    cli_args = root / "vllm/entrypoints/common/cli_args.py"
    config = sorted((root / "vllm/config").glob("*.py"))
    classes = _classes(config + [cli_args])
    dataclasses = {name for name in classes if name[:1].isupper() and name not in _BUILTIN
                   and name not in {"Literal"}}
    out: dict[str, str] = {}
    tree = ast.parse(arg_utils.read_text())
    made: dict[str, str] = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and _src(node.value.func) == "get_kwargs" and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            made[node.targets[0].id] = _src(node.value.args[0])
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        opts = [str(_const(a)) for a in node.args if isinstance(_const(a), str)]
        star = next((k.value for k in node.keywords if k.arg is None), None)
        if not (opts and isinstance(star, ast.Subscript) and isinstance(star.value, ast.Name)):
            continue
        cls, field = made.get(star.value.id), _const(star.slice)
        annotation = classes.get(str(cls), {}).get(str(field))
        if annotation is None or _kw(node, "nargs") is not None or _kw(node, "type") is not None:
            continue
        if vllm_takes_several(annotation, dataclasses):
            for opt in opts:
                out[opt] = f"vllm/engine/arg_utils.py:{node.lineno} ({cls}.{field})"
    text = cli_args.read_text()
    for name, fields in classes.items():
        if not name.endswith("FrontendArgs"):
            continue
        for field, annotation in fields.items():
            if f'frontend_kwargs["{field}"]["nargs"]' in text:
                continue  # _customize_cli_kwargs deletes its nargs
            if vllm_takes_several(annotation, dataclasses):
                out["--" + field.replace("_", "-")] = (
                    f"vllm/entrypoints/common/cli_args.py ({name}.{field})")
    return out


if __name__ == "__main__":
    engine, where = sys.argv[1], Path(sys.argv[2])
    found = sglang(where) if engine == "sglang" else vllm(where)
    for option, place in sorted(found.items()):
        print(f"{option}\t{place}")
