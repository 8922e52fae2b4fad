"""The mutation figures the docs quote equal the records benchmarks/mutation.py wrote
(benchmarks/results/mutation.jsonl, one line a run; task mut2: they were copied from the run's
output by hand and checked by nothing). Each figure is recomputed from a record's counts, not
from its rounded score: mutants, caught by tests (caught less what mypy rejected), rejected by
mypy, documented equivalents, survivors, the score and the score over what mypy accepts.

Runs started with --no-record (the stop-71, -80, -100 and -101 samples in docs/development.md)
left no record; their figures are quoted output and not checked here."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.docs_prose import ROOT

RECORDS = [json.loads(line) for line in
           (ROOT / "benchmarks" / "results" / "mutation.jsonl").read_text().splitlines()
           if line.strip()]
PACKAGE = {"capacity": "capacity", "check verdict": "verdict", "traffic": "traffic",
           "deploy": "deploy", "engines": "engines", "records": "records"}


def _page(name: str) -> str:
    return " ".join((ROOT / "docs" / name).read_text(encoding="utf-8").split())


def _whole(package: str) -> dict[str, Any]:
    """The package's last finished run over all its mutants (no --sample)."""
    runs = [r for r in RECORDS if r["package"] == package and r.get("sample") is None
            and r.get("finished", True)]
    assert runs, f"no whole run of {package} in mutation.jsonl"
    return runs[-1]


def _sampled(sample: object) -> dict[str, Any]:
    runs = [r for r in RECORDS if r.get("sample") == sample]
    assert runs, f"no run of the sample {sample!r} in mutation.jsonl"
    return runs[-1]


def _typed(r: dict[str, Any]) -> int:
    return int(r["counts"].get("caught by type check", 0))


def _score(r: dict[str, Any]) -> float:
    return 100 * (r["caught"] + r["equivalent_documented"]) / r["checked"]


def _score_typed(r: dict[str, Any]) -> float:
    return 100 * (r["caught"] - _typed(r) + r["equivalent_documented"]) / (r["checked"] - _typed(r))


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def _same_percent(said: str, exact: float) -> bool:
    """A percentage as printed (its own number of decimals) against the exact figure."""
    decimals = len(said.split(".")[1]) if "." in said else 0
    return abs(float(said) - exact) <= 0.5 * 10 ** -decimals + 1e-9


def test_the_latest_scores_table_is_the_records() -> None:
    text = _page("development.md")
    head = re.search(r"Latest scores \(mutmut ([\d.]+), (\d{4}-\d\d-\d\d)\):", text)
    assert head, "docs/development.md: the 'Latest scores' table is gone"
    rows = re.findall(r"\| (capacity|check verdict|traffic|deploy|engines) \| ([\d,]+) \| "
                      r"([\d,]+) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \| ([\d.]+)% \| ([\d.]+)% \|",
                      text[head.end():])
    assert sorted(r[0] for r in rows) == sorted(["capacity", "check verdict", "traffic",
                                                 "deploy", "engines"])
    for name, mutants, tests, typed, equivalent, survivors, score, score_typed in rows:
        r = _whole(PACKAGE[name])
        assert (r["tool_version"], r["date"][:10]) == head.groups(), name
        assert (_int(mutants), _int(tests), _int(typed), _int(equivalent), _int(survivors)) == (
            r["checked"], r["caught"] - _typed(r), _typed(r), r["equivalent_documented"],
            r["survived"]), name
        assert r["mutants"] == r["checked"], f"{name}: the record is a partial run"
        assert _same_percent(score, _score(r)), (name, score, _score(r))
        assert _same_percent(score_typed, _score_typed(r)), (name, score_typed, _score_typed(r))


def test_the_benchmarks_page_row_is_the_records() -> None:
    text = _page("benchmarks.md")
    row = re.search(r"\| `benchmarks/mutation.py` \|[^|]*\| mutmut ([\d.]+), (\d{4}-\d\d-\d\d): "
                    r"([^|]*)\|", text)
    assert row, "docs/benchmarks.md: the mutation.py row is gone"
    found = re.findall(r"(capacity|check verdict|traffic|engines|deploy|records) ([\d.]+)% "
                       r"\(([\d,]+)(?: mutants)?(?:; (\d+) survivors?)?\)", row.group(3))
    assert len(found) == 5, row.group(3)
    for name, score, mutants, survivors in found:
        r = _whole(PACKAGE[name])
        assert (r["tool_version"], r["date"][:10]) == row.groups()[:2], name
        assert (_int(mutants), int(survivors or 0)) == (r["checked"], r["survived"]), name
        assert _same_percent(score, _score(r)), (name, score, _score(r))


def test_the_records_package_sentence_is_its_record() -> None:
    m = re.search(r"`records` is the plain records and the fast acceptor \([^)]*\): ([\d.]+)% of "
                  r"([\d,]+) mutants on (\d{4}-\d\d-\d\d) \(([\d,]+) caught, (\d+) documented "
                  r"equivalent\)", _page("development.md"))
    assert m, "docs/development.md: the records package's sentence is gone"
    r = _whole("records")
    score, mutants, date, caught, equivalent = m.groups()
    assert (_int(mutants), date, _int(caught), int(equivalent)) == (
        r["checked"], r["date"][:10], r["caught"], r["equivalent_documented"])
    assert _same_percent(score, _score(r))


def test_the_sort_sampler_sample_is_its_record() -> None:
    m = re.search(r"\(`--sample '\*vllm_sort_sampler\*'`, (\d+) mutants, (\d+) min\): [\d.]+% "
                  r"\(\d+ survived\) with the tests it came with, ([\d.]+)% \((\d+) survived\) "
                  r"after", _page("development.md"))
    assert m, "docs/development.md: the vllm_sort_sampler sentence is gone"
    r = _sampled("*vllm_sort_sampler*")
    mutants, minutes, score, survived = m.groups()
    assert (int(mutants), int(survived)) == (r["checked"], r["survived"])
    assert int(minutes) == round(r["seconds"] / 60)
    assert _same_percent(score, _score(r))


@pytest.mark.parametrize("r", [r for r in RECORDS if r["package"] == "engines"
                               and isinstance(r.get("sample"), list)],
                         ids=lambda r: r["date"])
def test_a_recorded_multi_module_sample_is_quoted_as_recorded(r: dict[str, Any]) -> None:
    """A recorded run over several --sample patterns is quoted in docs/development.md with its
    date and the script's own summary line, figures as the record holds them."""
    line = (f"engines: score {r['score']:.1%} ({r['caught']} caught + "
            f"{r['equivalent_documented']} documented equivalent of {r['checked']} checked; "
            f"{r['survived']} survived)")
    text = _page("development.md")
    assert f"`{line}`" in text and r["date"] in text, line
    typed = f"{r['score_mypy_accepted']:.1%} of the {r['mypy_accepted']} mypy accepts"
    assert typed in text, typed
