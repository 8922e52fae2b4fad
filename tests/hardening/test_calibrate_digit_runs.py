"""`kvplan calibrate` on a line of 200,000 digits (task freshuser: a CSV of one long field,
given as a log by mistake) ran past two minutes of CPU: kvplan.calibrate.parse.INTERESTING's
`\\d+ (blocks|tokens)` retried the whole run of digits from every digit in it, quadratic in
the run's length. A match can start only where a run of digits starts, so `(?<!\\d)` in front
finds the same lines in linear time: the same answer on every line of the 363 stored logs,
and `kvplan calibrate tests/assets/logs --format csv` identical (2,063 lines)."""

from __future__ import annotations

import re
from pathlib import Path

from kvplan.calibrate.parse import INTERESTING
from tests.conftest import ROOT
from tests.hardening.limited import assert_bounded, run_limited

BEFORE = re.compile(r"\d\s*(GiB|GB|MiB|MB)\b|\d+ (blocks|tokens)\b|blocks: \d", re.I)


def test_a_long_run_of_digits_is_refused_in_bounded_time(tmp_path: Path) -> None:
    path = tmp_path / "prices.csv"
    path.write_text("gpu,price_per_hour_usd\nh100," + "1" * 200_000 + "\n")
    out = run_limited("calibrate", str(path))
    assert_bounded(out)
    assert out.code == 2
    assert out.error_lines() == [f"error: {path}: no start-up numbers of vLLM, SGLang or "
                                 "TensorRT-LLM found; give an engine's start-up log"]


def test_the_same_lines_look_like_memory_lines() -> None:
    lines = [line for log in sorted((ROOT / "tests" / "assets" / "logs").glob("*.log"))
             for line in log.read_text(encoding="utf-8", errors="replace").splitlines()]
    assert len(lines) > 10_000
    found = [bool(INTERESTING.search(line)) for line in lines]
    assert found == [bool(BEFORE.search(line)) for line in lines]
    assert 0 < sum(found) < len(lines)
    assert INTERESTING.search("x 12345 blocks") and INTERESTING.search("a12 tokens")
    assert not INTERESTING.search("12345 blocksize")
