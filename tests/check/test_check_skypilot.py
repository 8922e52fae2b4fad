"""SkyPilot task YAML (kvplan.check.manifests.skypilot): the real tasks of the blind round
blind-2026-12-06-skypilot (tests/assets/check/corpus/skypilot, sources in its SOURCES.md), whole
verdicts asserted, and the refusals the reader owes (synthetic files beside them)."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.formats import verdict_lines

ASSETS = Path(__file__).parents[1] / "assets" / "check"
SKY = ASSETS / "corpus" / "skypilot"
SYN = ASSETS / "synthetic" / "skypilot"


def _lines(path: Path) -> list[str]:
    report = check_paths([str(path)])
    return [line for o in report.outcomes for line in verdict_lines(o, path=False)]


def test_a_flow_set_of_accelerators_is_each_candidate() -> None:
    """`{L4:1, L4:4, A100:1, A100-80GB:1}` is YAML keys "L4:1" with null values: first read
    as GPUs named 'L4:1' and refused (first measurement of the round); each is NAME:COUNT."""
    head = _lines(SKY / "gemma3.yaml")[0]
    assert head.startswith("PASS  line 2  gemma3.yaml: starts on every candidate GPU: L4:1, "
                           "L4:4, A100:1, A100-80GB:1 (SkyPilot may launch any of them)")
