"""argparse's defaults in a Python script (kvplan.check.manifests.python_values): `args.model`
where `args = parser.parse_args()` is bound once and `parser = argparse.ArgumentParser(...)` is
bound once in the same function (or at module level), read as the `default=` of the one
`parser.add_argument(...)` (or of an argument group of it) whose dest is `model`: `dest=`, else
the first long option with its dashes turned to underscores (`--max-model-len` is
max_model_len), else the first short one. As argparse does (Lib/argparse.py, `parse_known_args`
and `_get_values`), a string default is converted by `type=` (int, float, str: Python's own);
any other default is used as written; `action="store_true"` / `"store_false"` without a default
is False / True, and `action=argparse.BooleanOptionalAction` keeps the default it is given. The
value is said in a note: it is argparse's default, and the command line the script is run with
can change it.

A positional argument of `nargs="?"` is read so too (argparse gives it its default when the
command line has none: Lib/argparse.py `_get_values`, :2474-2481 in Python 3.11.7).

Not followed, each with its reason: an option without a default (None) or `required=True`, a
positional argument (other than `nargs="?"`), `parse_known_args` (its result is unpacked),
`parse_args([...])` of a list the file passes, a parser with `parents=`, `argument_default=`,
subparsers or a `set_defaults(...)` call (either can replace the default), a dest added twice, a
`type=` other than int, float or str applied to a string default, and keywords unpacked into the
call (`**opts`, which can hold the default, type or action).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kvplan.check.manifests.python_values import Context, Value

_PARSERS = "ArgumentParser"  # argparse.ArgumentParser, and subclasses named so
# (vLLM's FlexibleArgumentParser)
_TYPES: dict[str, Any] = {"int": int, "float": float, "str": str}
_GROUPS = frozenset({"add_argument_group", "add_mutually_exclusive_group"})


def _method(node: ast.expr | None, names: frozenset[str] | set[str]) -> tuple[str, str] | None:
    """(receiver, method) of `receiver.method(...)` with method in `names`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            isinstance(node.func.value, ast.Name) and node.func.attr in names:
        return node.func.value.id, node.func.attr
    return None


def _dest(call: ast.Call) -> tuple[str, str] | None:
    """(dest, how the command line names it) of an add_argument call; None when its names are
    not all written out."""
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not names or len(names) != len(call.args):
        return None
    said = next((n for n in names if n.startswith("--")), names[0])
    for k in call.keywords:
        if k.arg == "dest":
            if isinstance(k.value, ast.Constant) and isinstance(k.value.value, str):
                return k.value.value, said
            return None
    if not said.startswith("-"):
        return said, said  # a positional argument
    return said.lstrip("-").replace("-", "_"), said


def argparse_value(name: str, ctx: Context, depth: int) -> Value | None:
    """The value of `name` (`args.model`) as argparse's default; None when `args` is not bound
    once to `PARSER.parse_args()` (the caller then says why it is not read)."""
    from kvplan.check.manifests.python_values import Value, lookup, scope_of

    base, _, attr = name.partition(".")
    if "." in attr:
        return None
    binds, _ = lookup(base, ctx)
    if len(binds) != 1 or binds[0][0] is None:
        return None
    parsed = _method(binds[0][0], {"parse_args"})
    if parsed is None:
        return None
    call = binds[0][0]
    assert isinstance(call, ast.Call)
    opt = f"{name}: the command line's option {attr}"
    if call.args or call.keywords:
        return Value(why=f"{name}: parsed from {ast.unparse(call)[:50]}, arguments the file "
                     "passes that kvplan does not follow")
    parser = parsed[0]
    scope = scope_of(base, ctx)  # the parser where `args` is parsed: that scope, else the module
    if parser not in scope.binds:
        scope = ctx.module
    made = scope.binds.get(parser, [])
    if len(made) != 1 or not isinstance(made[0][0], ast.Call) or \
            not ast.unparse(made[0][0].func).endswith(_PARSERS):
        return Value(why=f"{opt} (argparse), from {parser}, which is not bound once to an "
                     "ArgumentParser(...) where the call sees it")
    own = [k.arg or "**" for k in made[0][0].keywords
           if k.arg in (None, "parents", "argument_default")]
    if own:
        return Value(why=f"{opt} (argparse): the parser's {', '.join(own)} can set its default, "
                     "which kvplan does not follow")
    receivers = {parser} | {g for g, b in scope.binds.items()
                            if len(b) == 1 and (_method(b[0][0], _GROUPS) or ("",))[0] == parser}
    calls = scope.calls
    if any(r in calls.get("set_defaults", {}) or r in calls.get("add_subparsers", {})
           for r in receivers):
        return Value(why=f"{opt} (argparse): the parser has subparsers or a set_defaults(...) "
                     "call, either of which can replace the default; kvplan does not follow them")
    found = [c for r in receivers for c in calls.get("add_argument", {}).get(r, [])
             if (_dest(c) or ("", ""))[0] == attr]
    unnamed = [c for r in receivers for c in calls.get("add_argument", {}).get(r, [])
               if _dest(c) is None]
    if len(found) != 1 or unnamed:
        why = (f"added {len(found)} times" if found and not unnamed else
               "not added by a parser.add_argument(...) whose names the file writes out")
        return Value(why=f"{opt} (argparse): {why}, so its default is not known")
    return _default(name, found[0], ctx, depth)


def _default(name: str, add: ast.Call, ctx: Context, depth: int) -> Value:
    from kvplan.check.manifests.python_values import Value, resolve

    dest = _dest(add)
    assert dest is not None
    said = dest[1]
    kw = {k.arg: k.value for k in add.keywords if k.arg is not None}
    where = f"{name}: the command line's {said} (argparse, line {add.lineno})"
    unpacked = next((k for k in add.keywords if k.arg is None), None)
    if unpacked is not None:  # `**opts`: default=, type= or action= kvplan cannot see
        return Value(why=f"{where}: **{ast.unparse(unpacked.value)[:30]} can set its default, "
                     "type or action, which kvplan does not follow")
    nargs = kw.get("nargs")
    optional = isinstance(nargs, ast.Constant) and nargs.value == "?"
    if not said.startswith("-") and not optional:  # nargs="?": its default when not given
        return Value(why=f"{where}, a positional argument: given on the command line the script "
                     "is run with, which the file does not fix")
    required = kw.get("required")
    if isinstance(required, ast.Constant) and required.value is True:
        return Value(why=f"{where}, required=True: given on the command line the script is "
                     "run with, which the file does not fix")
    action = kw.get("action")
    act = action.value if isinstance(action, ast.Constant) else None
    # argparse.BooleanOptionalAction (--x / --no-x) keeps the default it is given
    optional_bool = action is not None and ast.unparse(action).endswith("BooleanOptionalAction")
    if action is not None and act not in ("store", "store_true", "store_false") and \
            not optional_bool:
        return Value(why=f"{where}: action={ast.unparse(action)[:30]}, whose value kvplan does "
                     "not follow")
    if "default" not in kw:
        if act in ("store_true", "store_false"):
            got = Value(act == "store_false")
        else:
            return Value(why=f"{where}: no default (None), so the value is the command line's, "
                         "which the file does not fix")
    else:
        got = resolve(kw["default"], ctx, depth + 1)
        if not got.read:
            return got
    value = got.value
    cast = kw.get("type")
    if isinstance(value, str) and cast is not None:  # argparse converts a string default only
        convert = _TYPES.get(ast.unparse(cast))
        if convert is None:
            return Value(why=f"{where}: type={ast.unparse(cast)[:30]} converts its default "
                         f"{value!r} when the script runs, which kvplan does not do")
        try:
            value = convert(value)
        except (ValueError, TypeError, OverflowError) as err:
            return Value(why=f"{where}: argparse's type={ast.unparse(cast)} of its default "
                         f"{value!r} fails when the script runs ({err})")
    return Value(value, notes=[*got.notes, (
        f"{name}: argparse's default {value!r} for {said} (line {add.lineno}) is used, the "
        f"value the script runs with when its command line does not give {said}, which can "
        "change it")])
