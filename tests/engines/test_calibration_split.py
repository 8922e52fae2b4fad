"""The calibration set's split (issue #13): no held-out log tuned a constant."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from kvplan.calibrate.split import PARTS, Entry, group, leaks, read_fitted, read_split
from kvplan.errors import InputError

LOGS = Path(__file__).parents[1] / "assets" / "logs"


def test_every_log_is_in_the_split_once() -> None:
    split = read_split(LOGS / "SPLIT.tsv")
    on_disk = {p.name for p in LOGS.glob("*.log")}
    assert set(split) == on_disk
    used = {e.part for e in split.values()}
    assert used <= set(PARTS)
    assert used >= {"fit", "heldout", "heldout-2", "heldout-3", "heldout-4", "heldout-5", "heldout-6",
                    "heldout-7"}


def test_no_constant_was_fitted_on_a_held_out_log() -> None:
    split = read_split(LOGS / "SPLIT.tsv")
    fitted = read_fitted(LOGS / "FITTED.tsv")
    assert fitted, "FITTED.tsv lists no constants"
    assert leaks(split, fitted) == []


def test_every_fitted_constant_exists_in_the_engines() -> None:
    for constant in read_fitted(LOGS / "FITTED.tsv"):
        module, name = constant.split(".")
        assert hasattr(importlib.import_module(f"kvplan.engines.{module}"), name), constant


def test_a_leak_is_caught() -> None:
    split = {"01-a.log": Entry("01-a.log", "fit", "vllm", "dense"),
             "40-b.log": Entry("40-b.log", "heldout", "vllm", "dense")}
    assert leaks(split, {"vllm.X": ["01"]}) == []
    assert leaks(split, {"vllm.X": ["01", "40"]}) == ["vllm.X: fitted on held-out log 40-b.log"]
    assert leaks(split, {"vllm.X": ["99"]}) == ["vllm.X: log 99 is not in SPLIT.tsv"]


def test_a_bad_split_line_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "SPLIT.tsv"
    bad.write_text("log\tpart\tengine\tclass\n01-a.log\ttrain\tvllm\tdense\n")
    with pytest.raises(InputError, match=r"SPLIT.tsv:2: expected log, part"):
        read_split(bad)


def test_group_medians_and_worst_by_family() -> None:
    rows = [("vllm", "dense", "heldout", 1.0), ("vllm", "sliding", "heldout", 3.0),
            ("vllm", "dense", "heldout", 2.0), ("vllm", "moe", "fit", 7.0),
            ("vllm", "mla", "fit", 5.0), ("sglang", "unknown", "fit", 9.0)]
    cells = {(c.engine, c.model_class, c.part): c for c in group(rows)}
    dense = cells[("vllm", "dense", "heldout")]
    assert (dense.median, dense.worst) == (2.0, 3.0)  # median of 1, 2, 3
    other = cells[("vllm", "moe/mla/multimodal", "fit")]
    assert (other.median, other.worst) == (6.0, 7.0)  # (5 + 7) / 2
    assert ("sglang", "dense", "fit") not in cells  # unknown class left out
    # every held-out run is pooled into heldout-all; fit runs are not
    assert cells[("vllm", "dense", "heldout-all")].errors == (1.0, 3.0, 2.0)
    assert ("vllm", "moe/mla/multimodal", "heldout-all") not in cells


def test_the_pool_takes_every_held_out_part_and_sorts_after_them() -> None:
    rows = [("sglang", "dense", "heldout-6", 9.0), ("sglang", "dense", "heldout", 0.5),
            ("sglang", "dense", "heldout-3", 0.1), ("sglang", "dense", "fit", 40.0)]
    parts = [c.part for c in group(rows)]
    assert parts == ["fit", "heldout", "heldout-3", "heldout-6", "heldout-all"]
    pooled = group(rows)[-1]
    assert (pooled.median, pooled.worst, len(pooled.errors)) == (0.5, 9.0, 3)


def test_parts_are_listed_in_round_order_not_string_order() -> None:
    rows = [("vllm", "dense", "heldout-10", 1.0), ("vllm", "dense", "heldout-2", 2.0),
            ("vllm", "dense", "fit", 3.0), ("vllm", "dense", "unsplit", 4.0)]
    assert [c.part for c in group(rows)] == ["fit", "heldout-2", "heldout-10", "heldout-all", "unsplit"]
    pooled = [c for c in group(rows) if c.part == "heldout-all"][0]
    assert sorted(pooled.errors) == [1.0, 2.0]
