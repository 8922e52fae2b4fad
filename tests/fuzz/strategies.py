"""Hypothesis strategies for every kind of file kvplan reads: valid, mutated and hostile.

A file is built in three steps: a document (a real asset of that kind, or a mutation of it),
a text (its YAML or JSON, or a hostile text: an alias bomb, deep nesting, a duplicate key, a
tag, random characters), and bytes (UTF-8, UTF-8 with a BOM, UTF-16 with or without a BOM,
Latin-1, or random binary).
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "tests" / "assets"
TRIED: Counter[str] = Counter()  # command runs per file kind, printed in the terminal summary


def _yaml_docs(path: Path) -> list[Any]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None]


@dataclass(frozen=True)
class Kind:
    """One kind of input file: its valid documents, its format and its file name."""

    name: str
    docs: tuple[Any, ...]  # the parsed content of real files (a list of documents for manifests)
    fmt: str  # yaml, yaml-stream, json, csv, jsonl or log
    filename: str


def _log_lines() -> list[str]:
    return (ASSETS / "logs" / "01-vllm-llama3.1-8b-rtx3090-v0.log").read_text(
        encoding="utf-8").splitlines()


KINDS: dict[str, Kind] = {
    "model": Kind("model", (_yaml_docs(ROOT / "model_specs" / "llama-3-8b.yaml")[0],
                            _yaml_docs(ROOT / "model_specs" / "gemma-2-9b.yaml")[0],
                            _yaml_docs(ROOT / "model_specs" / "mixtral-8x7b.yaml")[0]),
                  "yaml", "model.yaml"),
    "gpu": Kind("gpu", (_yaml_docs(ROOT / "hardware_specs" / "h100-sxm-80gb.yaml")[0],),
                "yaml", "gpu.yaml"),
    "deployment": Kind("deployment", (_yaml_docs(ASSETS / "deployments" / "chatbot-vllm.yaml")[0],),
                       "yaml", "deploy.yaml"),
    "manifest": Kind("manifest", (_yaml_docs(ASSETS / "check" / "k8s" / "sglang-pass.yaml"),),
                     "yaml-stream", "manifest.yaml"),
    "prices": Kind("prices", ({"h100": 2.5, "a100-80gb": 1.8},), "yaml", "prices.yaml"),
    "sample-csv": Kind("sample-csv", ([{"prompt_tokens": 900, "output_tokens": 300},
                                       {"prompt_tokens": 4000, "output_tokens": 800}],),
                       "csv", "sample.csv"),
    "sample-jsonl": Kind("sample-jsonl", ([{"total_tokens": 1200}, {"total_tokens": 3000}, 2048],),
                         "jsonl", "sample.jsonl"),
    "log": Kind("log", (_log_lines(),), "log", "engine.log"),
    "config": Kind("config", (json.loads((ASSETS / "hf_configs" / "llama-3-8b.json").read_text(
        encoding="utf-8")),), "json", "config.json"),
}

# ---------------------------------------------------------------- values and mutations

HOSTILE_VALUES = st.one_of(
    st.sampled_from([0, -1, 1, 3, 10**30, 2**63, -(10**30), True, False, None, "", "nan", "inf",
                     "1e999", "true", "8", "h100", "llama-3-8b", "fp8", "auto", "0x10"]),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.lists(st.integers(min_value=-5, max_value=10**6), max_size=3),
    st.dictionaries(st.text(max_size=6), st.integers(), max_size=2),
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _set(doc: Any, path: tuple[Any, ...], value: Any, delete: bool) -> Any:
    if not path:
        return value
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return doc


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> Any:
    """The base document with one to three values replaced, deleted or added."""
    doc = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(doc)))
        op = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if op == "add":
            target = doc
            for part in path:
                target = target[part]
            if isinstance(target, dict):
                target[draw(st.text(min_size=1, max_size=10))] = draw(HOSTILE_VALUES)
            elif isinstance(target, list):
                target.append(draw(HOSTILE_VALUES))
            continue
        doc = _set(doc, path, draw(HOSTILE_VALUES), delete=op == "delete" and bool(path))
    return doc


# ---------------------------------------------------------------- texts


def render(kind: Kind, doc: Any) -> str:
    """The document as the text of its format (lossy formats fall back to YAML)."""
    try:
        if kind.fmt == "yaml":
            return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
        if kind.fmt == "yaml-stream" and isinstance(doc, list):
            return yaml.safe_dump_all(doc, sort_keys=False, allow_unicode=True)
        if kind.fmt == "json":
            return json.dumps(doc)
        if kind.fmt == "jsonl" and isinstance(doc, list):
            return "".join(json.dumps(item) + "\n" for item in doc)
        if kind.fmt == "csv" and isinstance(doc, list) and all(isinstance(r, dict) for r in doc):
            cols = list(dict.fromkeys(str(k) for r in doc for k in r))
            rows = [",".join(cols)] + [",".join(str(r.get(c, "")) for c in cols) for r in doc]
            return "\n".join(rows) + "\n"
        if kind.fmt == "log" and isinstance(doc, list):
            return "\n".join(str(x) for x in doc) + "\n"
    except (TypeError, ValueError, yaml.YAMLError):
        pass
    return yaml.safe_dump(doc, allow_unicode=True) if _dumpable(doc) else str(doc)


def _dumpable(doc: Any) -> bool:
    try:
        yaml.safe_dump(doc)
    except (yaml.YAMLError, TypeError, ValueError):
        return False
    return True


def alias_bomb(levels: int, width: int) -> str:
    """Each level holds `width` aliases of the one below: width**levels strings once expanded."""
    lines = ["l0: &l0 [" + ",".join(['"lol"'] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


@st.composite
def hostile_text(draw: st.DrawFn, valid: str) -> str:
    """Texts built to hurt a parser: bombs, depth, duplicates, tags, junk around a valid text."""
    choice = draw(st.integers(0, 7))
    if choice == 0:
        return alias_bomb(draw(st.integers(2, 12)), draw(st.integers(2, 12)))
    if choice == 1:
        n = draw(st.integers(50, 20_000))
        opener, closer = draw(st.sampled_from([("[", "]"), ("{a: ", "}")]))
        return "a: " + opener * n + closer * n + "\n"
    if choice == 2:  # a duplicate of the first key
        first = valid.splitlines()[0] if valid.strip() else "a: 1"
        return valid + first + "\n"
    if choice == 3:
        tag = draw(st.sampled_from(["!!python/object/apply:os.system [ls]", "!!binary aGk=",
                                    "!custom 1", "!!set {a}", "!!timestamp 2001-13-99"]))
        return valid + f"zz: {tag}\n"
    if choice == 4:
        return draw(st.text(max_size=200))
    if choice == 5:  # a valid text cut short
        return valid[: draw(st.integers(0, max(len(valid) - 1, 0)))]
    if choice == 6:
        return valid + "\n---\n" + draw(st.text(max_size=50)) + "\n---\n" + valid
    return "a: &a [1, *a]\n"


@st.composite
def file_bytes(draw: st.DrawFn, kind: Kind) -> bytes:
    """One file of `kind`: valid, mutated or hostile, in one of several encodings."""
    base = draw(st.sampled_from(kind.docs))
    how = draw(st.sampled_from(["valid", "mutated", "mutated", "hostile", "binary"]))
    if how == "binary":
        return draw(st.binary(max_size=300))
    doc = base if how == "valid" else draw(mutated(base))
    text = render(kind, doc)
    if how == "hostile":
        text = draw(hostile_text(render(kind, base)))
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "utf-16", "utf-16-le",
                                     "utf-16-be", "latin-1"]))
    return text.encode(encoding, errors="replace")
