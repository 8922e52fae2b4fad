"""The mutations benchmarks/sweep.py runs through the commands (split from it): each key
path's value replaced by a hostile value, deleted or duplicated (YAML/JSON), and scripts' and
logs' lines cut, flags swapped, repeated, given bad values or unknown names, non-UTF-8 bytes."""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Iterator
from typing import Any

import yaml

DEEP: Any = []
for _ in range(49):
    DEEP = [DEEP]
VALUES: list[tuple[str, Any]] = [
    ("null", None), ("empty", ""), ("abc", "abc"), ("minus1", -1), ("zero", 0),
    ("1e30", 10**30), ("1.5", 1.5), ("list", []), ("map", {}), ("true", True),
    ("long", "x" * 10_000), ("deep", DEEP),
]


# ---- structured mutations -------------------------------------------------------------------

def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(node, dict):
        for k, v in node.items():
            yield (*prefix, k)
            yield from _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield (*prefix, i)
            yield from _paths(v, (*prefix, i))


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for p in path[:-1]:
        doc = doc[p]
    return doc


DUP = "__kvplan_sweep_duplicate__"


def dump_docs(docs: list[Any], fmt: str, header: str) -> str:
    if fmt == "json":
        return json.dumps(docs[0], indent=2)
    body = yaml.safe_dump_all(docs, sort_keys=False, width=10**6, allow_unicode=True)
    return header + body


def _dedup_marker(text: str, key: Any, fmt: str) -> str:
    """The duplicate's placeholder key spelled as the original key (a real duplicate)."""
    if fmt == "json":
        return text.replace(json.dumps(DUP), json.dumps(str(key)), 1)
    return text.replace(DUP, str(key), 1)


def structured_mutants(docs: list[Any], fmt: str, header: str, paths_per_doc: int,
                       rng: random.Random) -> Iterator[tuple[str, str, str, str]]:
    """(dotted path, mutation, original value type, text) per mutant."""
    for d, doc in enumerate(docs):
        paths = list(_paths(doc))
        if paths_per_doc and len(paths) > paths_per_doc:
            paths = rng.sample(paths, paths_per_doc)
        for path in paths:
            dotted = ".".join(str(p) for p in path)
            if len(docs) > 1:
                dotted = f"doc{d}:{dotted}"
            orig = _parent(doc, path)[path[-1]]
            otype = type(orig).__name__
            for name, value in VALUES:
                mutant = copy.deepcopy(docs)
                _parent(mutant[d], path)[path[-1]] = copy.deepcopy(value)
                yield dotted, name, otype, dump_docs(mutant, fmt, header)
            mutant = copy.deepcopy(docs)
            parent = _parent(mutant[d], path)
            del parent[path[-1]]
            yield dotted, "delete", otype, dump_docs(mutant, fmt, header)
            if isinstance(path[-1], str):
                mutant = copy.deepcopy(docs)
                parent = _parent(mutant[d], path)
                items = list(parent.items())
                parent.clear()
                for k, v in items:
                    parent[k] = v
                    if k == path[-1]:
                        parent[DUP] = copy.deepcopy(v)
                text = _dedup_marker(dump_docs(mutant, fmt, header), path[-1], fmt)
                yield dotted, "duplicate", otype, text


# ---- text mutations (scripts, logs, traces) ---------------------------------------------------

FLAG = re.compile(r"(--[A-Za-z][\w-]*)(=|\s+)([^\s\\'\"-][^\s\\'\"]*)")
DIRECTIVE = re.compile(r"^(#\s*kvplan:\s*)([\w.-]+)=(\S*)", re.M)


KWARG = re.compile(r"\b([a-z][a-z0-9_]{2,})(=|': )(\d+(?:\.\d+)?)\b")  # logs: ServerArgs, dicts


def _num(value: str) -> str:
    return "num" if re.fullmatch(r"\d+(\.\d+)?", value) else "text"


PROBE = "--kvplan-sweep-unknown 7 "


def _offsets(text: str) -> list[int]:
    """The offset where each line starts (index 0 is line 1)."""
    starts, at = [], 0
    for line in text.splitlines(keepends=True):
        starts.append(at)
        at += len(line)
    return starts + [at]


def _python_dead(text: str) -> list[tuple[int, int]]:
    """The spans of a Python file's comments and string statements (docstrings): text, not
    code. A file that does not parse: its `#` lines only."""
    import ast
    import io
    import tokenize

    starts = _offsets(text)
    lines = text.splitlines(keepends=True)

    def at(row: int, col: int, utf8: bool) -> int:  # ast's columns count UTF-8 bytes
        line = lines[row - 1] if row - 1 < len(lines) else ""
        if utf8:
            col = len(line.encode("utf-8")[:col].decode("utf-8", "ignore"))
        return starts[row - 1] + col

    dead: list[tuple[int, int]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                dead.append((at(*tok.start, False), at(*tok.end, False)))
        tree = ast.parse(text)
    except (SyntaxError, tokenize.TokenError, ValueError):
        return [(starts[k], starts[k + 1]) for k, line in enumerate(lines)
                if line.lstrip().startswith("#")]
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and \
                isinstance(node.value.value, str) and node.end_lineno is not None:
            dead.append((at(node.lineno, node.col_offset, True),
                         at(node.end_lineno, node.end_col_offset or 0, True)))
    return dead


def _cell_live(source: str) -> bool:
    """Whether the probe sits in a notebook code cell's live code: not in a Python comment or
    docstring, nor (a cell of `!` / `%` shell lines) in a shell comment."""
    from kvplan.check.manifests.shell_quotes import dead_spans

    at = source.find(PROBE)
    if at < 0:
        return False
    dead = _python_dead(source)
    if any(line.lstrip().startswith(("!", "%")) for line in source.splitlines()):
        dead += dead_spans(source)
    return not any(a <= at < b for a, b in dead)


def _notebook_live(mutated: str) -> bool:
    try:
        book = json.loads(mutated)
    except ValueError:
        return False
    for cell in book.get("cells", []) if isinstance(book, dict) else []:
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if cell.get("cell_type") == "code" and _cell_live(source):
            return True
    return False


def live_flags(text: str, flags: list[re.Match[str]], suffix: str) -> list[re.Match[str]]:
    """The flags the unknown-option probe may go before: in live code or arguments, not in a
    comment, a docstring, a heredoc body or a notebook's markdown cell (task h80shell: 16 of the
    sweep's 18 false positives of the stop before were probes inserted in such text, which
    kvplan rightly does not read)."""
    if suffix == ".ipynb":
        return [m for m in flags if _notebook_live(text[:m.start()] + PROBE + text[m.start():])]
    if suffix == ".py":
        dead = _python_dead(text)
    else:  # a shell script, a Dockerfile, a log: `#` comments and heredoc bodies
        from kvplan.check.manifests.shell_quotes import dead_spans

        dead = dead_spans(text)
    return [m for m in flags if not any(a <= m.start() < b for a, b in dead)]


def text_mutants(text: str, rng: random.Random, suffix: str = ".sh"
                 ) -> Iterator[tuple[str, str, str, str]]:
    """(what was mutated, mutation, "num"/"text"/"directive"/"bytes", text) per mutant; `suffix`:
    the file's, which says what in it is live code (live_flags)."""
    lines = text.splitlines(keepends=True)
    for _ in range(3):
        if len(lines) > 1:
            cut = rng.randrange(1, len(lines))
            yield f"line{cut + 1}", "truncate", "text", "".join(lines[:cut])
    flags = list(FLAG.finditer(text))
    if len(flags) >= 2:
        a, b = rng.sample(flags, 2)
        first, second = sorted((a, b), key=lambda m: m.start())
        swapped = (text[:first.start(3)] + second.group(3) + text[first.end(3):second.start(3)]
                   + first.group(3) + text[second.end(3):])
        yield f"{first.group(1)}/{second.group(1)}", "swap", "text", swapped
    for m in rng.sample(flags, min(3, len(flags))):
        again = f"{m.group(0)} {m.group(1)}{m.group(2)}{m.group(3)}"
        yield m.group(1), "repeat", "text", text[:m.start()] + again + text[m.end():]
        for name, value in (("abc", "abc"), ("minus1", "-1"), ("1e30", "1" + "0" * 30),
                            ("1.5", "1.5"), ("zero", "0")):
            bad = text[:m.start(3)] + value + text[m.end(3):]
            yield m.group(1), name, _num(m.group(3)), bad
    live = live_flags(text, flags, suffix) if flags else []
    if live:
        m = rng.choice(live)
        unknown = text[:m.start()] + PROBE + text[m.start():]
        yield "--kvplan-sweep-unknown", "unknown", "text", unknown
    kwargs = list(KWARG.finditer(text))
    for m in rng.sample(kwargs, min(3, len(kwargs))):
        for name, value in (("abc", "abc"), ("minus1", "-1"), ("1e30", "1" + "0" * 30),
                            ("zero", "0")):
            yield m.group(1), name, "num", text[:m.start(3)] + value + text[m.end(3):]
    directives = list(DIRECTIVE.finditer(text))
    for m in rng.sample(directives, min(4, len(directives))):
        key = m.group(2)
        for name, value in (("abc", "abc"), ("empty", ""), ("minus1", "-1"),
                            ("1e30", "1" + "0" * 30), ("1.5", "1.5")):
            yield (f"kvplan:{key}", name, "directive",
                   text[:m.start(3)] + value + text[m.end(3):])
        yield (f"kvplan:{key}", "repeat", "directive",
               text[:m.end()] + "\n" + m.group(0) + text[m.end():])
    if directives or lines:
        at = directives[0].start() if directives else 0
        yield ("kvplan:sweep_unknown", "unknown", "directive",
               text[:at] + "# kvplan: sweep_unknown=3\n" + text[at:])
    if lines:
        i = rng.randrange(len(lines))
        yield (f"line{i + 1}", "non-utf8", "bytes",
               "".join(lines[:i]) + "\udcff\udcfe" + "".join(lines[i:]))
