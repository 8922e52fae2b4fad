"""A vLLM draft model's KV cache by release (task vllmleft; kvplan.engines.vllm_flags docstring):
V0 splits the target's blocks so both models get as many; 0.8.0-0.9.2 fall back from V1 to V0
for a draft model; 0.10.0-0.14.1 refuse it (NotImplementedError); from 0.15.0 V1 runs it, its
layers at their own KV heads and head size in the same blocks.

Target Llama-3-8B (model_specs/llama-3-8b.yaml: 32 layers, 8 KV heads x 128), draft
Llama-3.2-1B (16 layers, 8 KV heads x 64), bf16, one H100, 16-token blocks."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.steps import Steps
from kvplan.engines.vllm_flags import draft_release_refusal, v0_split_steps
from tests.conftest import explain_record, step_values

TARGET_BLOCK = 16 * 32 * 8 * 128 * 2 * 2  # 2,097,152
DRAFT_BLOCK = 16 * 16 * 8 * 64 * 2 * 2  # 524,288: the draft's own heads and head size
ARGS = ("llama-3-8b", "--gpu", "h100", "--engine", "vllm", "--speculative-model", "llama-3.2-1b",
        "--num-speculative-tokens", "4")


@pytest.mark.parametrize(("version", "words"), [
    ("0.8.0", "runs a draft model on its V0 engine"),
    ("0.9.2", "plan --engine-version 0.9.2-v0"),
    ("0.10.0", "\"Speculative decoding with draft model is not supported yet\""),
    ("0.10.0-v0", "spec_decode is gone from the 0.10.0 wheel"),
    ("0.10.2", "(NotImplementedError, vllm/engine/arg_utils.py:1497-1498 in 0.10.2"),
    ("0.11.0", "\"Draft model speculative decoding is not supported yet\""),
    ("0.14.1", "serve vLLM 0.15.0 or newer"),
])
def test_releases_that_do_not_plan_a_draft_are_refused(version: str, words: str) -> None:
    res = CliRunner().invoke(app, ["size", *ARGS, "--engine-version", version])
    line = " ".join(res.output.split())
    assert res.exit_code == 2 and "Traceback" not in res.output, res.output
    assert line.startswith(f"error: vLLM {version}") and words in line


@pytest.mark.parametrize("version", ["0.6.6", "0.7.3", "0.9.2-v0", "0.15.0", "0.34.0"])
def test_releases_that_run_a_draft_plan_its_own_kv_shape(version: str) -> None:
    steps = step_values(explain_record(*ARGS, "--engine-version", version))
    assert steps["target bytes per block"] == TARGET_BLOCK
    assert steps["draft KV bytes per block"] == DRAFT_BLOCK
    assert steps["bytes per block"] == TARGET_BLOCK + DRAFT_BLOCK
    kv = steps["KV cache memory"]
    if version in ("0.15.0", "0.34.0"):  # V1: one block id over both models' layers
        assert steps["blocks (raw)"] == kv // (TARGET_BLOCK + DRAFT_BLOCK)
    else:  # V0: the scorer's blocks, split evenly
        assert steps["target blocks"] == kv // TARGET_BLOCK
        assert steps["blocks (raw)"] == kv // TARGET_BLOCK * TARGET_BLOCK // (
            TARGET_BLOCK + DRAFT_BLOCK)


def test_the_rule_by_release() -> None:
    assert draft_release_refusal("0.7.3", False) is None
    assert draft_release_refusal("0.8.5", False) is None  # '-v0': V0 runs it
    assert draft_release_refusal("0.8.5", True) is not None
    assert draft_release_refusal("0.10.0", False) is not None
    assert draft_release_refusal("0.14.1", True) is not None
    assert draft_release_refusal("0.15.0", True) is None
    assert draft_release_refusal(None, True) is None  # kvplan's default, 0.34.0


def test_v0_split_floors_the_target_blocks_first() -> None:
    # split_num_cache_blocks_evenly (spec_decode_worker.py:1140-1160 in 0.6.6): 6.5 target
    # blocks of memory -> 6 scorer blocks -> int(6 x 2,097,152 / 2,621,440) = int(4.8) = 4,
    # where one pool of 2,621,440 B blocks would hold floor(5.2) = 5
    st = Steps()
    st.given("KV cache memory", 13 * TARGET_BLOCK // 2, "bytes", "")
    st.given("target bytes per block", TARGET_BLOCK, "bytes", "")
    st.given("bytes per block", TARGET_BLOCK + DRAFT_BLOCK, "bytes", "")
    v0_split_steps(st)
    assert st.int("target blocks") == 6 and st.int("blocks (raw)") == 4
