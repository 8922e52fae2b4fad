"""Numbers quoted in prose that count things (issue #15): the calibration logs (in figures and
the held-out parts in words), the check corpus and the real outcomes, and the manifest formats;
each is computed from its fixtures as kvplan reads them (tests/docs_prose.py checks a claim)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.calibrate.split import is_heldout
from tests.docs_prose import ROOT, assert_prose


def _corpus() -> dict[str, str]:
    """README's check corpus figures: files, projects, and the hand-arithmetic score."""
    from tests.check.test_check_corpus import CORPUS, _score

    hits, _ = _score()
    files = list(CORPUS.rglob("*.y*ml"))
    rows = [line.split("|") for line in (CORPUS / "SOURCES.md").read_text().splitlines()
            if line.startswith("| ") and line.count("|") >= 5]
    repos = {r[2].strip() for r in rows if "/" in r[2] and r[2].strip() != "repository"}
    return {"files": str(len(files)), "projects": str(len(repos)),
            "dev_hit": str(hits[False][0]), "dev_n": str(hits[False][1]),
            "held_hit": str(hits[True][0]), "held_n": str(hits[True][1])}


def _outcomes() -> dict[str, str]:
    """README's real-outcome figures (tests/check/test_check_outcomes.py scores them)."""
    from kvplan.check import check_paths
    from tests.check.test_check_outcomes import PATHS, score

    report = check_paths(PATHS)
    by_file = {Path(o.file).name: o for o in report.outcomes}
    v_hit, v_miss, _, _ = score(by_file)
    n = len(v_hit) + len(v_miss)
    return {"n": str(n), "n2": str(n), "hit": str(len(v_hit))}


def _log_counts() -> dict[str, str]:
    """README's log counts, from tests/assets/logs/SPLIT.tsv."""
    from kvplan.calibrate.split import read_split

    split = read_split(ROOT / "tests" / "assets" / "logs" / "SPLIT.tsv")
    held = [e for e in split.values() if is_heldout(e.part)]
    words = {5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve",
             13: "thirteen", 14: "fourteen", 15: "fifteen", 16: "sixteen",
             17: "seventeen", 18: "eighteen", 19: "nineteen", 20: "twenty",
             21: "twenty-one", 22: "twenty-two", 23: "twenty-three",
             24: "twenty-four", 25: "twenty-five", 26: "twenty-six",
             27: "twenty-seven", 28: "twenty-eight", 29: "twenty-nine", 30: "thirty",
             31: "thirty-one", 32: "thirty-two", 33: "thirty-three", 34: "thirty-four",
             35: "thirty-five", 36: "thirty-six", 37: "thirty-seven", 38: "thirty-eight",
             39: "thirty-nine", 40: "forty", 41: "forty-one", 42: "forty-two",
             43: "forty-three", 44: "forty-four", 45: "forty-five",
             46: "forty-six", 47: "forty-seven", 48: "forty-eight", 49: "forty-nine",
             50: "fifty"}
    return {"logs": str(len(split)), "held": str(len(held)),
            "parts": words.get(len({e.part for e in held}), "?")}


def _engine_log_counts() -> dict[str, str]:
    """docs/engines.md's fixture counts: logs by engine (the file name's second field) and by
    SPLIT.tsv part."""
    from collections import Counter

    from kvplan.calibrate.split import read_split

    split = read_split(ROOT / "tests" / "assets" / "logs" / "SPLIT.tsv")
    engines = Counter(name.split("-")[1] for name in split)
    parts = Counter(e.part for e in split.values())
    out = {"vllm": str(engines["vllm"]), "sglang": str(engines["sglang"]),
           "trtllm": str(engines["trtllm"]), "fit": str(parts["fit"]), "heldout": str(parts["heldout"])}
    out.update({f"h{n}": str(parts[f"heldout-{n}"]) for n in range(2, 53)})
    out["fresh"] = str(parts["fresh-h100"])
    out["fresh13"] = str(parts["fresh-logs13"])
    out["fresh14"] = str(parts["fresh-logs14"])
    return out


def _part_size(part: str) -> dict[str, str]:
    from kvplan.calibrate.split import read_split

    split = read_split(ROOT / "tests" / "assets" / "logs" / "SPLIT.tsv")
    return {"n": str(sum(1 for e in split.values() if e.part == part))}


def _manifest_formats() -> dict[str, str]:
    from kvplan.check.manifests import FORMATS

    return {"n": str(len(FORMATS))}


def _check_outcomes() -> dict[str, str]:
    """docs/check.md's outcome scores (tests/check/test_check_outcomes.py's score)."""
    from kvplan.check import check_paths
    from tests.check.test_check_outcomes import PATHS, score

    report = check_paths(PATHS)
    v_hit, v_miss, t_hit, t_miss = score({Path(o.file).name: o for o in report.outcomes})
    return {"hit": str(len(v_hit)), "n": str(len(v_hit) + len(v_miss)), "t_hit": str(len(t_hit)),
            "t_n": str(len(t_hit) + len(t_miss))}


def _corpus_run() -> dict[str, str]:
    """docs/check.md's corpus run: deployments, files and verdict counts."""
    from collections import Counter

    from tests.conftest import checked_corpus

    report = checked_corpus()
    verdicts = Counter(o.verdict for o in report.outcomes)
    return {"deployments": str(len(report.outcomes)),
            "files": str(len({o.file for o in report.outcomes})),
            **{v.lower(): str(verdicts[v]) for v in ("PASS", "FAIL", "WARN", "ERROR")}}


# (page, pattern over the page with its line breaks folded to spaces, source of the values)
PROSE = [
    ("README.md", r"Over (?P<files>\d+) public manifests from (?P<projects>\d+) projects .*? hand "
     r"arithmetic: (?P<dev_hit>\d+) of (?P<dev_n>\d+) on the tuned part .*?, and (?P<held_hit>\d+) of "
     r"(?P<held_n>\d+) on the held-out part", _corpus),
    ("README.md", r"Over (?P<n>\d+) public deployments whose real start-up outcome is known .*?, "
     r"(?P<hit>\d+) of (?P<n2>\d+) verdicts are right", _outcomes),
    ("README.md", r"on public start-up logs no constant was tuned on .*?; (?P<logs>\d+) logs, "
     r"(?P<held>\d+) of them in (?P<parts>[\w-]+) held-out parts", _log_counts),
    ("docs/engines-calibration.md", r"`tests/assets/logs/` holds (?P<logs>\d+) start-up logs", _log_counts),
    ("docs/engines.md", r"each with its source; vLLM (?P<vllm>\d+), SGLang (?P<sglang>\d+), TensorRT-LLM "
     r"(?P<trtllm>\d+); (?P<fit>\d+) fit, (?P<heldout>\d+) held out, (?P<h2>\d+) in the held-out part "
     r"heldout-2, (?P<h3>\d+) in heldout-3, (?P<h4>\d+) in heldout-4, (?P<h5>\d+) in heldout-5, "
     r"(?P<h6>\d+) in heldout-6, (?P<h7>\d+) in heldout-7, (?P<h8>\d+) in heldout-8, (?P<h9>\d+) in "
     r"heldout-9, (?P<h10>\d+) in heldout-10, (?P<h11>\d+) in heldout-11, (?P<h12>\d+) in heldout-12, "
     r"(?P<h13>\d+) in heldout-13, (?P<h14>\d+) in heldout-14, (?P<h15>\d+) in heldout-15, "
     r"(?P<h16>\d+) in heldout-16, (?P<h17>\d+) in heldout-17, (?P<h18>\d+) in heldout-18, "
     r"(?P<h19>\d+) in heldout-19, (?P<h20>\d+) in heldout-20, (?P<h21>\d+) in heldout-21, "
     r"(?P<h22>\d+) in heldout-22, (?P<h23>\d+) in heldout-23, (?P<h24>\d+) in heldout-24, "
     r"(?P<h25>\d+) in heldout-25, (?P<h26>\d+) in heldout-26, (?P<h27>\d+) in heldout-27, "
     r"(?P<h28>\d+) in heldout-28, (?P<h29>\d+) in heldout-29, (?P<h30>\d+) in heldout-30, "
     r"(?P<h31>\d+) in heldout-31, (?P<h32>\d+) in heldout-32, (?P<h33>\d+) in heldout-33, "
     r"(?P<h34>\d+) in heldout-34, (?P<h35>\d+) in heldout-35, (?P<h36>\d+) in heldout-36, "
     r"(?P<h37>\d+) in heldout-37, (?P<h39>\d+) in heldout-39, (?P<h40>\d+) in heldout-40, "
     r"(?P<h41>\d+) in heldout-41, (?P<h42>\d+) in heldout-42, (?P<h43>\d+) in heldout-43, "
     r"(?P<h44>\d+) in heldout-44, (?P<h45>\d+) in heldout-45, (?P<h46>\d+) in heldout-46, "
     r"(?P<h47>\d+) in heldout-47, (?P<h49>\d+) in heldout-49, (?P<h50>\d+) in heldout-50, "
     r"(?P<h51>\d+) in heldout-51, (?P<h52>\d+) in heldout-52, (?P<fresh>\d+) in fresh-h100, "
     r"(?P<fresh13>\d+) in fresh-logs13 and (?P<fresh14>\d+) in fresh-logs14;",
     _engine_log_counts),
    ("docs/engines-calibration.md", r"heldout-11 now holds (?P<n>\d+) logs",
     lambda: _part_size("heldout-11")),
    ("docs/engines-calibration.md", r"so their medians are single runs; it holds (?P<n>\d+) logs",
     lambda: _part_size("heldout-5")),
    ("README.md", r"kvplan/v1 files and (?P<n>\d+) manifest formats", _manifest_formats),
    ("docs/check.md", r"verdicts: (?P<hit>\d+) of (?P<n>\d+) \(.*?within the engine's tolerance: "
     r"(?P<t_hit>\d+) of (?P<t_n>\d+)", _check_outcomes),
    ("docs/check.md", r"(?P<files>\d+) public manifests \(tests/assets/check/corpus, sources",
     _corpus),
    ("docs/check.md", r"reader\); (?P<held_n>\d+) files \(10 of the first 41", _corpus),
    ("docs/check.md", r"Now: (?P<deployments>\d+) deployments in (?P<files>\d+) files: (?P<pass>\d+) PASS, "
     r"(?P<fail>\d+) FAIL, (?P<warn>\d+) WARN, (?P<error>\d+) ERROR", _corpus_run),
]


@pytest.mark.parametrize("claim", PROSE, ids=[f"{p}: {r[:40]}" for p, r, _ in PROSE])
def test_numbers_in_prose_are_what_kvplan_computes(claim) -> None:  # noqa: ANN001
    assert_prose(claim)
