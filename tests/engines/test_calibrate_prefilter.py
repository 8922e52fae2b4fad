"""kvplan.calibrate.parse skips a line pattern whose literal text (kvplan.calibrate.prefilter)
is not on the line, and every pattern on a line holding none of it: task harden, 7.7 -> about
4 s of CPU for 50 MB of log (benchmarks/calibrate_speed.py). The speed-up must change nothing:
each log of the calibration set reads the same with the prefilter as with every pattern tried
on every line, and the needles are what the regexes, read by hand, cannot match without."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from kvplan.calibrate import parse
from kvplan.calibrate.lines import NUM
from kvplan.calibrate.prefilter import gate, needles
from tests.conftest import ROOT

LOGS = sorted((ROOT / "tests" / "assets" / "logs").glob("*.log"))


@pytest.mark.parametrize(("regex", "expected"), [
    # a run of plain characters; the number and the inner alternation are not literal
    (r"Model loading took " + NUM + r" (?:GiB|GB)\b", ("Model loading took ",)),
    # a top-level alternation: one needle per branch (the longest run of each)
    (r"EngineCore failed to start|No available memory for the cache blocks",
     ("EngineCore failed to start", "No available memory for the cache blocks")),
    # an optional part is no needle; the group after it is one (an inner alternation's best
    # runs, each at least as long as the other pieces)
    (r"x(?:Directly load the compiled )?(?:kv_cache_utils|gpu_model_runner)\.py",
     ("gpu_model_runner", "kv_cache_utils")),
    # escaped characters are plain text
    (r"Load weight end\..*?avail mem=" + NUM + r" GB", ("Load weight end.",)),
    # the regex engine's own factoring of a shared first letter (C + ompiling | ache)
    (r"Compiling a graph for (?:dynamic shape|shape)|Cache the graph\b",
     ("ache the graph", "ompiling a graph for ")),
    # a branch with no run of 3 characters: no needle, the pattern is always tried
    (r"GPU blocks: (\d+)|^\d+ x", ()),
    # a literal under IGNORECASE stands for more than itself
    (r"(?i)gpu kv cache size", ()),
    (r"x(?i:gpu kv cache) size:", (" size:",)),
])
def test_needles_read_off_the_regex(regex: str, expected: tuple[str, ...]) -> None:
    assert needles(regex) == expected


def test_the_gate_finds_each_needle_and_nothing_else() -> None:
    rx = gate([("Directly load ", "Directly load AOT compil"), ("EngineCore",), ("a.b",)])
    assert rx is not None
    assert rx.search("INFO (EngineCore pid=3) x") and rx.search("Directly load the graph")
    assert rx.search("has a.b in it")
    assert not rx.search("Directly loa EngineCor axb")
    assert gate([("x" * 3,), ()]) is None  # a pattern with no needle: every line is tried


def test_every_pattern_has_needles() -> None:
    # 80 patterns when this was written; a new one without literal text slows every line
    assert len(parse.ORDERED) >= 80
    assert all(key is not None or keys for _rx, _handler, key, keys in parse._TRIED)


def _read_all(paths: list[Path]) -> list[object]:
    return [[dataclasses.asdict(run) for run in parse.parse_file(path).runs] for path in paths]


def test_the_calibration_set_reads_the_same_without_the_prefilter(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(LOGS) > 300
    fast = _read_all(LOGS)
    monkeypatch.setattr(parse, "_GATE", None)
    monkeypatch.setattr(parse, "_TRIED", [(rx, h, None, ()) for _k, rx, h in parse.ORDERED])
    monkeypatch.setattr(parse, "INTERESTING", re.compile(
        r"\d\s*(GiB|GB|MiB|MB)\b|(?<!\d)\d+ (blocks|tokens)\b|blocks: \d", re.I))  # as before
    assert fast == _read_all(LOGS)


def test_lines_holding_a_needle_but_not_the_pattern_still_fall_to_unparsed(
        tmp_path: Path) -> None:
    log = tmp_path / "v1.log"
    log.write_text("(EngineCore pid=1) INFO [gpu_worker.py:1] Available KV cache memory: 9.5 GiB\n"
                   "INFO [x.py:2] GPU KV cache size: lots, 12 blocks\n",
                   encoding="utf-8")
    run = parse.parse_file(log).runs[0]
    assert run.values == {"kv_gib": 9.5}
    assert run.settings["log_engine"] == "V1"
    assert run.unparsed == [(2, "INFO [x.py:2] GPU KV cache size: lots, 12 blocks")]
