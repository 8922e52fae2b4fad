"""Which vLLM releases subtract a CUDA-graph estimate before sizing the pool, per model runner
(task h29graphs; kvplan/engines/vllm_graphs.py cites the lines read in the 0.25.0-0.33.0 wheels).

- the old (V1) runner's profile_cudagraph_memory measures the graphs in every release read, and
  determine_available_memory subtracts the estimate from 0.21 (VLLM_MEMORY_PROFILER_ESTIMATE_
  CUDAGRAPHS defaults to 1);
- Model Runner V2's returns 0 in 0.25.0-0.28.0, and measures from 0.29.0;
- from 0.27 the printed peak activation holds the subtracted estimate.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kvplan.capacity import SizeRequest
from kvplan.cli import app
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.vllm_graphs import note, printed_activation_holds_estimate, subtracted
from kvplan.engines.vllm_series import flavour
from kvplan.specs import load_hardware, load_model

STEP = "CUDA graph memory"


@pytest.mark.parametrize(("version", "mrv2", "expected"), [
    ("0.20.2", False, False),  # captured after sizing
    ("0.21.0", False, True),  # the estimate arrives (old runner)
    ("0.24.0", False, True),
    ("0.25.0", False, True),  # old runner: MoE models outside the MRV2 list
    ("0.25.0", True, False),  # gpu/model_runner.py:680 returns 0
    ("0.27.1", True, False),  # :749
    ("0.28.0", True, False),  # :843
    ("0.28.1rc1", True, False),
    ("0.28.0", False, True),
    ("0.29.0", True, True),  # :896 -> gpu/cudagraph_utils.py:718
    ("0.31.0", True, True),
    ("0.32.0", True, True),
    ("0.33.0", True, True),
    ("0.34.0", True, True),  # the graphs still come out of the pool, measured after capture
    ("0.40.1", True, True),  # newer than read: modelled as 0.34
    ("0.31.0-v0", False, False),  # V0 forced
])
def test_the_rule_per_release_and_runner(version: str, mrv2: bool, expected: bool) -> None:
    fl = flavour(version)
    assert subtracted(fl, mrv2, enforce_eager=False) is expected
    assert subtracted(fl, mrv2, enforce_eager=True) is False
    said = note(fl, mrv2, enforce_eager=False)
    assert said.startswith("CUDA graphs: captured before sizing" if fl.extensible_kv else
                           "CUDA graphs: estimate subtracted before sizing" if expected else
                           "CUDA graphs: not subtracted" if fl.graphs_subtracted else
                           "CUDA graphs: captured after sizing")


def test_the_notes_cite_the_lines_of_the_release() -> None:
    assert "gpu/model_runner.py:749 in 0.27.1" in note(flavour("0.27.1"), True, False)
    assert "gpu/model_runner.py:680 in 0.25.0" in note(flavour("0.25.0"), True, False)
    said = note(flavour("0.31.0"), True, False)
    assert "gpu/model_runner.py:1004 -> gpu/cudagraph_utils.py:854" in said
    assert "gpu_worker.py:676 subtracts it; read in 0.31.0" in said
    assert "gpu_model_runner.py:6645" in note(flavour("0.27.1"), False, False)
    assert note(flavour("0.33.0"), True, True) == "CUDA graphs: none (enforce_eager)"
    # 0.34.0: profile_cudagraph_memory returns 0 with the extensible KV cache (gpu/model_runner.py
    # :1123-1125) and the pool is sized after capture (extensible_kv_cache.py:592-618)
    said = note(flavour("0.34.0"), True, False)
    assert "gpu/model_runner.py:1123-1125" in said and "extensible_kv_cache.py:592-618" in said


@pytest.mark.parametrize(("version", "expected"), [
    ("0.21.0", False), ("0.26.1", False), ("0.27.0", True), ("0.27.1", True), ("0.33.0", True)])
def test_printed_activation_holds_the_estimate_from_027(version: str, expected: bool) -> None:
    # 0.26.0 gpu_worker.py:526 prints torch_peak_increase; 0.27.0 :527-529 adds the estimate
    assert printed_activation_holds_estimate(version) is expected


def _kv(model: str, version: str) -> tuple[int, dict[str, int]]:
    req = SizeRequest(model=load_model(model), gpu=load_hardware("a100-80gb"),
                      context_tokens=8192)
    res = run_engine(req, EngineSettings(engine=Engine.vllm, version=version))
    return res.kv_cache_bytes, {s.label: int(s.value) for s in res.steps
                                if isinstance(s.value, int)}


def test_the_pool_loses_the_estimate_only_where_the_release_subtracts_it() -> None:
    # Llama-3.1-8B (dense): Model Runner V2 in 0.25-0.28, no estimate; the step shows 0
    # (0.27 books Model Runner V2's persistent state, task h30v1miss)
    kv, steps = _kv("llama-3.1-8b", "0.27.1")
    assert steps[STEP] == 0
    assert kv == (steps["requested memory"] - steps["weights"] - steps["activation peak"]
                  - steps["non-torch memory"] - steps["Model Runner V2 state"])
    # Qwen2.5-7B in 0.24 (not in 0.24.0's DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES; Llama is, so
    # Model Runner V2 runs it and subtracts nothing there: task h30v1miss): the old runner's estimate
    # runner's estimate, by the capture sizes (kvplan.engines.vllm_capture): A100 80GB serve
    # defaults 2,048 tokens / 256 sequences -> sizes up to min(2 x 256, 512, 2,048) = 512: 51
    # PIECEWISE + 35 FULL (sizes <= 256) = 86 graphs in 2 modes: 358,612,992 B first capture
    # + 84 later x 28 layers x 89,653 B = 569,476,848 B (task h44graphbase)
    kv, steps = _kv("qwen2.5-7b", "0.24.0")
    assert steps[STEP] == 358_612_992 + 84 * 28 * 89_653 == 569_476_848
    assert kv == (steps["requested memory"] - steps["weights"] - steps["activation peak"]
                  - steps["non-torch memory"] - 569_476_848)
    # Qwen3-30B-A3B (MoE, not in DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES): the old runner in 0.28
    # (358,612,992 + 84 later graphs x 48 layers x 89,653 B = 720,093,888 B)
    kv, steps = _kv("qwen3-30b-a3b", "0.28.0")
    assert steps[STEP] == 358_612_992 + 84 * 48 * 89_653 == 720_093_888
    assert kv == (steps["requested memory"] - steps["weights"] - steps["activation peak"]
                  - steps["non-torch memory"] - 720_093_888)


def _explain(version: str) -> dict[str, dict[str, object]]:
    res = CliRunner().invoke(app, ["explain", "llama-3.1-8b", "--gpu", "a100-80gb", "--engine",
                                   "vllm", "--engine-version", version, "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    return {s["label"]: s for s in row["steps"]}


def test_explain_json_says_whether_graphs_are_subtracted_and_why() -> None:
    steps = _explain("0.31.0")  # Model Runner V2 measures the graphs from 0.29
    # 86 graphs (A100: 256 sequences): 358,612,992 + 84 later x 32 layers x 89,653 B
    # = 599,600,256 B
    assert steps[STEP]["value"] == 358_612_992 + 84 * 32 * 89_653 == 599_600_256
    assert "gpu/model_runner.py:1004 -> gpu/cudagraph_utils.py:854" in str(steps[STEP]["formula"])
    assert "CUDA graph memory" in str(steps["KV cache memory"]["formula"])
    steps = _explain("0.27.1")  # ... and returns 0 before
    assert steps[STEP]["value"] == 0
    assert str(steps[STEP]["formula"]).startswith(
        "not subtracted (Model Runner V2 runs this model; its profile_cudagraph_memory "
        "returns 0, gpu/model_runner.py:749 in 0.27.1")
    assert "CUDA graph memory" not in str(steps["KV cache memory"]["formula"])
