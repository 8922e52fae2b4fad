"""A later pipeline stage's received hidden states, and Model Runner V2's state booked from 0.27
(task h30v1miss).

Read in vLLM's source: every stage after the first keeps
`make_empty_intermediate_tensors(batch_size=max_num_batched_tokens)`, `torch.zeros` of
max_num_batched_tokens x hidden_size for "hidden_states" and "residual" in the model dtype
(models/utils.py; models/qwen2.py, which Qwen3Model extends, and models/llama.py register the two
keys). The old V1 runner makes it in the profile run (gpu_model_runner.py:6121 in 0.27.1), so
every V1 release books it; Model Runner V2 in load_model (gpu/model_runner.py:390-399 in 0.27.1),
booked from 0.27, whose utils/mem_utils.py:317-326 books total_consumed (0.26.0 books weights +
torch's peak increase + non-torch growth). These tests recompute the bytes by hand.
"""

from __future__ import annotations

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines.vllm_stages import PP_INTERMEDIATE_KEYS, intermediate_bytes
from kvplan.specs import load_hardware, load_model
from tests.conftest import explain_by_label

BUFFER = "pipeline intermediate buffer"
STATE = "Model Runner V2 state"


def _req(model: str, pp: int) -> SizeRequest:
    return SizeRequest(model=load_model(model), gpu=load_hardware("h100"), pp=pp,
                       context_tokens=32_768)


def test_the_bytes_by_hand() -> None:
    # Qwen3-32B: hidden 5,120; 8,192 tokens x 5,120 x 2 keys x 2 B (bf16) = 167,772,160
    assert PP_INTERMEDIATE_KEYS == 2
    assert intermediate_bytes(_req("qwen3-32b", 2), True, "0.27.1", True, 8_192) == (
        8_192 * 5_120 * 2 * 2) == 167_772_160
    # Llama-3.1-8B: hidden 4,096 at 2,048 tokens: 2,048 x 4,096 x 2 x 2 = 33,554,432
    assert intermediate_bytes(_req("llama-3.1-8b", 4), True, "0.19.0", False, 2_048) == (
        33_554_432)


@pytest.mark.parametrize(("pp", "v1", "version", "mrv2", "booked"), [
    (1, True, "0.27.1", True, False),  # one stage: nothing is received
    (2, False, "0.6.4", False, False),  # V0 is not modelled here
    (2, True, "0.26.0", True, False),  # Model Runner V2 makes it before 0.26's peak reset
    (2, True, "0.27.0", True, True),  # ... and total_consumed books it from 0.27
    (2, True, "0.11.0", False, True),  # the old runner makes it inside the profile run
    (2, True, "0.19.0", False, True),
])
def test_where_it_is_booked(pp: int, v1: bool, version: str, mrv2: bool, booked: bool) -> None:
    got = intermediate_bytes(_req("qwen3-32b", pp), v1, version, mrv2, 8_192)
    assert (got == 167_772_160) is booked and (got == 0) is not booked


def _v(steps: dict[str, dict[str, object]], label: str) -> int:
    return int(steps[label]["value"])  # type: ignore[call-overload]


LOG_260 = ("qwen3-32b", "--gpu", "rtx-pro-6000-server", "--pp", "2", "--engine", "vllm",
           "--engine-version", "0.27.1", "--memory-utilization", "0.426", "-c", "32768")


def test_explain_books_the_last_stage_of_the_pp_2_start() -> None:
    # Log 260's settings. The last stage holds the LM head (the first the embeddings: the same
    # bytes), the sampler's state and the received hidden states, so it sets the pool.
    steps = explain_by_label(*LOG_260)
    assert _v(steps, BUFFER) == 167_772_160
    # 1,024 seqs (serve, >= 70 GiB) x (151,936 + 2 x 4,748 + 4,481) x 4 B + 8,192 x 13 B
    assert _v(steps, STATE) == 1_024 * (151_936 + 2 * 4_748 + 4_481) * 4 + 8_192 * 13 == (
        679_686_144)
    assert "pipeline stage 2 of 2 (last" in str(steps["weights"]["formula"])
    kv = steps["KV cache memory"]
    assert "-" + BUFFER in kv["args"]  # type: ignore[operator]
    assert _v(steps, "KV cache memory") == (
        _v(steps, "requested memory") - _v(steps, "weights") - _v(steps, "activation peak")
        - _v(steps, "non-torch memory") - 679_686_144 - 167_772_160)


def test_explain_026_books_neither() -> None:
    steps = explain_by_label(*[("0.26.0" if a == "0.27.1" else a) for a in LOG_260])
    assert BUFFER not in steps and STATE not in steps


def test_one_stage_shows_no_buffer() -> None:
    steps = explain_by_label("qwen3-32b", "--gpu", "rtx-pro-6000-server", "--engine", "vllm",
                             "--engine-version", "0.27.1")
    assert BUFFER not in steps
    assert _v(steps, STATE) == 679_686_144
