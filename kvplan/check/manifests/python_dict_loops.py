"""`for k, v in {...}.items(): setattr(sa, k, v)`: the fields a loop over a literal dict sets on
an engine's args object (kvplan.check.manifests.python_attrs), read as the assignments they are
(task h100readers: the loop's `setattr` was noted as a computed field name and the script PASSed
with the dict's context_length and mem_fraction_static unread).

A dict's `.items()` gives its items in insertion order (Python's language reference, "Mapping
Types — dict": "Dictionaries preserve insertion order"), so the loop is one
`setattr(sa, "key", value)` per item, in the dict's order, at the `setattr`'s line. Read only
when that is all it can be: the dict is a literal (or a name bound once, in the scope, to one,
not changed after: no `d[...] =`, `del d[...]`, no mutating method, not handed to a call), every
key a str written out (no `**`), at most MAX_ITEMS items; the loop's target is the two names the
`setattr` passes, which its body does not rebind, and nothing in the body leaves the loop early
(`break`, `continue`, `return`, `raise`) nor an `else:` hangs on it. Otherwise the note says which
of these fails.
"""

from __future__ import annotations

import ast

from kvplan.check.manifests.python_values import Context, lookup

MAX_ITEMS = 64  # each item is one field the plan reads; a launcher's overrides are a handful
_MUTATORS = frozenset({"update", "pop", "popitem", "setdefault", "clear", "__setitem__",
                       "__delitem__", "__ior__"})
_EXITS = (ast.Break, ast.Continue, ast.Return, ast.Raise)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _walk(nodes: list[ast.stmt]) -> list[ast.AST]:
    """Every node of `nodes`, not descending into a nested function or class."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(nodes)
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return out


def dict_loop(call: ast.Call, parents: dict[int, tuple[ast.AST, str]], root: ast.AST,
              ctx: Context) -> tuple[ast.For, list[tuple[str, ast.expr]]] | str | None:
    """For `setattr(X, k, v)` (its name computed): (the `for` loop, (field, value node) of each
    item in order) when the loop is one over a literal dict's items as above; a str saying why
    not when the `setattr` is the body of a loop over some `.items()`; None otherwise."""
    up = parents.get(id(call))
    if up is None or not isinstance(up[0], ast.Expr):
        return None
    loop_of = parents.get(id(up[0]))
    if loop_of is None or not isinstance(loop_of[0], ast.For) or loop_of[1] != "body":
        return None
    loop = loop_of[0]
    it = loop.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and
            it.func.attr == "items" and not it.args and not it.keywords):
        return None
    names = [e.id for e in loop.target.elts if isinstance(e, ast.Name)] \
        if isinstance(loop.target, ast.Tuple) else []
    given = [a.id if isinstance(a, ast.Name) else "" for a in call.args[1:3]]
    if len(names) != 2 or given != names or len(call.args) != 3 or call.keywords:
        return (f"it is not setattr(object, KEY, VALUE) with the loop's own `for KEY, VALUE in "
                f"...items()` (line {loop.lineno})")
    said = f"the loop of line {loop.lineno}"
    body = _walk(loop.body)
    if loop.orelse or any(isinstance(n, _EXITS) for n in body):
        return f"{said} may stop early or run an `else:` (a break, continue, return or raise)"
    if any(isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Store)
           for n in body):
        return f"{said}'s body rebinds {' or '.join(names)}"
    source: ast.expr | None = it.func.value
    if isinstance(source, ast.Name):
        binds, _ = lookup(source.id, ctx)
        if len(binds) != 1 or not isinstance(binds[0][0], ast.Dict):
            return f"{source.id} is not a name bound once to a dict written out"
        changed = _changed(source.id, root, binds[0][1], loop.lineno)
        if changed:
            return f"{source.id} is changed before the loop ({changed})"
        source = binds[0][0]
    if not isinstance(source, ast.Dict):
        return f"{said} runs over {ast.unparse(it.func.value)[:40]}, not a dict written out"
    keys = [k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else None
            for k in source.keys]
    if any(k is None for k in keys):
        return f"{said} runs over a dict whose keys are not all written out as str"
    if len(keys) > MAX_ITEMS:
        return f"{said} runs over {len(keys):,} items, over the {MAX_ITEMS} kvplan reads"
    return loop, [(str(k), v) for k, v in zip(keys, source.values)]


def _changed(name: str, root: ast.AST, after: int, before: int) -> str:
    """How `name`'s dict is changed between lines `after` and `before` ("" when it is not):
    an item set or deleted, a mutating method, the dict handed to a call."""
    for node in ast.walk(root):
        line = getattr(node, "lineno", 0)
        if not after < line < before:
            continue
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
                node.value.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            return f"line {line}: `{ast.unparse(node)[:40]}`"
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                    f.value.id == name and f.attr in _MUTATORS:
                return f"line {line}: `{name}.{f.attr}(...)`"
            if any(isinstance(a, ast.Name) and a.id == name
                   for a in [*node.args, *(k.value for k in node.keywords)]):
                return f"line {line}: handed to {ast.unparse(f)[:30]}(...)"
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and \
                node.target.id == name:
            return f"line {line}: `{ast.unparse(node)[:40]}`"
    return ""
