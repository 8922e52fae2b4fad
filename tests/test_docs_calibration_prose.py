"""Per-log calibration figures quoted in README.md and docs/engines-calibration.md as current ("now", "since
task X"), checked against `kvplan calibrate tests/assets/logs` (task h40docs: after six branches
were merged, several such figures were stale: 300 +0.33% for +0.30%, 286 27.6% for 24.0%, 89
-0.79% for -0.82%, 284 1.9% for 2.0%). Figures "as first measured" or "before task X" are history
and are not checked here; tests/test_docs_generated_calibration.py checks the tables' runs and
medians.

Each pattern is searched in the page with its line breaks folded to spaces; each named group must
equal the |error| in KV tokens from shapes that calibrate computes for that log, to the printed
precision (group names: e<log> at 2 decimals, d<log> at 1 decimal).

Task h45readme moved README's per-round passages (its "Recent rounds" bullets and the paragraph on
the vLLM dense runs beyond 5%) word for word to docs/engines.md's "Calibration history (moved
from README)"; their patterns moved with them and still check the same figures there. Task
h61docsplit moved that section and the rest of the calibration set word for word to
docs/engines-calibration.md, and the per-task write-ups (h43misses) to docs/engines-findings.md.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# docs/engines.md's calibration record and task write-ups moved to these pages (task h61docsplit)
CAL = "docs/engines-calibration.md"
FINDINGS = "docs/engines-findings.md"
_ERRORS: dict[str, float] = {}


def _errors() -> dict[str, float]:
    """|error| in KV tokens from shapes, by the log's number (each log here is one run)."""
    if not _ERRORS:
        from kvplan.calibrate.compare import headline
        from tests.conftest import calibrated_logs

        for rep in calibrated_logs():
            shape = headline(rep, "shapes")
            if shape is not None:
                _ERRORS.setdefault(rep.log.split("-")[0], abs(shape.error_pct))
    return _ERRORS


def _expected(group: str) -> str:
    kind, log = group[0], group[1:]
    err = _errors()[log]
    return f"{err:.2f}" if kind == "e" else f"{err:.1f}"


def _trt_heldout24_now() -> dict[str, str]:
    """The range over 310-319 after task h39trt12 (all in fit; README's until task h45readme moved
    it to docs/engines.md, now docs/engines-calibration.md): the TRTLLM-backend nine's lowest and
    highest, and 315 (DeepGEMM) apart, at one decimal."""
    nine = [_errors()[str(n)] for n in range(310, 320) if n != 315]
    return {"lo": f"{min(nine):.1f}", "hi": f"{max(nine):.1f}", "d315": _expected("d315")}


def _heldout24_median() -> dict[str, str]:
    """docs/engines-calibration.md's heldout-24 row: the median over the ten after task h39trt12."""
    return {"median": f"{statistics.median(_errors()[str(n)] for n in range(310, 320)):.2f}"}


# (page, pattern); every named group is a log's current |error|
CURRENT = [
    (CAL, r"log 300 \(0\.6\.6\.post1 on a T4, -2\.24% as first measured\) moved to fit .*?"
     r"\(\+(?P<e300>[\d.]+)% now; \+0\.33% before task h39rope\)"),
    (CAL, r"111 \(UI-TARS.*?\(-(?P<e111>[\d.]+)% now; -0\.49% before task h39rope\)"),
    (CAL, r"89 \(Llama-4-Scout at TP 4, 14\.7% as first measured\)[^;]*?"
     r"\(-(?P<e89>[\d.]+)% now; -0\.79% before task h38router"),
    (CAL, r"286 \(65\.0% as first measured.*?\((?P<d286>[\d.]+)% now; "
     r"27\.6% until task h38mlarep"),
    (CAL, r"284 and 285 \(46\.3% and 7\.2% as first measured.*?\((?P<d284>[\d.]+)% and "
     r"(?P<d285>[\d.]+)% now;"),
    (CAL, r"121 and 142 \(6\.49% and 3\.42% as first measured\) moved to fit when their misses "
     r"were read \(\+(?P<d121>[\d.]+)% and \+(?P<d142>[\d.]+)% now\)"),
    (CAL, r"The vLLM dense runs beyond 5%.*?: 94 \(\+(?P<d94>[\d.]+)%; .*? "
     r"200 \(\+(?P<d200>[\d.]+)%, "
     r".*? 283 \(\+(?P<d283>[\d.]+)%, .*? 48 \(\+(?P<d48>[\d.]+)%\) and 235 \(\+(?P<d235>[\d.]+)%\) .*? "
     r"248 \(\+(?P<d248>[\d.]+)%\)"),
    (CAL, r"\+(?P<d274>[\d.]+)% and \+(?P<d275>[\d.]+)% since task h36v083"),
    (CAL, r"\+(?P<d282>[\d.]+)% now \(0\.7 GiB unbooked"),
    (CAL, r"it still misses, \+(?P<d272>[\d.]+)%\."),
    (CAL, r"\+6\.44% in fit since task h36v083 .*?, "
     r"\+(?P<e282>[\d.]+)% since task h39rope"),
    (CAL, r"\+1\.85% in fit since task h35vl281 .*?, \+(?P<e281>[\d.]+)% since task h39rope"),
    (CAL, r"\+24\.10% after task h38mlarep, \+(?P<e286>[\d.]+)% since task h39rope, in fit"),
    (CAL, r"in fit, -(?P<e284>[\d.]+)% now\);.*?in fit, -(?P<e285>[\d.]+)% now\) \|"),
    (CAL, r"0\.6\.5-0\.6\.6 book growth over a start-up baseline, "
     r"\+(?P<e300>[\d.]+)% since task "
     r"h39rope, in fit\)"),
    (CAL, r"the \"after\" figures are 111 -(?P<e111>[\d.]+)%, 300 \+(?P<e300>[\d.]+)%, 109 "
     r"\+(?P<e109>[\d.]+)% and 94 \+(?P<e94>[\d.]+)% \(29 unchanged, \+(?P<e29>[\d.]+)%\)"),
    (FINDINGS, r"Task h43misses took the held-out vLLM dense runs beyond 5%.*?"
     r"\(248 stays held out at \+(?P<e248>[\d.]+)%, 235 at \+(?P<e235>[\d.]+)%;"),
]


@pytest.mark.parametrize("claim", CURRENT, ids=[f"{p}: {r[:40]}" for p, r in CURRENT])
def test_current_per_log_figures_are_what_calibrate_computes(claim: tuple[str, str]) -> None:
    page, pattern = claim
    text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
    match = re.search(pattern, text, re.S)
    assert match, f"{page}: the sentence /{pattern[:60]}.../ is gone; update CURRENT"
    wrong = {k: (v, _expected(k)) for k, v in match.groupdict().items() if v != _expected(k)}
    assert not wrong, f"{page}: prose says / kvplan calibrate computes: {wrong}"


def test_moved_readme_heldout24_range_after_h39trt12() -> None:
    text = " ".join((ROOT / "docs" / "engines-calibration.md").read_text(encoding="utf-8").split())
    match = re.search(r"now \+(?P<lo>[\d.]+)% to \+(?P<hi>[\d.]+)%, 315 \+(?P<d315>[\d.]+)%", text)
    assert match, "docs/engines-calibration.md: heldout-24's range after task h39trt12 is gone"
    assert match.groupdict() == _trt_heldout24_now()


def test_engines_heldout24_median_after_h39trt12() -> None:
    text = " ".join((ROOT / "docs" / "engines-calibration.md").read_text(encoding="utf-8").split())
    match = re.search(r"(?P<median>[\d.]+)% over the ten after task h39trt12", text)
    assert match, "docs/engines-calibration.md: heldout-24's median after task h39trt12 is gone"
    assert match.groupdict() == _heldout24_median()


def test_a_stale_figure_fails() -> None:
    """The check is not vacuous: 300's figure before task h39rope (+0.33%) is not today's, and
    the sentence (README's until task h45readme) with it substituted would fail the first CURRENT
    pattern."""
    assert _expected("e300") == "0.30"
    stale = ("log 300 (0.6.6.post1 on a T4, -2.24% as first measured) moved to fit x "
             "(+0.33% now; +0.33% before task h39rope)")
    match = re.search(CURRENT[0][1], stale)
    assert match and match["e300"] != _expected("e300")
