"""What the docs tests that compare numbers quoted in prose share (issue #15): the checkout's root
and the check of one claim. Each claim is (page, pattern over the page with its line breaks folded
to spaces, source of the values); the test finds the sentence and compares, so a change that
moves the number fails until the page says it. The claims live beside their sources in
tests/test_docs_generated.py (plans, maths, catalog, measure), tests/test_docs_generated_counts.py
(fixture and check counts) and tests/test_docs_generated_calibration.py (calibration tables)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def assert_prose(claim: tuple[str, str, Callable[[], dict[str, str]]]) -> None:
    """The sentence is on the page and every named group equals what kvplan computes."""
    page, pattern, compute = claim
    text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
    match = re.search(pattern, text, re.S)
    assert match, f"{page}: the sentence /{pattern[:60]}.../ is gone; update PROSE"
    expected = compute()
    wrong = {k: (v, expected[k]) for k, v in match.groupdict().items() if v != expected[k]}
    assert not wrong, f"{page}: prose says / kvplan computes: {wrong}"
