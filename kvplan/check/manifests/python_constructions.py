"""Which calls in a Python script start an engine (kvplan.check.manifests.python_script): the
file's imports decide the engine a class belongs to (vLLM and TensorRT-LLM both call theirs
`LLM`), then each call of a class that starts one (`LLM(...)`, `sgl.Engine(...)`) or of a
launcher's `from_engine_args(EngineArgs(...))` is one construction, in file order. The engines'
Python APIs are kvplan.engines.python_api.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from kvplan.check.manifests.python_values import Context, Scope, Struct, Value, resolve
from kvplan.deploy import Problem
from kvplan.engines.python_api import (
    APIS,
    ENGINE_CONTEXT_BATCH,
    ENGINE_CONTEXT_SOURCE,
    PythonApi,
)

FIX = ("write the value in the script (a literal, or a name bound once to one), or describe "
       "the deployment in a kvplan/v1 file")


@dataclass
class Imports:
    """What the file imports: local name -> (module, name) and module alias -> module."""

    names: dict[str, tuple[str, str]] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)
    alias_lines: set[int] = field(default_factory=set)  # `Engine = vllm.LLM`, followed

    def origin(self, func: ast.expr) -> tuple[str, str] | None:
        """(the package root, the class name) a called name comes from, None when not imported."""
        got = _getattr(func)
        if got is not None:  # getattr(vllm, "LLM"): vllm.LLM
            base, attr = got
            if isinstance(attr, str) and base in self.modules:
                return self.modules[base].split(".")[0], attr
            return None
        if isinstance(func, ast.Name) and func.id in self.names:
            module, name = self.names[func.id]
            return module.split(".")[0], name
        if isinstance(func, ast.Attribute):
            parts = ast.unparse(func).split(".")
            if parts[0] in self.modules:
                return self.modules[parts[0]].split(".")[0], parts[-1]
        return None

    def module(self, func: ast.expr) -> str:
        """The whole dotted module a called name comes from ("" when not imported)."""
        got = _getattr(func)
        if got is not None:
            return self.modules.get(got[0], "")
        if isinstance(func, ast.Name) and func.id in self.names:
            return self.names[func.id][0]
        if isinstance(func, ast.Attribute):
            parts = ast.unparse(func).split(".")
            if parts[0] in self.modules:
                return ".".join([self.modules[parts[0]], *parts[1:-1]])
        return ""


def _getattr(node: ast.expr) -> tuple[str, str | None] | None:
    """(module alias, attribute) of `getattr(alias, "Name")` (a default, `getattr(vllm, "LLM",
    None)`, too: the module has the class), the attribute None when computed (`getattr(vllm,
    name)`); None when `node` is no such call."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == "getattr" and len(node.args) in (2, 3) and not node.keywords and \
            isinstance(node.args[0], ast.Name):
        attr = node.args[1]
        return node.args[0].id, (attr.value if isinstance(attr, ast.Constant) and
                                 isinstance(attr.value, str) else None)
    return None


def _aliases(tree: ast.Module, out: Imports) -> set[int]:
    """`Engine = vllm.LLM` / `Engine = LLM` / `Engine = getattr(vllm, "LLM")`, the name bound
    nowhere else in the file and only ever called (`Engine(...)`): Engine is the engine class
    under another name (recorded in `out`). The lines of those assignments (not a class handed
    on, references()); a name also used otherwise (`return Engine`) stays handed on."""
    seen: dict[str, int] = {}
    calls = [n.func for n in ast.walk(tree) if isinstance(n, ast.Call)]
    called = {id(f) for f in calls}
    by_name = {f.id for f in calls if isinstance(f, ast.Name)}  # `Engine(...)` somewhere
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in called:
            seen[node.id] = seen.get(node.id, 0) + 2  # used as a value: not followed
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            seen[node.id] = seen.get(node.id, 0) + 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            seen[node.name] = seen.get(node.name, 0) + 1
        elif isinstance(node, ast.arg):
            seen[node.arg] = seen.get(node.arg, 0) + 1
    lines: set[int] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and
                isinstance(node.targets[0], ast.Name) and
                isinstance(node.value, (ast.Name, ast.Attribute, ast.Call))):
            continue
        name = node.targets[0].id
        origin = out.origin(node.value)
        if origin is None or seen.get(name) != 1 or name not in by_name or name in out.names \
                or name in out.modules:  # `engine_cls = LLM` in a class body: self.engine_cls
            continue
        if any(api.package == origin[0] and origin[1] in api.starts for api in APIS):
            out.names[name] = (out.module(node.value), origin[1])
            lines.add(node.lineno)
    return lines


def read_imports(tree: ast.Module) -> Imports:
    out = Imports()
    stars: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                if a.name == "*":
                    stars.append(node.module)
                    continue
                out.names[a.asname or a.name] = (node.module, a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                out.modules[a.asname or a.name.split(".")[0]] = a.name if a.asname else \
                    a.name.split(".")[0]
    for module in stars:  # `from vllm import *`: the names the package's __all__ exports
        for api in APIS:
            if module == api.package:
                for name in api.star_names:
                    out.names.setdefault(name, (module, name))
    out.alias_lines = _aliases(tree, out)
    return out


@dataclass
class Construction:
    """One engine construction and what it says."""

    api: PythonApi
    line: int
    what: str  # how the script starts it: `LLM(...)`, `AsyncLLMEngine.from_engine_args(...)`
    ctx: Context
    call: ast.Call  # the call holding the keywords (EngineArgs(...), ServerArgs(...), LLM(...))
    stated: dict[str, tuple[Any, int, str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    words: tuple[str, ...] = ()  # command words the class itself adds (`--backend tensorrt`)
    launch: bool = False  # a server function given the args object (SGLang's launch_server(sa))
    # the name the args object is read from (`sa` of Engine(server_args=sa)), whose attributes
    # set after its construction are followed (kvplan.check.manifests.python_attrs)
    args_name: ast.Name | None = None
    # the call that starts the engine when `call` is the args object's (vLLM's
    # `AsyncLLMEngine.from_engine_args(ea)`, whose `call` is ea's AsyncEngineArgs(...))
    start: ast.Call | None = None


def _struct_names(imports: Imports, api: PythonApi) -> tuple[str, ...]:
    classes = (*api.args_classes, *api.config_classes)
    local = [n for n, (m, c) in imports.names.items()
             if m.split(".")[0] == api.package and c in classes]
    local += [f"{a}.{c}" for a, m in imports.modules.items() if m.split(".")[0] == api.package
              for c in classes]
    return tuple(local)


def _env_names(imports: Imports) -> tuple[str, ...]:
    return tuple(a for a, m in imports.modules.items() if m == "os") or ("os",)


def _usage(call: ast.Call, c: Construction) -> None:
    """from_engine_args' usage context: LLM_CLASS is the offline entrypoint, OPENAI_API_SERVER
    `vllm serve`'s, none (ENGINE_CONTEXT) SchedulerConfig's batch, stated in the record."""
    usage = next((k.value for k in call.keywords if k.arg == "usage_context"),
                 call.args[1] if len(call.args) > 1 else None)
    said = ast.unparse(usage).rsplit(".", 1)[-1] if usage is not None else "ENGINE_CONTEXT"
    if said == "LLM_CLASS":
        c.stated["engine.entrypoint"] = ("offline", c.line, f"{c.what}: usage_context")
    elif said == "ENGINE_CONTEXT":
        tokens, seqs = ENGINE_CONTEXT_BATCH
        c.stated["engine.max_num_batched_tokens"] = (tokens, c.line, f"{c.what}: ENGINE_CONTEXT")
        c.stated["engine.max_num_seqs"] = (seqs, c.line, f"{c.what}: ENGINE_CONTEXT")
        c.notes.append(f"{c.what} starts vLLM with usage context ENGINE_CONTEXT "
                       f"({ENGINE_CONTEXT_SOURCE}): planned with those unless the engine "
                       "arguments state them")
    elif said != "OPENAI_API_SERVER":
        c.problems.append(Problem("usage_context", f"{c.what}: usage_context "
                                  f"{ast.unparse(usage) if usage is not None else ''} is not "
                                  "one whose defaults kvplan knows (LLM_CLASS, OPENAI_API_SERVER "
                                  f"or none, ENGINE_CONTEXT); {FIX}", c.line))


def scoped_calls(node: ast.AST, function: Scope | None = None, loop: ast.AST | None = None,
                 ) -> Iterator[tuple[ast.Call, Scope | None, ast.AST | None]]:
    """Every call under `node` in tree order, with the function it is in (None: the module) and
    the innermost loop or comprehension around it within that function (None: none); shared by
    the engine constructions and the program starts (python_servers.starts)."""
    for child in ast.iter_child_nodes(node):
        scope, inner = function, loop
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope, inner = Scope(child, f"function {child.name}"), None
        elif isinstance(child, ast.ClassDef) and function is None:
            # a module-level class body runs once, when the class is defined: its own bindings
            # (`engine_args = AsyncEngineArgs(...)` there), then the module's (task h81vllmpy;
            # before, the module's only: "not bound in this file")
            scope, inner = Scope(child, f"class {child.name}"), None
        elif isinstance(child, LOOPS):
            inner = child
        if isinstance(child, ast.Call):
            yield child, function, loop
        yield from scoped_calls(child, scope, inner)


def constructions(tree: ast.Module, imports: Imports) -> list[Construction]:
    module = Scope(tree, "module")
    out: list[Construction] = []
    for call, function, loop in scoped_calls(tree):
        found = _construction(call, imports, module, function)
        if found is not None:
            if loop is not None:
                found.notes.append(_in_loop(found, loop))
            out.append(found)
    return sorted(out, key=lambda c: c.line)


LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.GeneratorExp,
         ast.DictComp)


def _in_loop(c: Construction, loop: ast.AST) -> str:
    kind = "a comprehension" if isinstance(loop, (ast.ListComp, ast.SetComp, ast.GeneratorExp,
                                                  ast.DictComp)) else "a loop"
    return (f"{c.what} (line {c.line}) is inside {kind} (line {getattr(loop, 'lineno', 0)}): "
            "each pass starts another engine; kvplan plans one, as started once (an engine "
            "not yet freed still holds its memory when the next one starts)")


# calls that take a class to test it, not to start it
_TESTS = frozenset({"isinstance", "issubclass", "type"})


def references(tree: ast.Module, imports: Imports) -> list[tuple[int, str]]:
    """(line, what) of each engine class handed on as a value instead of called
    (`functools.partial(LLM, ...)`, `ray.remote(LLM)`, `cls = LLM`): the engine starts where
    that value is called, which kvplan does not follow."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        values: list[ast.expr] = []
        if isinstance(node, ast.Call) and ast.unparse(node.func) not in _TESTS:
            values = [*node.args, *(k.value for k in node.keywords)]
            computed = _getattr(node.func)
            module = imports.modules.get(computed[0], "") if computed is not None else ""
            if computed is not None and computed[1] is None and \
                    any(module.split(".")[0] == api.package for api in APIS):
                out.append((node.lineno, _computed(node.func, module)))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and \
                node.lineno not in imports.alias_lines:
            values = [node.value]
        for v in values:
            origin = imports.origin(v) if isinstance(v, (ast.Name, ast.Attribute, ast.Call)) \
                and (not isinstance(v, ast.Call) or _getattr(v) is not None) else None
            if origin is None:
                continue
            for api in APIS:
                if api.package == origin[0] and origin[1] in api.starts:
                    out.append((v.lineno, f"{ast.unparse(v)} ({api.engine}'s engine class) is "
                                f"handed on as a value in `{_short(node)}`, not called: the "
                                "engine starts where that value is called, with keywords "
                                "kvplan does not join; call the class itself with its keywords "
                                "(`LLM(model=..., ...)`), or describe the deployment in a "
                                "kvplan/v1 file"))
                elif api.package == origin[0] and \
                        (imports.module(v), origin[1]) in api.server_functions:
                    out.append((v.lineno, f"{ast.unparse(v)} ({api.engine}'s server function) "
                                f"is handed on as a value in `{_short(node)}`, not called: the "
                                "server starts where that value is called, with a ServerArgs "
                                "kvplan does not join; call it with its ServerArgs "
                                "(`launch_server(ServerArgs(...))`), or describe the "
                                "deployment in a kvplan/v1 file"))
    return sorted(out)


def _computed(func: ast.expr, module: str) -> str:
    return (f"`{_short(func)}(...)` calls an attribute of {module} whose name is computed when "
            "the script runs: kvplan does not follow which class it starts; call the class by "
            "its name (`LLM(...)`, `vllm.LLM(...)`, `getattr(vllm, \"LLM\")(...)`), or describe "
            "the deployment in a kvplan/v1 file")


def _short(node: ast.AST) -> str:
    text = ast.unparse(node).splitlines()[0]
    return text if len(text) <= 60 else text[:57] + "..."


def _construction(call: ast.Call, imports: Imports, module: Scope,
                  function: Scope | None) -> Construction | None:
    origin = imports.origin(call.func)
    if origin is None and isinstance(call.func, ast.Attribute) and \
            call.func.attr == "from_engine_args":
        base = imports.origin(call.func.value)
        origin = (base[0], f"{base[1]}.from_engine_args") if base is not None else None
    if origin is None:
        return None
    package, name = origin
    for api in APIS:
        if api.package != package:
            continue
        ctx = Context(module, function, _struct_names(imports, api), _env_names(imports))
        what = f"{ast.unparse(call.func)}(...)"
        if name in api.starts:
            words = dict(api.module_words).get(imports.module(call.func), ())
            c = Construction(api, call.lineno, what, ctx, call, words=words)
            if words:
                c.notes.append(f"{what} (line {call.lineno}) is the {name} of "
                               f"{imports.module(call.func)}: planned as `{' '.join(words)}`")
            if api.entrypoint is not None:
                c.stated["engine.entrypoint"] = (api.entrypoint, call.lineno, what)
            return c
        launcher = name.removesuffix(".from_engine_args")
        if launcher != name and launcher in api.launchers:
            return _from_engine_args(call, api, what, ctx)
        if (imports.module(call.func), name) in api.server_functions:
            return Construction(api, call.lineno, what, ctx, call, launch=True)
    return None


def _from_engine_args(call: ast.Call, api: PythonApi, what: str, ctx: Context) -> Construction:
    arg = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == "engine_args"), None)
    c = Construction(api, call.lineno, what, ctx, ast.Call(ast.Name("EngineArgs"), [], []),
                     start=call)
    got = resolve(arg, ctx) if arg is not None else Value(why="no engine arguments given")
    if not got.read or not isinstance(got.value, Struct) or \
            got.value.name.rsplit(".", 1)[-1] not in api.args_classes:
        why = got.why or f"{ast.unparse(arg) if arg is not None else ''}: not an EngineArgs(...)"
        c.problems.append(Problem("engine_args", f"{what}: its engine arguments are not read "
                                  f"({why}); {FIX}", call.lineno))
        return c
    c.call = got.value.node
    c.notes.extend(got.notes)
    if isinstance(arg, ast.Name):  # `ea.field = v` before the launch (python_attrs)
        c.args_name = arg
    _usage(call, c)
    return c


def args_given(c: Construction) -> ast.expr | None:
    """The args object a server function is given: its first positional argument or
    `server_args=` (SGLang's launch_server(server_args, ...))."""
    if c.call.args and not isinstance(c.call.args[0], ast.Starred):
        return c.call.args[0]
    return next((k.value for k in c.call.keywords if k.arg == c.api.args_keyword), None)
