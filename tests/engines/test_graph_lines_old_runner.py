"""vLLM's printed CUDA-graph lines in `kvplan calibrate` (kvplan.calibrate.graph_checks; issue
#13, task h43oldgraph; the counts and estimate taken as data since task h44graphbase).

Formats: 0.22.1 `v1/worker/gpu_model_runner.py:6279-6286` logs "Profiling CUDA graph memory: %s"
with each mode as f"{mode.name}={len(descs)} (largest={descs[0].num_tokens})" joined by ", ",
and :6365-6368 "Estimated CUDA graph memory: %.2f GiB total".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.calibrate.graph_checks import graph_checks
from kvplan.calibrate.lines import Run
from kvplan.calibrate.parse import parse_text
from kvplan.capacity.plan import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.steps import Step
from kvplan.engines.vllm_capture import capture, estimate
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB

LOGS = Path(__file__).resolve().parents[1] / "assets" / "logs"
LOG_480 = LOGS / "480-vllm-qwen2.5-7b-instruct-awq-rtx3090-runpod-4k-seqs8-v0.22.1.log"

SYNTHETIC = (
    "(EngineCore pid=7) INFO 06-18 09:27:26 [gpu_model_runner.py:6279] Profiling CUDA graph "
    "memory: PIECEWISE=19 (largest=128), FULL=11 (largest=64)\n"
    "(EngineCore pid=7) INFO 06-18 09:27:30 [gpu_model_runner.py:6365] Estimated CUDA graph "
    "memory: 0.14 GiB total\n"
)


def _values(text: str) -> tuple[dict[str, float], list[tuple[int, str]]]:
    run = parse_text(text, Path("synthetic.log")).runs[0]
    return run.values, run.unparsed


def test_synthetic_lines_in_vllms_format_are_read() -> None:
    """Both modes' counts and largest sizes, and the estimate in GiB, from lines built on the
    format strings above; neither line is left unparsed."""
    values, unparsed = _values(SYNTHETIC)
    assert (values["cg_piecewise_graphs"], values["cg_piecewise_largest"]) == (19, 128)
    assert (values["cg_full_graphs"], values["cg_full_largest"]) == (11, 64)
    assert values["cg_estimate_gib"] == 0.14
    assert unparsed == []


def test_a_single_mode_and_the_quoted_estimate_without_total() -> None:
    """A PIECEWISE-only capture prints one mode; a write-up quoting the estimate may drop
    " total" (480's walkthrough): 0.35 read either way, no FULL keys."""
    values, unparsed = _values("Profiling CUDA graph memory: PIECEWISE=3 (largest=4)\n"
                               "Estimated CUDA graph memory: 0.35 GiB\n")
    assert (values["cg_piecewise_graphs"], values["cg_piecewise_largest"]) == (3, 4)
    assert "cg_full_graphs" not in values
    assert values["cg_estimate_gib"] == 0.35
    assert unparsed == []


def booked(req: SizeRequest, s: EngineSettings) -> tuple[tuple[int, int], tuple[int, int]]:
    """The printed counts of the Capture vLLM's profile carries on its result."""
    cap = run_engine(req, s).graph_capture
    assert cap is not None
    return cap.printed


def test_the_vllm_profile_carries_the_capture_it_booked() -> None:
    """8 sequences, 2,048 batched tokens, 0.22.1: ceiling min(8 x 1 x 2, 512) = 16, sizes 1, 2, 4,
    8, 16 (5 PIECEWISE, largest 16) and FULL decode sizes within 8 requests 1, 2, 4, 8 (4, largest
    8). Unstated, an A100 80GB's serve defaults (2,048 tokens, 256 sequences: the A100 is left
    out of the 70 GiB tier) give 51 PIECEWISE up to 512 and 35 FULL up to 256 (fit log 211's
    line); a stated PIECEWISE mode keeps the 51 and drops the FULL graphs. The other engines
    carry none (task h48mend: calibrate reads the profile's Capture, no recomputation)."""
    assert capture("0.22.1", 8, 2048).printed == ((5, 16), (4, 8))
    req = SizeRequest(model=load_model("qwen2.5-7b"), gpu=load_hardware("a100-80gb"),
                      context_tokens=4096)
    assert booked(req, EngineSettings(Engine.vllm, version="0.23.0")) == ((51, 512), (35, 256))
    seqs8 = EngineSettings(Engine.vllm, version="0.22.1", max_num_seqs=8)
    assert booked(req, seqs8) == ((5, 16), (4, 8))
    piecewise = EngineSettings(Engine.vllm, version="0.23.0", cudagraph_mode="PIECEWISE")
    assert booked(req, piecewise) == ((51, 512), (0, 0))
    assert run_engine(req, EngineSettings(Engine.sglang)).graph_capture is None


def test_counts_that_disagree_are_noted_and_the_estimate_compared() -> None:
    """kvplan books 358,612,992 + 7 later graphs x 28 layers x 89,653 B = 376,184,980 B =
    0.350350 GiB at 8 sequences; a log printing PIECEWISE=51 (largest=512) disagrees (noted),
    its FULL=4 (largest=8) agrees (no note); the estimate 0.35 is compared with no target."""
    term, how = estimate("0.22.1", 8, 2048, 28)
    assert term.best == 358_612_992 + 7 * 28 * 89_653 == 376_184_980
    run = Run(label="synthetic", values={"cg_piecewise_graphs": 51, "cg_piecewise_largest": 512,
                                         "cg_full_graphs": 4, "cg_full_largest": 8,
                                         "cg_estimate_gib": 0.35})
    step = Step("CUDA graph memory", term.best, "bytes", how)
    checks, notes = graph_checks(run, [step], capture("0.22.1", 8, 2048))
    (check,) = checks
    assert (check.quantity, check.logged) == ("CUDA graph estimate", 0.35)
    assert check.predicted == pytest.approx(376_184_980 / GIB) == pytest.approx(0.350350, abs=1e-6)
    assert check.ok is None
    assert notes == ["CUDA graphs: the log prints PIECEWISE=51 (largest=512), kvplan's capture "
                     "sizes give 5 (largest=16) (kvplan.engines.vllm_capture)"]


def test_no_booked_term_no_check_whatever_the_wording() -> None:
    """A step of 0 (Model Runner V2's 0.25-0.28 estimate) or no step: nothing compared, even
    with explain's wording of a capture in the formula (the figures are data, not wording)."""
    run = Run(label="synthetic", values={"cg_piecewise_graphs": 51, "cg_piecewise_largest": 512,
                                         "cg_estimate_gib": 0.35})
    _, how = estimate("0.22.1", 8, 2048, 28)
    cap = capture("0.22.1", 8, 2048)
    assert graph_checks(run, [Step("CUDA graph memory", 0, "bytes", how)], cap) == ([], [])
    assert graph_checks(run, [], cap) == ([], [])


def test_log_480s_lines_are_read_and_compared() -> None:
    """480 (0.22.1, 8 sequences, 28 layers) prints PIECEWISE=5 (largest=16), FULL=4 (largest=8),
    as vllm_capture gives (no note), and 0.35 GiB against kvplan's 0.350350 (fitted on it with
    211 since task h44graphbase, which moved it to fit; -84.18% against 0.055371 before):
    (0.350350 - 0.35) / 0.35 = +0.10%."""
    from kvplan.calibrate.compare import calibrate_files

    (report,) = calibrate_files([LOG_480])
    assert not any("Estimated CUDA graph" in text for _, text in report.unparsed)
    assert not any(note.startswith("CUDA graphs: the log prints") for note in report.notes)
    (check,) = [c for c in report.checks if c.quantity == "CUDA graph estimate"]
    assert check.logged == 0.35
    assert check.predicted == pytest.approx(376_184_980 / GIB)
    assert check.error_pct == pytest.approx((0.350350 - 0.35) / 0.35 * 100, abs=0.01)
    assert round(check.error_pct, 2) == 0.10
