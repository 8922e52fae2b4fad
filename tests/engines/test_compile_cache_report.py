"""`kvplan calibrate` reports each vLLM run's torch.compile cache state (task h50coldreport): a
line beside the run's notes, a `compile_cache` field in the JSON rows, and one summary line that
sorts the vLLM dense held-out runs beyond 5% by state. The deciding lines were read by hand in
the logs named (line numbers of the files as committed); the reports are the session's
calibration (tests.conftest.calibrated_logs), never recomputed here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kvplan.calibrate.compare import calibrate_files
from kvplan.calibrate.split import is_heldout
from kvplan.render.calibration import compile_cache_note, misses_by_compile_cache, records, text_report
from tests.conftest import calibrated_logs

LOGS = Path(__file__).resolve().parents[1] / "assets" / "logs"

COLD_540 = "540-vllm-llama-3.2-3b-instruct-l4-20k-default-v0.27.1.log"
TIMER_440 = "440-vllm-qwen3-8b-rtx4090-runpod-8k-default-v0.27.1.log"
WARM_381 = "381-vllm-llama-3.1-8b-ft-rtx-6000-ada-8k-v0.15.1.log"
EAGER_541 = "541-vllm-llama-3.2-3b-instruct-l4-20k-eager-noprefix-v0.27.1.log"
UNKNOWN_48 = "48-vllm-qwen2.5-7b-awq-rtx4080-wsl-v0.26.log"
SGLANG_03 = "03-sglang-qwen3-235b-a22b-fp8-4xh100.log"


def _report(log: str):  # noqa: ANN202 - a RunReport
    (rep,) = [r for r in calibrated_logs() if r.log == log]
    return rep


@pytest.mark.parametrize(("log", "line"), [
    # line 69: "[backends.py:393] Compiling a graph for compile range (1, 2048) takes 10.51 s"
    # (59 characters from "Compiling" on: quoted whole; line 72's timer comes after it)
    (COLD_540, "torch.compile cache: cold (line 69: Compiling a graph for compile range (1, 2048) "
               "takes 10.51 s)"),
    # line 29: "[monitor.py:53] torch.compile took 38.96 s in total", no compile or load line
    (TIMER_440, "torch.compile cache: cold (line 29: torch.compile took 38.96 s in total)"),
    # line 39: "Directly load the compiled graph(s) for compile range (1, 2048) from the cache,
    # took 0.724 s" (92 characters): cut at the last space within 64, "... (1, 2048)" + " ..."
    (WARM_381, "torch.compile cache: warm (line 39: Directly load the compiled graph(s) for compile "
               "range (1, 2048) ...)"),
    # line 54's engine config prints enforce_eager=True (--enforce-eager)
    (EAGER_541, "torch.compile cache: eager (enforce_eager=True: nothing compiled)"),
    # thirteen lines, sizing only: no compile, cache, timer or eager line
    (UNKNOWN_48, "torch.compile cache: not stated"),
])
def test_per_run_line(log: str, line: str) -> None:
    assert compile_cache_note(_report(log).compile_cache) == line


def test_text_report_prints_the_line_after_the_run_notes() -> None:
    """One log through the renderer: the state line follows the run's own notes (the shapes
    note is the last of them) and comes before the next run's header."""
    reps = calibrate_files([LOGS / COLD_540])
    text = text_report(reps, 200, False)
    lines = text.splitlines()
    at = lines.index("  torch.compile cache: cold (line 69: Compiling a graph for compile range "
                     "(1, 2048) takes 10.51 s)")
    assert lines[at - 1].startswith("  shapes: ")


def test_json_field() -> None:
    """`compile_cache` is the state of vLLM rows (cold/warm/eager/unknown), null for others; it
    is the last key, after the fields that were there before."""
    reps = [_report(n) for n in (COLD_540, WARM_381, EAGER_541, UNKNOWN_48, SGLANG_03)]
    rows = records(reps)
    by_log = {r.log: {row["compile_cache"] for row in rows if row["log"] == r.log}
              for r in reps}
    assert by_log == {COLD_540: {"cold"}, WARM_381: {"warm"}, EAGER_541: {"eager"},
                      UNKNOWN_48: {"unknown"}, SGLANG_03: {None}}
    assert all(list(row)[-2:] == ["model_class", "compile_cache"] for row in rows)


def _split_tsv() -> dict[str, tuple[str, str, str]]:
    rows = {}
    for line in (LOGS / "SPLIT.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            log, part, engine, model_class = line.split("\t")[:4]
            rows[log] = (part, engine, model_class)
    return rows


def test_summary_line_against_a_recount() -> None:
    """Recount from SPLIT.tsv (part, engine, class) and the JSON rows (the shapes headline:
    KV tokens, else GPU blocks, else KV memory; `compile_cache`): vLLM, dense or sliding,
    a heldout part, |error| > 5% (a null error is infinite)."""
    rows = records(list(calibrated_logs()))
    split = _split_tsv()
    headline: dict[str, dict] = {}
    for q in ("KV memory", "GPU blocks", "KV tokens"):  # the later quantity wins
        for row in rows:
            if row["basis"] == "shapes" and row["quantity"] == q:
                headline[row["run"]] = row
    counts = {"cold": [], "warm": [], "eager": [], "unknown": []}
    for row in headline.values():
        part, engine, model_class = split[row["log"]]
        err = row["error_pct"]
        if (engine == "vllm" and model_class in ("dense", "sliding")
                and is_heldout(part) and (err is None or abs(err) > 5.0)):
            counts[row["compile_cache"]].append(row["log"].split("-")[0])
    line = misses_by_compile_cache(list(calibrated_logs()))
    found = re.fullmatch(
        r"vLLM dense held-out runs beyond 5%: (\d+) \(cold compile (\d+)(?:: ([\d, A-Z]+))?; "
        r"warm (\d+)(?:: [\dA-Z, ]+)?; eager (\d+)(?:: [\dA-Z, ]+)?; not stated (\d+)\); the "
        r"planner assumes a warm cache \(docs/engines-findings.md, task h48cold\)", line)
    assert found, line
    total, cold, cold_logs, warm, eager, unknown = found.groups()
    assert int(total) == sum(len(v) for v in counts.values())
    assert (int(cold), int(warm), int(eager), int(unknown)) == tuple(
        len(counts[s]) for s in ("cold", "warm", "eager", "unknown"))
    numbers = [re.match(r"\d+", name)[0] for name in (cold_logs or "").split(", ") if name]
    assert sorted(numbers, key=int) == sorted(counts["cold"], key=int)
    # 440 (line 29's timer, no load line) and 540 (line 69's compile) are held-out dense misses
    # (+23.51%, and 540's, README's list): both counted cold
    assert {"440", "540"} <= set(counts["cold"])


def test_prose_counts_match_the_summary() -> None:
    """README's sentence and docs/engines-findings.md's "Reported in `kvplan calibrate`" paragraph
    give the same split as held_out_dense_misses: README's 28 = 9 cold + 16 not stated + 1 warm +
    2 eager (fresh-logs14's 1000, the warm twin of 993, and 1001, eager, task logs14; 26 = 9 + 16 +
    1 before them; fresh-logs13's 990, 991, 993, 994 and 995 cold by their own compile lines, task
    logs13; 21 =
    4 + 16 + 1 before them; heldout-49's 942, task h61vllmlogs; no warm miss; 20 = 4 + 16 before it;
    19 = 4 + 15 before heldout-45's 781, a restated README with no compile line;
    17 = 2 + 15 before heldout-43's 700 and 701, both cold by their own compile lines;
    19 = 2 + 17 until tasks h50awq7b and h51blocks booked torch's whole blocks, which took 448 to
    +4.42% and 625 to +4.77%); engines-findings.md names the not-stated runs as 504, 505 (cold by their
    sources' prose) and fourteen others."""
    from kvplan.calibrate.compare import held_out_dense_misses

    root = LOGS.parents[2]
    misses = held_out_dense_misses(list(calibrated_logs()))
    readme = " ".join((root / "README.md").read_text(encoding="utf-8").split())
    found = re.search(r"of the (\d+) runs above (\d+) print a cold compile and (\d+) say nothing",
                      readme)
    assert found, "README's compile-cache sentence is gone"
    assert [int(x) for x in found.groups()] == [
        sum(len(v) for v in misses.values()), len(misses["cold"]), len(misses["unknown"])]
    engines = " ".join((root / "docs" / "engines-findings.md").read_text(encoding="utf-8").split())
    listed = re.search(r"with the other fourteen \(([\dAB, ]+)\)", engines)
    assert listed, "engines-findings.md's list of not-stated misses is gone"
    assert ["504", "505", *listed[1].split(", ")] == sorted(
        misses["unknown"], key=lambda n: n in ("504", "505"), reverse=True)
    assert "only 440 (the timer, line 29) and 540 (line 69's" in engines
    assert misses["cold"] == ["440", "540", "700", "701", "990", "991", "993", "994", "995"]
    # 1001 (fp32, eager) left the misses when task actwidth sized its activations at 4 B:
    # +5.35% -> +2.77% (2,048 x 17,280 x 2 B = 70,778,880 B more activation, 2,880 tokens fewer).
    assert misses["eager"] == ["942"] and misses["warm"] == ["1000"]


def test_no_summary_line_without_a_held_out_miss() -> None:
    """The line sorts held-out misses only: over the fit part's reports (no held-out run) and
    over one SGLang log (no compile-cache state) it is empty, and the text report leaves it out."""
    fit = [r for r in calibrated_logs() if r.part == "fit"]
    assert fit and misses_by_compile_cache(fit) == ""
    sglang = [_report(SGLANG_03)]
    assert sglang[0].compile_cache is None and misses_by_compile_cache(sglang) == ""
    assert "held-out runs beyond 5%" not in text_report(sglang, 200, False)
