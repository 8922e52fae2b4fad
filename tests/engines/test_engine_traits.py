"""Engine facts live in kvplan.engine_traits (and ENGINE_KEYS), not in engine-name branches.

Task h49engines replaced the `== "vllm"`, `in ("vllm", "sglang", "trtllm")` and `== Engine.X`
branches outside kvplan/engines with per-engine facts. The scan below reads every module's
syntax tree (comments and prose are not code, so they never count) and fails on a new
comparison of an engine's name outside kvplan/engines: add the fact to the table instead.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from kvplan.check.argv import misspelling_of, parse, server_start
from kvplan.engine_traits import SERVING, TRAITS, serving_list, traits

ROOT = Path(__file__).resolve().parents[2]
NAMES = {"vllm", "sglang", "trtllm"}
_OPS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)

# (module, how many) that may stay, each with its reason. A count only goes down: fold a branch
# into the table and lower it; a new one fails.
ALLOWED = {
    # the program's name: `vllm` is the command that `vllm serve` starts with, beside python
    # and the shells (an image's entry point the container appends its args to), not an engine
    "kvplan/check/manifests/compose.py": 1,
    # (calibrate's per-engine readings of a start-up log were 14 branches in
    # kvplan/calibrate/compare.py until task h50compare moved them to compare_<engine>.py)
}


def _names_engine(node: ast.expr) -> bool:
    """`"vllm"`, `Engine.vllm`, or a literal tuple/list/set holding one."""
    if isinstance(node, ast.Constant):
        return node.value in NAMES
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id == "Engine" and node.attr in NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_engine(e) for e in node.elts)
    return False


def engine_branches(source: str) -> list[int]:
    """The lines of `source` that compare something with an engine's name."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(isinstance(op, _OPS) for op in node.ops):
            sides = [node.left, *node.comparators]
            # `"vllm" in image_name` is a substring search, not a branch on an engine
            if isinstance(node.ops[0], (ast.In, ast.NotIn)) and len(sides) == 2:
                sides = sides[1:]
            if any(_names_engine(s) for s in sides):
                out.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and _names_engine(node.value):
            out.append(node.lineno)
    return out


# Tables keyed by engine name outside kvplan/engines (task h55gaps), (module, how many) that may
# stay. The engines' display names were four such tables in check (manifests/__init__.py,
# ngc_table.py, config_file.py, compose.py); they are EngineTraits.title (and name_words) now.
# What is left are per-engine facts of the layer that holds them; a count only goes down: move a
# table into kvplan.engine_traits or kvplan/engines and lower it, and a new one fails.
TABLES_ALLOWED = {
    # calibrate's per-engine readings of a start-up log: the breakdown check, the comparison
    # (task h50compare), the order the log parsers register, the log's header hints, and the
    # directive keys / utilization key each engine's log names
    "kvplan/calibrate/breakdown.py": 1,
    "kvplan/calibrate/compare.py": 1,
    "kvplan/calibrate/parse.py": 2,
    "kvplan/calibrate/resolve.py": 2,
    # check's command-line parsing: options removed or added at a release, their option tables,
    # the release each engine's --config arrived in, and the reader of each engine's options
    "kvplan/check/argv.py": 3,
    "kvplan/check/engine_flags/__init__.py": 1,
    "kvplan/check/manifests/config_file.py": 1,
    "kvplan/check/manifests/engine_readers.py": 1,
    # check's option -> kvplan/v1 field maps, their defaults and fix spellings, the options that
    # move memory kvplan does not book, and how each sizes a non-GPU device's pool
    "kvplan/check/manifests/option_fields.py": 4,
    "kvplan/check/manifests/unread.py": 1,
    "kvplan/check/manifests/hardware.py": 1,
    # the record's keys each engine leaves unused, and the defaults each names in a record
    "kvplan/deploy/engine_keys.py": 1,
    "kvplan/plan/engine_fields.py": 1,
}


def engine_tables(source: str) -> list[int]:
    """The lines of `source` that start a table keyed by engine name: a dict literal with an
    engine's name (or Engine.X) as a key, `dict(vllm=...)`, or a tuple/list of pairs whose first
    items name two or more engines (`(("vllm", "vLLM"), ("sglang", "SGLang"))`). A command's
    words, `[("vllm", line), ("serve", line)]`, name one engine and are not a table."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            if any(k is not None and _names_engine(k) and not isinstance(k, (ast.Tuple, ast.List,
                                                                             ast.Set))
                   for k in node.keys):
                out.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "dict" and any(kw.arg in NAMES for kw in node.keywords):
                out.append(node.lineno)
        elif isinstance(node, (ast.Tuple, ast.List)):
            firsts = [e.elts[0] for e in node.elts
                      if isinstance(e, ast.Tuple) and len(e.elts) == 2]
            named = {ast.dump(f) for f in firsts if _names_engine(f)}
            if firsts and len(firsts) == len(node.elts) and len(named) >= 2:
                out.append(node.lineno)
    return out


def test_the_scan_finds_each_form_of_an_engine_table():
    """Four forms of a table keyed by engine (one line each), and what is none: a command's
    words, a list of engine names, a dict keyed by something else."""
    code = ('A = {"vllm": "vLLM", "sglang": "SGLang"}\n'
            'B = {Engine.trtllm: 1}\n'
            'C = dict(sglang=2)\n'
            'D = (("vllm", "vLLM"), ("trtllm", "TensorRT-LLM"), ("tensorrt", "TensorRT-LLM"))\n'
            'E = [("vllm", 3), ("serve", 3)]\n'
            'F = ("vllm", "sglang")\n'
            'G = {"engine": "vllm"}\n')
    assert engine_tables(code) == [1, 2, 3, 4]


def test_no_engine_keyed_table_outside_the_engine_layer():
    """Every module under kvplan/ but kvplan/engines/ and kvplan/engine_traits.py (the engine
    layer's own table): its engine-keyed tables are those TABLES_ALLOWED."""
    found = {}
    for path in sorted((ROOT / "kvplan").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("kvplan/engines/") or rel == "kvplan/engine_traits.py":
            continue
        lines = engine_tables(path.read_text(encoding="utf-8"))
        if lines:
            found[rel] = lines
    over = {rel: lines for rel, lines in found.items() if len(lines) > TABLES_ALLOWED.get(rel, 0)}
    assert not over, ("engine-keyed tables outside kvplan/engines (put the fact in "
                      f"kvplan.engine_traits or the engine's module): {over}")
    stale = {rel: n for rel, n in TABLES_ALLOWED.items() if len(found.get(rel, ())) < n}
    assert not stale, f"lower TABLES_ALLOWED to what is left: {stale}"


def test_display_names_come_from_the_engine_layer():
    """check names an engine as its traits' title (task h55gaps): a KubeAI `engine: VLLM`, an
    NGC container's engine, a --config file's engine, a compose service named for one."""
    from kvplan.engine_traits import engine_words, serving_title

    assert [traits(n).said for n in SERVING] == ["vLLM", "SGLang", "TensorRT-LLM"]
    assert [serving_title(n) for n in ("vllm", "sglang", "trtllm", "ideal", "ollama")] == [
        "vLLM", "SGLang", "TensorRT-LLM", None, None]
    assert engine_words() == (("vllm", "vLLM"), ("sglang", "SGLang"),
                              ("trtllm", "TensorRT-LLM"), ("tensorrt", "TensorRT-LLM"))


def test_the_scan_finds_each_form_of_an_engine_branch():
    """Six forms the scan must catch (one line each), and three it must leave alone: the
    substring search, a table keyed by engine, and the name in prose."""
    code = ('if e.name == "vllm": pass\n'
            'if engine != "trtllm": pass\n'
            'if head in ("vllm", "sglang"): pass\n'
            'if engine is Engine.sglang: pass\n'
            'if x == Engine.trtllm: pass\n'
            'match e:\n    case "sglang": pass\n'
            'if "vllm" in image: pass\n'
            'T = {"vllm": 1}[engine]\n'
            '"""engine == \'vllm\'"""\n')
    assert engine_branches(code) == [1, 2, 3, 4, 5, 7]


def test_no_engine_name_branch_outside_the_engine_layer():
    """Every module under kvplan/ but kvplan/engines/: its engine-name comparisons are those
    ALLOWED (none but the listed modules; tests/engines/test_engine_traits.py says why)."""
    found = {}
    for path in sorted((ROOT / "kvplan").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("kvplan/engines/"):
            continue
        lines = engine_branches(path.read_text(encoding="utf-8"))
        if lines:
            found[rel] = lines
    over = {rel: lines for rel, lines in found.items() if len(lines) > ALLOWED.get(rel, 0)}
    assert not over, f"engine-name branches outside kvplan/engines (use kvplan.engine_traits): {over}"
    stale = {rel: n for rel, n in ALLOWED.items() if len(found.get(rel, ())) < n}
    assert not stale, f"lower ALLOWED to what is left: {stale}"


def test_calibrate_reads_each_serving_engine_through_its_own_module():
    """kvplan.calibrate.compare's table (task h50compare) gives each serving engine the
    comparison of kvplan/calibrate/compare_<engine>.py; ideal and transformers print no start-up
    log of their own and get the neutral one (version as stated, no extra notes or checks)."""
    from kvplan.calibrate.compare import comparison
    from kvplan.calibrate.compare_engine import NEUTRAL
    from kvplan.engines import Engine

    for name in SERVING:
        reads = comparison(Engine(name))
        assert reads is not NEUTRAL
        assert type(reads).__module__ == f"kvplan.calibrate.compare_{name}"
    assert comparison(Engine.ideal) is NEUTRAL and comparison(Engine.transformers) is NEUTRAL
    assert NEUTRAL.default_version == "" and comparison(Engine.trtllm).default_version == "1.0"


def test_serving_engines_and_the_directive_message():
    """The serving engines in the order messages name them; ideal and transformers are none."""
    assert SERVING == ("vllm", "sglang", "trtllm")
    assert serving_list() == "vllm, sglang or trtllm"
    assert not traits("ideal").serving and not traits("transformers").serving
    assert traits("tgi") == traits("tgi") and not traits("tgi").serving  # unknown: no facts
    assert set(TRAITS) == {"ideal", "vllm", "sglang", "trtllm", "transformers"}


@pytest.mark.parametrize(("words", "expected"), [
    (["vllm", "serve", "m"], ("vllm", "vllm serve", 2, False)),
    (["/usr/bin/sglang", "serve"], ("sglang", "sglang serve", 2, False)),
    (["trtllm-serve", "m"], ("trtllm", "trtllm-serve", 1, False)),
    (["trtllm-serve", "serve", "m"], ("trtllm", "trtllm-serve", 2, False)),
    (["python3", "-m", "vllm.entrypoints.openai.api_server.py"],
     ("vllm", "python -m vllm.entrypoints.openai.api_server", 3, False)),
    (["python", "-m", "sglang.launch_server"],
     ("sglang", "python -m sglang.launch_server", 3, False)),
    (["python", "-m", "dynamo.sglang"], ("sglang", "python -m dynamo.sglang", 3, True)),
    (["vllm", "bench"], None),
    (["python", "-m", "sglang.launch_server_x"], None),  # the whole module name, not a prefix
])
def test_server_start_reads_each_engines_entry_points(words, expected):
    """(engine, entry, index past it, dynamo?): `trtllm-serve` takes `serve` or not; vLLM's
    API server module is a prefix (`.py` dropped), SGLang's a whole name."""
    assert server_start(words) == expected


def test_option_spellings_follow_each_parser():
    """vLLM: `_` is `-` and `--json.key` keeps the key; SGLang abbreviates but keeps `_`;
    trtllm-serve (click) takes exact names only."""
    from kvplan.check.argv import Invocation, Word

    def opts(engine, *words):
        return parse(Invocation(engine, "x", [Word(w, 1) for w in words])).options

    assert opts("vllm", "--max_model_len", "8") == {"--max-model-len": ("8", 1)}
    assert "--compilation-config.mode" in opts("vllm", "--compilation-config.mode", "3")
    assert opts("vllm", "-O3") == {"-O": ("3", 1)}
    assert opts("sglang", "--context-len", "8") == {"--context-length": ("8", 1)}
    assert opts("trtllm", "--max_seq", "8") == {}
    assert misspelling_of("vllm", "--max_model_lenn") == "--max-model-len"


def test_hooks_name_functions_in_the_engine_modules():
    """Each hook names a function that imports (a typo in its string would only fail when a
    TensorRT-LLM block or a vLLM plan reaches it)."""
    hooks = [(t.name, f) for t in TRAITS.values() for f in ("block_refusals", "moot_refusals")
             if getattr(t, f) is not None]
    assert hooks == [("vllm", "moot_refusals"), ("sglang", "moot_refusals"),
                     ("trtllm", "block_refusals"),
                     ("transformers", "moot_refusals")]  # task h90review: a shared prefix;
    # sglang: data-parallel attention's flags where they move nothing (task h100sgldp)
    for name, field in hooks:
        assert callable(traits(name).hook(field))
        assert re.fullmatch(r"kvplan\.engines\.\w+:\w+", getattr(traits(name), field))
    assert traits("sglang").hook("block_refusals") is None


def test_messages_name_each_engine_from_its_traits():
    """The serving engines as a message names them (EngineTraits.title; an engine without one
    by its record name). kvplan/check/startup.py's starts-short note (task h52checkround) took
    the name from a table of its own, `{"sglang": "SGLang"}.get(name, name)`, which the branch
    scan above leaves alone (a table keyed by engine) but which named no other engine: the
    module now holds no engine-name literal at all."""
    assert [traits(n).said for n in SERVING] == ["vLLM", "SGLang", "TensorRT-LLM"]
    assert traits("ideal").said == "ideal" and traits("tgi").said == "tgi"
    tree = ast.parse((ROOT / "kvplan/check/startup.py").read_text(encoding="utf-8"))
    assert [n.lineno for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and n.value in NAMES] == []
