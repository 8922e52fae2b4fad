"""The command a Python call hands to a program, as far as the file states it, never run: the
words of an argument list (`["vllm", "serve", MODEL, "--max-model-len", "8192"]`) or the text of
a shell string (`"vllm serve ... &"`), for kvplan.check.manifests.python_servers.

Read: literals; names bound once (where the call sees them) to a literal, a list, an f-string or
a `+` of them (kvplan.check.manifests.python_values resolves each value: `os.environ.get("X",
default)`, argparse's `args.x` default, `int(...)` / `str(...)` of those, each noted); f-strings
and `+` of strings; a list's `*starred` list; `list + list`; `text.split()` and `shlex.split(text)`;
`" ".join(list)`; `sys.executable` as `python`. Any other piece is a hole: a shell variable
`${KVPLAN_PY_n}` the shell-script reader finds unset, whose message kvplan.check.manifests.
python_servers then says in the script's words (the Python expression and why it is not read).
A list changed after it is bound (`cmd.append(...)`, `cmd += [...]`) is a hole as a whole: the
words it holds when the call runs are not the ones it was bound to.
"""

from __future__ import annotations

import ast
import shlex
import string
from dataclasses import dataclass, field

from kvplan.check.manifests.python_values import Context, lookup, resolve

HOLE = "KVPLAN_PY_"
_DEPTH = 8
_MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "clear", "__setitem__"})


def _said(node: ast.AST) -> str:
    text = ast.unparse(node).splitlines()[0] if ast.unparse(node) else ""
    return text if len(text) <= 60 else text[:57] + "..."


def _field_head(name: str | None) -> str | None:
    """A format field's argument: `0` of `{0[0]}`, `m` of `{m.x}`, '' of `{}` (None: no field)."""
    return None if name is None else name.split(".", 1)[0].split("[", 1)[0]


@dataclass
class Render:
    """Renders a call's command pieces; `holes`: variable -> (Python expression, why not read)."""

    ctx: Context
    tree: ast.Module
    holes: dict[str, tuple[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    ints: list[str] = field(default_factory=list)  # non-str items of an argument list
    seen: list[str] = field(default_factory=list)  # the source of what a hole stands for
    changed: dict[str, int] = field(default_factory=dict)  # changed_lists(tree), once a file

    def hole(self, node: ast.AST, why: str) -> str:
        name = f"{HOLE}{len(self.holes) + 1}"
        self.holes[name] = (_said(node), why)
        self.seen.append(ast.unparse(node))
        if isinstance(node, ast.Name):  # what the name is bound to (a list changed later)
            self.seen.extend(ast.unparse(b[0]) for b in lookup(node.id, self.ctx)[0]
                             if b[0] is not None)
        return "${" + name + "}"

    def _single(self, node: ast.expr) -> ast.expr | None:
        """The one value a name is bound to where the call sees it (None: not that)."""
        if not isinstance(node, ast.Name):
            return None
        binds, _ = lookup(node.id, self.ctx)
        if len(binds) != 1 or binds[0][0] is None:
            return None
        return binds[0][0]

    def _changed(self, name: str) -> int | None:
        """The line where a list bound to `name` is changed in place, if anywhere in the file."""
        return self.changed.get(name)

    def text(self, node: ast.expr, depth: int = 0) -> str:
        """A string the call is given, its unread pieces holes."""
        if depth > _DEPTH:
            return self.hole(node, "names bound to names too deep to follow")
        if isinstance(node, ast.JoinedStr):
            out = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    out.append(str(part.value))
                elif isinstance(part, ast.FormattedValue):
                    if part.format_spec is not None or part.conversion not in (-1, 115):
                        out.append(self.hole(part.value, "a formatted value (a format spec or "
                                             "!r / !a conversion) kvplan does not apply"))
                    else:
                        out.append(self.text(part.value, depth + 1))
            return "".join(out)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.text(node.left, depth + 1) + self.text(node.right, depth + 1)
        formatted = self._formatted(node, depth)
        if formatted is not None:
            return formatted
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "join" and isinstance(node.func.value, ast.Constant) and \
                isinstance(node.func.value.value, str) and len(node.args) == 1:
            return node.func.value.value.join(self.words(node.args[0], depth + 1))
        if ast.unparse(node) == "sys.executable":
            self.notes.append("sys.executable: the Python running the script, read as `python`")
            return "python"
        bound = self._single(node)
        if bound is not None and isinstance(bound, (ast.JoinedStr, ast.BinOp, ast.Call)) and \
                not isinstance(resolve(bound, self.ctx).value, (str, int, float)):
            return self.text(bound, depth + 1)
        got = resolve(node, self.ctx)
        if got.read and isinstance(got.value, (str, int, float, bool)):
            self.notes.extend(n for n in got.notes if n not in self.notes)
            return str(got.value)
        return self.hole(node, got.why or "not a string")

    def _formatted(self, node: ast.expr, depth: int) -> str | None:
        """`"vllm serve {} ...".format(x)` and `"vllm serve %s ..." % x`: Python's own
        formatting of the pieces' text (a piece kvplan does not read stays a hole, as does a
        `.format` field with an index, a spec or a conversion: _format); None when `node` is
        neither, or the `%` format does not apply to strings (`%d`)."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "format" and isinstance(node.func.value, ast.Constant) and \
                isinstance(node.func.value.value, str) and \
                not any(isinstance(a, ast.Starred) for a in node.args) and \
                all(k.arg for k in node.keywords):
            return self._format(node.func.value.value, node, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and \
                isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            items = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            try:
                return node.left.value % tuple(self.text(e, depth + 1) for e in items)
            except (TypeError, ValueError, KeyError):
                return None
        return None

    def _format(self, text: str, call: ast.Call, depth: int) -> str | None:
        """`text.format(...)` field by field (string.Formatter's parse): a field with an index or
        attribute (`{0[0]}`), a format spec (`{:.3}`, `{:>{w}}`) or a !r / !a conversion is a
        hole, as in an f-string: applied to the piece's text it is not what Python gives the
        value (`{:.3}` of 0.95 is '0.95', of the text '0.95' it is '0.9'; `{0[0]}` of a piece
        kvplan did not read took the first character of its placeholder, '$'). None where
        Python raises (a field with no argument, numbering both automatic and manual)."""
        try:
            fields = [(literal, name, spec, conversion, _field_head(name)) for
                      literal, name, spec, conversion in string.Formatter().parse(text)]
        except ValueError:
            return None
        numbered = {head == "" for *_, head in fields if head is not None and
                    (head == "" or head.isdigit())}
        if len(numbered) > 1:
            return None  # automatic and manual numbering together: Python's ValueError
        keywords = {str(k.arg): k.value for k in call.keywords}
        out: list[str] = []
        auto = 0
        for literal, name, spec, conversion, head in fields:
            out.append(literal)
            if name is None or head is None:
                continue
            if head == "" or head.isdigit():
                index = int(head) if head else auto
                auto += not head
                arg = call.args[index] if index < len(call.args) else None
            else:
                arg = keywords.get(head)
            if arg is None:
                return None
            if name != head or spec or conversion not in (None, "s"):
                out.append(self.hole(arg, "a formatted value (an index or attribute, a format "
                                     "spec or !r / !a conversion) kvplan does not apply"))
            else:
                out.append(self.text(arg, depth + 1))
        return "".join(out)

    def words(self, node: ast.expr, depth: int = 0, strict: bool = False) -> list[str]:
        """The words of an argument list; `strict`: subprocess takes only strings (an int item
        raises TypeError when the script runs; recorded in `ints`)."""
        if depth > _DEPTH:
            return [self.hole(node, "names bound to names too deep to follow")]
        if isinstance(node, (ast.List, ast.Tuple)):
            out: list[str] = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    out.extend(self.words(e.value, depth + 1, strict))
                    continue
                if strict and isinstance(e, ast.Constant) and not isinstance(e.value, str):
                    self.ints.append(ast.unparse(e))
                out.append(self.text(e, depth + 1))
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.words(node.left, depth + 1, strict) + \
                self.words(node.right, depth + 1, strict)
        if isinstance(node, ast.Call) and not node.keywords:
            callee = ast.unparse(node.func)
            if callee == "shlex.split" and len(node.args) == 1:
                return _split(self.text(node.args[0], depth + 1), shlex_rules=True)
            if isinstance(node.func, ast.Attribute) and node.func.attr == "split" and \
                    not node.args:
                return _split(self.text(node.func.value, depth + 1), shlex_rules=False)
            if callee in ("list", "tuple") and len(node.args) == 1:
                return self.words(node.args[0], depth + 1, strict)
        if isinstance(node, ast.Name):
            changed = self._changed(node.id)
            if changed is not None:
                return [self.hole(node, f"a list changed after it is bound (line {changed}): "
                                  "kvplan does not follow what it holds when the call runs")]
            bound = self._single(node)
            if bound is not None:
                return self.words(bound, depth + 1, strict)
        got = resolve(node, self.ctx)
        if got.read and isinstance(got.value, list) and \
                all(isinstance(v, (str, int, float)) for v in got.value):
            self.notes.extend(n for n in got.notes if n not in self.notes)
            return [str(v) for v in got.value]
        return [self.hole(node, got.why or "not a list of strings")]


def changed_lists(tree: ast.Module) -> dict[str, int]:
    """name -> the first line where a list bound to it is changed in place (`cmd.append(...)`,
    `cmd[0] = ...`); read once a file (a walk per call was quadratic in the calls)."""
    out: dict[str, int] = {}
    for n in ast.walk(tree):
        name = None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                isinstance(n.func.value, ast.Name) and n.func.attr in _MUTATORS:
            name = n.func.value.id
        elif isinstance(n, (ast.Assign, ast.AugAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            name = next((t.value.id for t in targets if isinstance(t, ast.Subscript) and
                         isinstance(t.value, ast.Name)), None)
        if name is not None:
            line = getattr(n, "lineno", 0)
            out[name] = min(out.get(name, line), line)
    return out


def _split(text: str, shlex_rules: bool) -> list[str]:
    if not shlex_rules:
        return text.split()
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def sglang_split(command: str) -> tuple[dict[str, str], list[str]]:
    """SGLang's execute_shell_command (sglang 0.5.23 utils.py:473-486): every backslash-newline
    and backslash a space, words split on whitespace (no shell: quotes are characters), leading
    `KEY=VALUE` words the environment."""
    parts = command.replace("\\\n", " ").replace("\\", " ").split()
    env: dict[str, str] = {}
    i = 0
    while i < len(parts):
        part = parts[i]
        if "=" in part and not part.startswith(("-", "/")):
            key, _, value = part.partition("=")
            if key and key.replace("_", "").isalnum():
                env[key] = value
                i += 1
                continue
        break
    return env, parts[i:]
