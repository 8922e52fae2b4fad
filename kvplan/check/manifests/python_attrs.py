"""Fields set on an engine's args object after its construction, before the launch (task
h80sglpy): `sa = ServerArgs(model_path=...)`, then `sa.context_length = 8192`, then
`launch_server(sa)` / `sglang.Engine(server_args=sa)` starts SGLang with context_length 8192;
vLLM's the same way (task h81vllmpy): `ea = AsyncEngineArgs(model=...)`, `ea.max_model_len =
8192`, `AsyncLLMEngine.from_engine_args(ea)` (the launch is that call, Construction.start).

`server_args` finds the ServerArgs a start reads: `Engine(server_args=...)`'s, or the one
`launch_server(...)` / `run_server(...)` is given first or as `server_args=`.

Followed, as the reader follows names (kvplan.check.manifests.python_values): `NAME.field =
value` and `setattr(NAME, "field", value)` in the function (or module) that binds NAME once to
the args class, after that binding and before the launch, in the launch's own block or one
around it (an `if` both are in, the body of `if __name__ == "__main__":`); the last one before
the launch wins over the constructor's keyword, said in a note. Not followed, each named with
its line (an ERROR when the field moves the pool, as an unread keyword is; a note otherwise): an
assignment inside a loop, an `if`, a `try` or a `match` the launch is not in (it may not run, or
run again), one in another function, `op=` (`sa.x += 1`), one unpacked from a sequence, a value
kvplan does not read (a call's result, a parameter), `del NAME.field`, a change to a part of a
field (`NAME.field.x = 1`, `NAME.field[0] = 1`), a `setattr` inside an expression (a
comprehension, a lambda). A `setattr(NAME, k, v)` looping over a dict written out (`for k, v in
{...}.items()`) is one assignment per item (kvplan.check.manifests.python_dict_loops); another
`setattr` whose name is computed is noted, with why. NAME handed to another call before the
launch (`configure(sa)`) may change any field: noted. An attribute that is no field is what the
engine makes of it (python_api.PythonApi.unknown_attribute): the command line's spelling of a
field (`sa.tensor_parallel_size = 2`) is an ERROR naming the field to set, another name a note.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kvplan.check.manifests.python_dict_loops import dict_loop
from kvplan.check.manifests.python_values import Context, Value, resolve, scope_of
from kvplan.deploy import Problem

if TYPE_CHECKING:
    from kvplan.check.manifests.python_constructions import Construction

# block statements whose body may run zero times, more than once, or instead of another;
# `with` runs its body once and is not one of them
_GUARDS: dict[type, str] = {ast.For: "a loop", ast.AsyncFor: "a loop", ast.While: "a loop",
                            ast.If: "an if", ast.Try: "a try", ast.Match: "a match"}
if hasattr(ast, "TryStar"):  # Python 3.11
    _GUARDS[ast.TryStar] = "a try"
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# calls that read an object without changing it: handing the args object to them is no change
_READERS = frozenset({"print", "str", "repr", "isinstance", "hasattr", "getattr", "type", "id",
                      "vars", "len", "dataclasses.asdict"})
_LOGGERS = frozenset({"logger", "logging", "log", "LOGGER", "_logger"})

Chain = tuple[tuple[int, str, ast.stmt], ...]


@dataclass
class Assigned:
    """One assignment of a field: its name, value node (None: not read, `why`), line, block."""

    field: str
    value: ast.expr | None
    line: int
    chain: Chain
    why: str = ""


def _parents(root: ast.AST) -> dict[int, tuple[ast.AST, str]]:
    """Each node's parent and the parent's field holding it, within `root` (nested scopes too)."""
    out: dict[int, tuple[ast.AST, str]] = {}
    for node in ast.walk(root):
        for name, value in ast.iter_fields(node):
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    out[id(child)] = (node, name)
    return out


def _chain(node: ast.AST, root: ast.AST, parents: dict[int, tuple[ast.AST, str]],
           ) -> Chain | None:
    """The guarded blocks around `node` up to `root`, outermost first (a handler's body counts
    as its try's); None when a nested function or class lies between them."""
    out: list[tuple[int, str, ast.stmt]] = []
    at = node
    while at is not root:
        got = parents.get(id(at))
        if got is None:
            return None
        parent, name = got
        if isinstance(parent, _SCOPES) and parent is not root:
            return None
        if isinstance(parent, ast.ExceptHandler):
            name = "handlers"
        if isinstance(parent, tuple(_GUARDS)) and isinstance(parent, ast.stmt):
            out.append((id(parent), name, parent))
        at = parent
    return tuple(reversed(out))


def _field_of(t: ast.AST, var: str) -> tuple[str, bool] | None:
    """(field, whether the field itself is the target) of a target on `var`: `var.field`, or a
    part of it (`var.field.x`, `var.field[0]`: the field's own value is changed in place)."""
    inner = False
    while isinstance(t, (ast.Attribute, ast.Subscript)):
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == var:
            return t.attr, not inner
        t, inner = t.value, True
    return None


def _assignment(stmt: ast.AST, var: str) -> list[tuple[str, ast.expr | None, str]]:
    """(field, value node or None, why not read) of each field of `var` the statement sets."""
    out: list[tuple[str, ast.expr | None, str]] = []

    def target(t: ast.AST, value: ast.expr | None, why: str) -> None:
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                target(e.value if isinstance(e, ast.Starred) else e, None,
                       "unpacked from a sequence")
            return
        got = _field_of(t, var)
        if got is not None:  # a part of a field (before task h81hostile: passed over)
            out.append((got[0], value, why) if got[1] else
                       (got[0], None, f"`{ast.unparse(t)[:40]}` changes a part of it"))

    if isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            target(t, stmt.value, "")
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        target(stmt.target, stmt.value, "")
    elif isinstance(stmt, ast.AugAssign):
        target(stmt.target, None, "changed by `op=`")
    elif isinstance(stmt, ast.Delete):  # before task h81hostile: passed over
        for t in stmt.targets:
            target(t, None, "deleted by `del`")
    return out


def _setattr(call: ast.Call, var: str, statement: bool,
             ) -> tuple[str | None, ast.expr | None, str] | None:
    """(field or None when its name is computed, value node or None, why not read) of a
    `setattr(var, name, value)` call; a value is read only from a call that is a statement of
    its own (one inside a comprehension, a lambda or another expression may run any number of
    times, or not at all)."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "setattr" and call.args and
            isinstance(call.args[0], ast.Name) and call.args[0].id == var):
        return None
    name = call.args[1] if len(call.args) > 1 else None
    value = call.args[2] if len(call.args) == 3 and not call.keywords else None
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
        return None, None, ""
    if value is None:
        return name.value, None, "not setattr(object, name, value)"
    if not statement:
        return name.value, None, "set inside an expression (a comprehension, a lambda, a call)"
    return name.value, value, ""


def _handed(node: ast.Call, var: str) -> bool:
    """Whether the call is given the object `var` names (not to a reader: print, logging)."""
    func = ast.unparse(node.func)
    if func in _READERS or func.split(".")[0] in _LOGGERS or func == "setattr":
        return False
    given = [*node.args, *(k.value for k in node.keywords)]
    return any(isinstance(a, ast.Name) and a.id == var for a in given)


def _rebinds(node: ast.AST, root: ast.AST, parents: dict[int, tuple[ast.AST, str]],
             var: str) -> bool:
    """Whether a function (or class) between `node` and `root` binds `var` itself (a parameter,
    an assignment): its `var` is another object."""
    at: ast.AST = node
    while at is not root:
        got = parents.get(id(at))
        if got is None:
            return False
        at = got[0]
        if isinstance(at, _SCOPES) and at is not root:
            args = at.args if not isinstance(at, ast.ClassDef) else None
            params = [] if args is None else [
                a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                                *(x for x in (args.vararg, args.kwarg) if x is not None)]]
            if var in params or any(isinstance(n, ast.Name) and n.id == var and
                                    isinstance(n.ctx, ast.Store) for n in ast.walk(at)):
                return True
    return False


def _why_not(chain: Chain, launch: Chain) -> str:
    """Why an assignment in blocks `chain` is not followed to a launch in blocks `launch`."""
    for k, (key, name, stmt) in enumerate(chain):
        if k >= len(launch) or launch[k][:2] != (key, name):
            return f"inside {_GUARDS[type(stmt)]} (line {stmt.lineno}) the launch is not in"
    return ""


def assigned(c: Construction, name: ast.Name, launch: ast.Call, ctx: Context,
             ) -> list[Assigned]:
    """Every field assignment to `name` between its binding and the launch call (the launch's
    construction `c` collects the notes on what does not reach the launch)."""
    scope = scope_of(name.id, ctx)
    binds = scope.binds.get(name.id, [])
    bound_at = binds[0][1] if binds else 0
    root = scope.node
    parents = _parents(root)
    launch_chain = _chain(launch, root, parents)
    notes, what = c.notes, c.what
    out: list[Assigned] = []
    for node in ast.walk(root):
        if isinstance(node, ast.Call) and node is not launch and _handed(node, name.id) and \
                bound_at < node.lineno < launch.lineno and \
                _chain(node, root, parents) is not None:
            notes.append(f"{name.id} is handed to {ast.unparse(node.func)[:40]}(...) (line "
                         f"{node.lineno}) before {what} (line {launch.lineno}): a field it may "
                         "set there is not followed")
        sets: list[tuple[str, ast.expr | None, str]] = []
        loop: ast.For | None = None  # a loop over a literal dict's items (python_dict_loops)
        if isinstance(node, ast.Call):
            up = parents.get(id(node))
            got = _setattr(node, name.id, up is not None and isinstance(up[0], ast.Expr))
            if got is not None:
                field_name, given, why_not = got
                items = dict_loop(node, parents, root, _context(ctx, name)) \
                    if field_name is None else None
                if field_name is not None:
                    sets = [(field_name, given, why_not)]
                elif isinstance(items, tuple):
                    loop, sets = items[0], [(f, v, "") for f, v in items[1]]
                elif bound_at < node.lineno < launch.lineno:
                    notes.append(f"{ast.unparse(node)[:60]} (line {node.lineno}): the field's "
                                 "name is computed when the script runs" +
                                 (f" ({items})" if items else "") +
                                 "; the field it sets is not followed")
        elif isinstance(node, ast.stmt):
            sets = _assignment(node, name.id)
        if not sets or not isinstance(node, (ast.stmt, ast.expr)):
            continue
        chain = _chain(node, root, parents)
        if chain is not None and loop is not None:  # the loop runs once per item, in order
            chain = tuple(c for c in chain if c[2] is not loop)
        if chain is None and _rebinds(node, root, parents, name.id):
            continue  # a function's own variable of that name
        for field, value, why in sets:
            line = node.lineno
            if line <= bound_at:
                continue
            if chain is None or launch_chain is None:
                out.append(Assigned(field, None, line, (), "it and the launch (line "
                                    f"{launch.lineno}) are not in the same function's code, "
                                    "so kvplan does not know which runs first"))
            elif line >= launch.lineno:
                if not _why_not(chain, launch_chain):
                    notes.append(f"{name.id}.{field} (line {line}) is set after {what} (line "
                                 f"{launch.lineno}): the engine started with the value before")
            else:
                out.append(Assigned(field, value, line, chain, why or _why_not(chain,
                                                                              launch_chain)))
    return out


def attribute_keywords(c: Construction, name: ast.Name, launch: ast.Call, ctx: Context,
                       kws: list[tuple[str, Value, int]],
                       release: str | None = None) -> list[tuple[str, Value, int]]:
    """`kws` (the constructor's keywords) with the fields set on `name` before the launch: the
    last assignment of a field replaces its keyword; one not followed is a keyword not read.
    `release`: the pinned one, whose own fields say what is a field where kvplan read them
    (vLLM's, task h82vllmrel; the option table's otherwise)."""
    from kvplan.check.argv import TABLES
    from kvplan.check.manifests.python_words import _pinned

    api, notes, problems = c.api, c.notes, c.problems
    cls = ast.unparse(c.call.func).rsplit(".", 1)[-1]  # AsyncEngineArgs, EngineArgs, ServerArgs
    if cls not in api.args_classes:
        cls = api.args_classes[0]

    table = TABLES[api.engine][0]
    pinned = _pinned(c, release)
    spelled = dict(api.flag_spellings)
    own = dict(api.keyword_flags)
    by_field: dict[str, list[Assigned]] = {}
    for a in assigned(c, name, launch, ctx):
        by_field.setdefault(a.field, []).append(a)
    out = list(kws)
    for field, sets in by_field.items():
        last = sets[-1]
        said = f"{name.id}.{field} (line {last.line})"
        flag = own.get(field, "--" + field.replace("_", "-"))
        no_field = field in spelled or (flag not in table and field not in api.flagless)
        if pinned is not None:
            no_field = pinned.kind == "read" and not pinned.takes(field, cls)
        if no_field:
            real = spelled.get(field, "")
            if pinned is not None:
                from kvplan.engines.vllm_python import fields_source

                notes.append(f"{said}: not a field of {cls} in vLLM {pinned.release} "
                             f"({fields_source(pinned.below, cls)}): {api.unknown_attribute}; "
                             "kvplan does not read it either")
            elif real:
                problems.append(Problem(field, f"{said}: not a field of {cls} "
                                        f"({flag} is the command line's spelling of {real}): "
                                        f"{api.unknown_attribute}; set {name.id}.{real} "
                                        "instead", last.line))
            else:
                notes.append(f"{said}: not a field of {cls}: "
                             f"{api.unknown_attribute}; kvplan does not read it either")
            continue
        unread = [a for a in sets if a.why or a.value is None]
        if unread:
            a = unread[-1]
            why = f"{name.id}.{field} = ... (line {a.line}) is not followed: {a.why}"
            value = Value(why=why)
        else:
            assert last.value is not None
            value = resolve(last.value, _context(ctx, name))
            if not value.read:
                value = Value(why=f"{name.id}.{field} (line {last.line}): {value.why}")
        before = [k for k in out if k[0] == field]
        out = [k for k in out if k[0] != field]
        if before and value.read:  # an unread one is an ERROR or a note of its own
            notes.append(f"{said} replaces the {field}= of the {cls}(...) on "
                         f"line {before[0][2]}: the engine starts with the value set last")
        elif value.read:
            notes.append(f"{said}: set after {cls}(...) and before the launch "
                         f"(line {launch.lineno}): read as its keyword")
        out.append((field, value, last.line))
    return out


def server_args(c: Construction) -> ast.Call:
    """SGLang's `Engine(server_args=ServerArgs(...))` and `launch_server(ServerArgs(...))`: the
    ServerArgs call (`c.args_name` the name it is read from, whose later attribute assignments
    python_attrs follows); the Engine call itself when it is given keywords."""
    from kvplan.check.manifests.python_constructions import FIX, args_given
    from kvplan.check.manifests.python_values import Struct

    key = c.api.args_keyword
    if c.launch:
        given = args_given(c)
        if given is None:
            c.problems.append(Problem(key, f"{c.what}: no ServerArgs given (its first argument "
                                      f"or {key}=); {FIX}", c.line))
            return ast.Call(ast.Name("ServerArgs"), [], [])
    else:
        given = next((k.value for k in c.call.keywords if k.arg == key), None)
        if given is None:
            return c.call
        others = [k for k in c.call.keywords if k.arg != key]
        if others:  # read past in silence before task h70hostile
            names = ", ".join(f"{k.arg}=" if k.arg else f"**{ast.unparse(k.value)[:30]}"
                              for k in others)
            c.notes.append(f"line {others[0].value.lineno}: {names} passed over: given "
                           f"{key}=, {c.what} starts from that ServerArgs and reads no other "
                           f"keyword (Engine.__init__, srt/entrypoints/engine.py: `if "
                           f"\"server_args\" in kwargs: server_args = kwargs[\"server_args\"]`); "
                           "set them in the ServerArgs(...)")
    got = resolve(given, c.ctx)
    if got.read and isinstance(got.value, Struct) and \
            got.value.name.rsplit(".", 1)[-1] in c.api.args_classes:
        c.notes.extend(got.notes)
        if isinstance(given, ast.Name):
            c.args_name = given
        return got.value.node
    # the problem's field is the keyword, which the report prints before the message: say it
    # once (before task h81vllmpy, "server_args: server_args: server_args: a parameter ...")
    why = (got.why or "not a ServerArgs(...)").removeprefix(f"{key}: ")
    c.problems.append(Problem(key, f"{why}; {FIX}", c.line))
    return ast.Call(ast.Name("ServerArgs"), [], [])


def _context(ctx: Context, name: ast.Name) -> Context:
    """The context of the scope that binds `name` (where its assignments are)."""
    scope = scope_of(name.id, ctx)
    return Context(ctx.module, None if scope is ctx.module else scope, ctx.structs,
                   ctx.env_names)
