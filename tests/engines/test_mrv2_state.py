"""Model Runner V2's persistent GPU state, booked where vLLM books it (task h28state).

The sizes are read in the 0.28.0-0.33.0 wheels (kvplan/engines/vllm_mrv2_state.py cites the
lines); the booking is `total_consumed` (free at start-up - free after profiling), from 0.27
(task h30v1miss read it in the 0.27.0 and 0.27.1 wheels). These
tests recompute the bytes by hand from those lines and check where the CLI shows the step.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, Measured, run_engine, verify_steps
from kvplan.engines.vllm_mrv2_state import booked, state_bytes
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB
from tests.conftest import explain_record, step_values

STEP = "Model Runner V2 state"


def by_hand(seqs: int, vocab: int, batched: int) -> int:
    """int32 = 4 B. penalties.py: output_bin_counts seqs x vocab, prompt_bin_mask seqs x
    ceil(vocab / 32); structured_outputs.py: grammar bitmask seqs x 1 x ceil(vocab / 32);
    logit_bias.py: 1,024 allowed + 1,024 bias ids + 1,024 bias values + 128 stop ids a row;
    bad_words.py: 1,024 ids + 129 offsets a row; logprob.py: 128 ids a row; input_batch.py:
    int32 ids + int64 positions + bool padding a batched token."""
    words = (vocab + 31) // 32
    return (seqs * vocab * 4 + 2 * seqs * words * 4 + seqs * (3 * 1024 + 128) * 4
            + seqs * (1024 + 129) * 4 + seqs * 128 * 4 + batched * (4 + 8 + 1))


def test_the_bytes_at_256_sequences_and_a_151936_vocabulary() -> None:
    # 256 x 151,936 x 4 = 155,582,464; 2 x 256 x 4,748 x 4 = 9,723,904; 256 x 3,200 x 4 =
    # 3,276,800; 256 x 1,153 x 4 = 1,180,672; 256 x 128 x 4 = 131,072
    assert state_bytes(256, 151_936, 0).last_stage == by_hand(256, 151_936, 0) == (
        155_582_464 + 9_723_904 + 3_276_800 + 1_180_672 + 131_072) == 169_894_912
    assert state_bytes(256, 151_936, 2_048).last_stage == 169_894_912 + 26_624
    assert state_bytes(256, 151_936, 2_048).other_stage == 26_624


def test_the_bytes_for_llama_3_at_the_serve_default_on_an_h100() -> None:
    # 1,024 x 128,256 x 4 = 525,336,576; 2 x 1,024 x 4,008 x 4 = 32,833,536; 1,024 x 4,481 x 4 =
    # 18,354,176; 8,192 x 13 = 106,496
    s = state_bytes(1_024, 128_256, 8_192)
    assert s.last_stage == by_hand(1_024, 128_256, 8_192) == (
        525_336_576 + 32_833_536 + 18_354_176 + 106_496) == 576_630_784
    assert 0.53 < s.last_stage / GIB < 0.54
    assert s.formula.startswith("1,024 seqs x (128,256 vocab + 2 x 4,008 + 4,481) x 4 B + "
                                "8,192 tok x 13 B")


def test_speculative_tokens_widen_the_grammar_bitmask() -> None:
    # decode_query_len = 4 draft tokens + 1: the bitmask has 5 rows a sequence, 4 more than
    # without: 256 x 4 x 4,748 x 4 = 19,447,808
    s = state_bytes(256, 151_936, 0, 4)
    assert s.last_stage == 169_894_912 + 19_447_808 == 189_342_720
    assert s.formula.startswith("256 seqs x (151,936 vocab + 6 x 4,748 + 4,481) x 4 B")


@pytest.mark.parametrize(("version", "v1", "mrv2", "expected"), [
    ("0.26.0", True, True, False),  # the peak is reset after the state exists: booked nowhere
    # total_consumed from 0.27: 0.27.0's and 0.27.1's utils/mem_utils.py:317-326 are 0.28.0's
    # (task h30v1miss; kvplan started at 0.28 until then)
    ("0.27.0", True, True, True),
    ("0.27.1", True, True, True),
    ("0.28.0", True, True, True),
    ("0.28.1rc1.dev50+gcac8a75a7", True, True, True),
    ("0.29.0", True, True, True),
    ("0.33.0", True, True, True),
    ("0.33.0", True, False, False),  # the old runner keeps no vocabulary-sized state
    ("0.8.5-v0", False, True, False),
])
def test_which_releases_book_it(version: str, v1: bool, mrv2: bool, expected: bool) -> None:
    assert booked(version, v1, mrv2) is expected


def test_explain_shows_the_step_on_the_default_version() -> None:
    rec = explain_record("llama-3.1-8b", "--gpu", "h100", "--engine", "vllm")
    assert rec["engine_version"].startswith("0.34")
    v = step_values(rec)
    assert v[STEP] == 576_630_784  # 1,024 sequences, 8,192 tokens: the serve default here
    kv = next(s for s in rec["steps"] if s["label"] == "KV cache memory")
    assert "-" + STEP in kv["args"]
    # 0.34: the budget is min(requested, device headroom) (kvplan.engines.vllm_extensible)
    assert v["KV cache memory"] == (v["KV sizing budget"] - v["weights"] - v["activation peak"]
                                    - v["non-torch memory"] - v[STEP] - v["CUDA graph memory"])


def test_026_shows_no_step() -> None:
    v = step_values(explain_record("llama-3.1-8b", "--gpu", "h100", "--engine", "vllm",
                             "--engine-version", "0.26.0"))
    assert STEP not in v
    assert v["KV cache memory"] == (v["requested memory"] - v["weights"] - v["activation peak"]
                                    - v["non-torch memory"] - v["CUDA graph memory"])


def test_every_tensor_parallel_gpu_holds_the_full_vocabulary() -> None:
    one = step_values(explain_record("llama-3.1-8b", "--gpu", "h100", "--engine", "vllm"))
    two = step_values(explain_record("llama-3.1-8b", "--gpu", "h100", "--engine", "vllm", "--tp", "2"))
    assert two[STEP] == one[STEP] == 576_630_784


def test_moe_on_the_old_runner_in_028_has_none_and_029_has_it() -> None:
    # Qwen3-30B-A3B's architecture is not in 0.28's DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES
    args = ("qwen3-30b-a3b", "--gpu", "h100", "--engine", "vllm", "--engine-version")
    assert STEP not in step_values(explain_record(*args, "0.28.0"))
    assert step_values(explain_record(*args, "0.29.0"))[STEP] == by_hand(1_024, 151_936, 8_192)


def test_a_logged_consumed_figure_already_holds_it() -> None:
    """0.28's "consumed memory (weights + non-torch)" is read as the weights with non-torch 0
    (kvplan.calibrate.compare), so the state is inside it and not booked again; a log that gives
    only the loaded weights still gets the term."""
    h100 = load_hardware("h100")
    r = SizeRequest(model=load_model("llama-3.1-8b"), gpu=h100, context_tokens=8192)
    base = EngineSettings(engine=Engine.vllm, version="0.28.0")
    consumed = run_engine(r, replace(base, measured=Measured(weights_bytes=16 * GIB,
                                                             non_torch_bytes=0)))
    loaded = run_engine(r, replace(base, measured=Measured(weights_bytes=16 * GIB)))
    assert STEP not in {s.label for s in consumed.steps}
    assert {s.label: s.value for s in loaded.steps}[STEP] == by_hand(1_024, 128_256, 8_192)
    assert verify_steps(loaded.steps) == []


@pytest.mark.parametrize(("model", "pp", "stage", "expected"), [
    ("llama-3.1-8b", "2", "last, with the LM head", by_hand(1_024, 128_256, 8_192)),
    ("llama-3.1-8b", "3", "first, with the token embeddings", 8_192 * 13),  # 11 layers of 32
])
def test_pipeline_stages_other_than_the_last_hold_only_the_input_buffers(
        model: str, pp: str, stage: str, expected: int) -> None:
    """vLLM builds the sampler on the last pipeline stage only (`is_last_pp_rank`); the stage
    kvplan sizes is the one with the fewest blocks, and its step holds what that stage holds."""
    rec = explain_record(model, "--gpu", "h100", "--engine", "vllm", "--pp", pp)
    weights = next(s for s in rec["steps"] if s["label"] == "weights")["formula"]
    assert stage in weights
    assert step_values(rec)[STEP] == expected
