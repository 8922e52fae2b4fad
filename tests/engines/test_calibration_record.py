"""benchmarks/calibration.py appends a record only when a figure moved (the project's rule: "appends
a line to benchmarks/results/calibration.jsonl only when figures move"; task h90compile found it
appended on every run)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.engines.bench_scripts import load

CAL = load("calibration")
REC = {"date": "2026-12-07T15:50:27+00:00", "logs": 362, "runs": 400,
       "shapes_kv_tokens": [{"engine": "vllm", "median_abs_error_pct": 0.92}], "label": "a"}


def test_same_figures_ignores_date_and_label() -> None:
    other = dict(REC, date="2026-12-08T00:00:00+00:00", label="b")
    assert CAL.same_figures(REC, other)
    assert CAL.same_figures(REC, {k: v for k, v in other.items() if k != "label"})


def test_a_moved_figure_is_not_the_same() -> None:
    assert not CAL.same_figures(REC, dict(REC, runs=401))
    moved = dict(REC, shapes_kv_tokens=[{"engine": "vllm", "median_abs_error_pct": 0.93}])
    assert not CAL.same_figures(REC, moved)


def test_last_record_reads_the_last_line(tmp_path: Path) -> None:
    p = tmp_path / "c.jsonl"
    assert CAL.last_record(p) is None
    p.write_text("", encoding="utf-8")
    assert CAL.last_record(p) is None
    p.write_text(json.dumps({"runs": 1}) + "\n" + json.dumps({"runs": 2}) + "\n\n", encoding="utf-8")
    assert CAL.last_record(p) == {"runs": 2}
