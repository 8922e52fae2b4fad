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


def text_mutants(text: str, rng: random.Random) -> Iterator[tuple[str, str, str, str]]:
    """(what was mutated, mutation, "num"/"text"/"directive"/"bytes", text) per mutant."""
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
    if flags:
        m = rng.choice(flags)
        unknown = text[:m.start()] + "--kvplan-sweep-unknown 7 " + text[m.start():]
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
