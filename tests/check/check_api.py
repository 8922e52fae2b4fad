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


def _round_fields(o: Outcome) -> dict[str, object]:
    """An outcome's key fields as corpus-expected.yaml's blind rounds name them."""
    n = o.numbers
    return {"model": o.model, "engine": o.engine, "engine_version": o.engine_version,
            "gpu": o.gpu, "gpus": n.gpus if n else None,
            "max_model_len": n.max_model_len if n else None,
            "max_sequence_bytes": n.max_sequence_bytes if n else None,
            "error": " ".join(p.message for p in o.problems)}


def score_blind_round(name: str) -> tuple[dict[str, dict], dict[str, list], list[tuple[str, str]]]:
    """A blind corpus round scored against corpus-expected.yaml on the session's corpus run:
    (its expected entries, the files whose verdicts differ: their verdicts, the (file, field)
    pairs that differ; an `error` field matches as a case-blind part of the problems' words)."""
    import yaml

    from tests.conftest import checked_corpus

    expected = yaml.safe_load((ASSETS / "check" / "corpus-expected.yaml").read_text())
    blind = {rel: e for rel, e in expected.items() if e.get("round") == name}
    got: dict[str, list[Outcome]] = {}
    report = checked_corpus()
    for o in report.outcomes:
        got.setdefault(str(Path(o.file).relative_to(CORPUS)), []).append(o)
    skipped = {str(Path(p).relative_to(CORPUS)) for p in report.skipped}  # a folder walk's SKIP

    def verdicts(rel: str) -> list[str]:
        return ["SKIP"] if rel in skipped else [o.verdict for o in got.get(rel, [])]

    misses = {rel: verdicts(rel) for rel, e in blind.items() if verdicts(rel) != e["verdicts"]}
    field_misses = []
    for rel, e in blind.items():
        for o, want in zip(got.get(rel, []), e.get("fields") or [], strict=not misses):
            have = _round_fields(o)
            for key, value in want.items():
                ok = (str(value).lower() in str(have[key]).lower() if key == "error"
                      else have[key] == value)
                if not ok:
                    field_misses.append((rel, key))
    return blind, misses, field_misses
