"""What the tests of `kvplan check`'s API share (kvplan.check.check_paths, read_targets): a file's
verdict lines, an outcome's words, a corpus file's outcomes, and the one target a file reads."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import Outcome, check_paths, read_targets
from kvplan.check.formats import verdict_lines
from tests.conftest import ASSETS

CORPUS = ASSETS / "check" / "corpus"


def verdict_lines_of(path: Path) -> list[str]:
    """The verdict lines of every outcome of `path` (test_check_skypilot, _dstack, _review_h56)."""
    report = check_paths([str(path)])
    return [line for o in report.outcomes for line in verdict_lines(o, path=False)]


def outcome_text(o: Outcome) -> str:
    """An outcome's summary, notes, problems and reasons as one text (the blind rounds)."""
    return " ".join([o.summary or "", *o.notes, *(str(p) for p in o.problems),
                     *(str(r) for r in o.reasons)])


def corpus_outcomes(rel: str, gpu: str | None = None) -> list[Outcome]:
    """The outcomes of tests/assets/check/corpus/REL, `gpu` the default GPU."""
    return check_paths([str(CORPUS / rel)], default_gpu=gpu).outcomes


def one_target(path: Path):  # noqa: ANN201 - kvplan.check's Target
    """The one deployment target `path` reads (its problems shown if it reads none)."""
    [target] = read_targets(path, {})
    assert target.deployment is not None, target.problems
    return target
