"""The value of a keyword in a Python script, as far as the file states it, never run.

Read: literals (str, int, float, bool, None, a unary minus), lists / tuples / dicts of them; a
name bound once, in the function the call is in or at module level, to such a value (`MODEL =
"Qwen/Qwen3-8B"`, `self.engine_args = EngineArgs(...)` in the same function);
`os.environ.get("X", default)` / `os.getenv("X", default)` with a default the file states (the
default is used, said in a note: the value the script runs with when X is unset); a call of one
of the classes the reader names (`KvCacheConfig(...)`) as the mapping of its keywords; argparse's
`args.x` as its `default=` (kvplan.check.manifests.python_argparse, noted).
Anything else is not read, with the reason: a computed value (`a + b`, a call kvplan does not
make, a conditional), a name bound more than once or not at all (a parameter of the function, an
import, a loop variable), `args.x` without a default argparse states in the file (the command
line the script is run with), `**kwargs` of unknown content.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

_DEPTH = 8  # names followed through names, at most


@dataclass
class Struct:
    """A call of a class the reader reads as its keywords (KvCacheConfig(...), EngineArgs(...))."""

    name: str
    node: ast.Call


@dataclass
class Value:
    """A keyword's value: `value` when read, else `why` it is not."""

    value: Any = None
    why: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def read(self) -> bool:
        return not self.why


# torch's dtypes a script hands to `dtype=` (vLLM's LLM takes `ModelDType | torch.dtype`,
# vllm/config/model.py:169 in 0.29.0): read as the --dtype word of the same precision; float64
# (torch.double), which no --dtype choice spells, is refused for the engine's reason
# (kvplan.check.manifests.python_words, PythonApi.float64_refused; task h71left)
_TORCH_DTYPES = {"torch.float16": "float16", "torch.half": "half", "torch.bfloat16": "bfloat16",
                 "torch.float32": "float32", "torch.float": "float", "torch.float64": "float64",
                 "torch.double": "float64"}


class TorchDtype(str):
    """A torch dtype attribute as the --dtype word of its precision, with its spelling."""

    spelled: str

    def __new__(cls, word: str, spelled: str) -> TorchDtype:
        made = super().__new__(cls, word)
        made.spelled = spelled
        return made

def _target_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


_PARSER_CALLS = frozenset({"add_argument", "set_defaults", "add_subparsers"})


class Scope:
    """The bindings of one function (or the module): name -> [(value node or None, line)]; a
    None value is a binding kvplan does not read (a parameter, a loop, an import, `+=`)."""

    def __init__(self, node: ast.AST, kind: str) -> None:
        self.kind = kind  # "module" | "function NAME"
        self.node = node  # the module or function whose bindings these are
        self.binds: dict[str, list[tuple[ast.expr | None, int, str]]] = {}
        # argparse's calls in this scope: method -> receiver name -> calls (python_argparse)
        self.calls: dict[str, dict[str, list[ast.Call]]] = {}
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg)
                                                                   if x is not None)]:
                self._bind(arg.arg, None, node.lineno, f"a parameter of {self.kind}, whose value "
                           "comes from its callers")
        for child in _own_nodes(node):
            self._read(child)

    def _bind(self, name: str, value: ast.expr | None, line: int, how: str = "") -> None:
        self.binds.setdefault(name, []).append((value, line, how))

    def _read(self, node: ast.AST) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.attr in _PARSER_CALLS:
            self.calls.setdefault(node.func.attr, {}).setdefault(node.func.value.id,
                                                                 []).append(node)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                self._target(t, node.value, node)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self._target(node.target, node.value, node)
        elif isinstance(node, ast.AugAssign):
            self._target(node.target, None, node, "changed by `op=`")
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            for n in ast.walk(node.target):
                name = _target_name(n)
                if name:
                    self._bind(name, None, getattr(node, "lineno", 0), "a loop variable")
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self._target(item.optional_vars, None, node, "bound by `with ... as`")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                name = (alias.asname or alias.name).split(".")[0]
                self._bind(name, None, node.lineno, "an import")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._bind(node.name, None, node.lineno, "a function or class")
        elif isinstance(node, ast.NamedExpr):
            self._target(node.target, node.value, node)

    def _target(self, t: ast.AST, value: ast.expr | None, node: ast.AST, how: str = "") -> None:
        name = _target_name(t)
        if name is not None:
            self._bind(name, value, getattr(node, "lineno", 0), how)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:  # `a, b = ...`: not read element by element
                self._target(e, None, node, "unpacked from a sequence")


def _own_nodes(node: ast.AST) -> list[ast.AST]:
    """The nodes of a scope's own body: nested functions, lambdas and classes are left out
    (their names are bound here, their bodies are scopes of their own)."""
    out: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        out.append(n)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(n, (ast.arguments,)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return out


@dataclass
class Context:
    """Where a call sits: its function's scope (None at module level) and the module's."""

    module: Scope
    function: Scope | None
    structs: tuple[str, ...] = ()  # classes read as their keywords (local names)
    env_names: tuple[str, ...] = ("os",)  # what `os` is called in the file


def _said(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


def _env_default(node: ast.Call, ctx: Context) -> tuple[str, ast.expr | None] | None:
    """(X, the default node) of os.environ.get("X", d) / os.getenv("X", d); None otherwise."""
    f = node.func
    dotted = ast.unparse(f)
    if dotted not in {f"{o}.environ.get" for o in ctx.env_names} | {
            f"{o}.getenv" for o in ctx.env_names}:
        return None
    if not node.args or not isinstance(node.args[0], ast.Constant) or \
            not isinstance(node.args[0].value, str):
        return None
    default = node.args[1] if len(node.args) > 1 else next(
        (k.value for k in node.keywords if k.arg == "default"), None)
    return node.args[0].value, default


def lookup(name: str, ctx: Context) -> tuple[list[tuple[ast.expr | None, int, str]], str]:
    """The bindings of `name` where the call sees it, and that scope's kind."""
    if ctx.function is not None and name in ctx.function.binds:
        return ctx.function.binds[name], ctx.function.kind
    return ctx.module.binds.get(name, []), "module"


def scope_of(name: str, ctx: Context) -> Scope:
    """The scope whose binding of `name` the call sees (its function's, else the module's)."""
    if ctx.function is not None and name in ctx.function.binds:
        return ctx.function
    return ctx.module


# why a bytes literal is not read (`LLM(b"org/model")`): the engines' options are str, int, float
# and bool values (task h100readers)
BYTES = "a bytes literal, not a str"

# builtins a value is passed through, as Python converts it (a name the file rebinds is not one)
_CASTS: dict[str, Any] = {"int": int, "float": float, "str": str}


def resolve(node: ast.expr, ctx: Context, depth: int = 0) -> Value:
    """The value `node` has when the script runs, as far as the file states it."""
    if depth > _DEPTH:
        return Value(why=f"{_said(node)}: names bound to names too deep to follow")
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool,
                                                                  type(None))):
        return Value(node.value)
    if isinstance(node, ast.Constant) and isinstance(node.value, bytes):
        return Value(why=f"{_said(node)}: {BYTES}")  # before: "computed when the script runs"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and \
            isinstance(node.operand, ast.Constant) and \
            isinstance(node.operand.value, (int, float)) and \
            not isinstance(node.operand.value, bool):
        return Value(-node.operand.value)
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [resolve(e, ctx, depth + 1) for e in node.elts]
        bad = next((v for v in items if not v.read), None)
        if bad is not None:
            return bad
        return Value([v.value for v in items], notes=[n for v in items for n in v.notes])
    if isinstance(node, ast.Dict):
        out: dict[str, Any] = {}
        notes: list[str] = []
        for k, v in zip(node.keys, node.values):
            if k is None or not isinstance(k, ast.Constant) or not isinstance(k.value, str):
                return Value(why=f"{_said(node)}: a mapping whose keys are not all written out")
            got = resolve(v, ctx, depth + 1)
            if not got.read:
                return got
            out[k.value] = got.value
            notes.extend(got.notes)
        return Value(out, notes=notes)
    if isinstance(node, ast.Call):
        env = _env_default(node, ctx)
        if env is not None:
            var, default = env
            if default is None:
                return Value(why=f"{_said(node)}: read from the environment variable {var} "
                             "when the script runs, with no default in the file")
            got = resolve(default, ctx, depth + 1)
            if not got.read:
                return got
            return Value(got.value, notes=[*got.notes, (
                f"{_said(node)}: its default {got.value!r} is used, the value the script runs "
                f"with when {var} is not set")])
        callee = ast.unparse(node.func)
        if callee in ctx.structs:
            return Value(Struct(callee, node))
        if callee in _CASTS and len(node.args) == 1 and not node.keywords and \
                not lookup(callee, ctx)[0]:  # int(os.environ.get("TP", "2")): Python's builtin
            got = resolve(node.args[0], ctx, depth + 1)
            if not got.read:
                return got
            try:
                cast = _CASTS[callee](got.value)
            except (ValueError, TypeError, OverflowError) as err:
                return Value(why=f"{_said(node)}: raises {type(err).__name__} when the script "
                             f"runs ({err})")
            return Value(cast, notes=got.notes)
        return Value(why=f"{_said(node)}: a value computed when the script runs (a call "
                     "kvplan does not make)")
    name = _target_name(node)
    if name is not None:
        binds, where = lookup(name, ctx)
        if not binds and "." in name:  # `args.model`: argparse's default, where the file has it
            from kvplan.check.manifests.python_argparse import argparse_value

            parsed = argparse_value(name, ctx, depth)
            if parsed is not None:
                return parsed
        if not binds and (name.startswith("args.") or name.startswith("opts.")):
            base = lookup(name.partition(".")[0], ctx)[0]
            if len(base) == 1 and base[0][2].startswith("a parameter of"):  # `def main(args)`
                return Value(why=f"{name}: {name.partition('.')[0]} is {base[0][2]} (line "
                             f"{base[0][1]}); kvplan does not follow its callers to a parser "
                             "and its defaults")
            return Value(why=f"{name}: an option of the command line the script is run with "
                         "(argparse), which the file does not fix")
        if not binds and name in _TORCH_DTYPES:
            return Value(TorchDtype(_TORCH_DTYPES[name], name))  # LLM(dtype=torch.bfloat16)
        if not binds:
            if "." in name:
                return Value(why=f"{name}: an attribute the file does not assign where the call "
                             "sees it")
            return Value(why=f"{name}: not bound in this file")
        if len(binds) > 1:
            lines = ", ".join(str(n) for n in sorted(b[1] for b in binds))
            return Value(why=f"{name}: bound {len(binds)} times in the {where} (lines {lines}); "
                         "kvplan does not follow which binding the call sees")
        value, line, how = binds[0]
        if value is None:
            return Value(why=f"{name}: {how or 'not a value the file states'} (line {line})")
        return resolve(value, ctx, depth + 1)
    return Value(why=f"{_said(node)}: a value computed when the script runs")
