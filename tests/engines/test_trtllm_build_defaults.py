"""A TensorRT engine's default max_num_tokens by release, as TensorRT-LLM's source states it.

- before 0.11, a build without max_num_tokens plans for max_batch_size x max_input_len tokens:
  trtllm-build's check_max_num_tokens (tensorrt_llm/_common.py at NVIDIA/TensorRT-LLM@5955b8a,
  0.8-era: "setting to max_batch_size*max_input_len"), and before trtllm-build the examples'
  build.py through GenerationMixin.prepare_basic_inputs (num_tokens up to
  max_input_len x max_batch_size when max_num_tokens is None);
- the defaults: trtllm-build 0.8-0.10 --max_batch_size 1, --max_input_len 1024
  (tensorrt_llm/commands/build.py); examples/llama/build.py before 0.8: 8 and 2048;
- from 0.11: 8192 ("`max_num_tokens` in `trtllm-build` command is switched to 8192 by default",
  docs/source/release-notes.md, 0.11.0); the PyTorch backend's LLM API: 8192.
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.trtllm import (
    BUILD_PY_LIMITS,
    DEFAULT_MAX_NUM_TOKENS,
    TRTLLM_BUILD_LIMITS,
    engine_max_num_tokens,
)
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType


def test_the_build_defaults_read_in_the_source():
    assert TRTLLM_BUILD_LIMITS == (1, 1024)
    assert BUILD_PY_LIMITS == (8, 2048)
    assert DEFAULT_MAX_NUM_TOKENS == 8192


def test_trtllm_build_0_8_to_0_10_takes_max_batch_size_times_max_input_len():
    # log 143: maxBatchSize 40, trtllm-build's default max_input_len 1024 -> 40,960 tokens
    for version in ((0, 8, 0), (0, 9, 0), (0, 10, 0)):
        tokens, how = engine_max_num_tokens(version, False, None, 40, 2048)
        assert tokens == 40_960 and how is not None and "trtllm-build default" in how
    # nothing stated: trtllm-build's --max_batch_size 1 x --max_input_len 1024
    assert engine_max_num_tokens((0, 8, 0), False, None, None, 4096)[0] == 1024


def test_build_py_era_takes_the_llama_example_defaults():
    # log 36 (0.5, examples/llama/build.py): --max_batch_size 25 x default max_input_len 2048
    assert engine_max_num_tokens((0, 5, 0), False, None, 25, 4096)[0] == 51_200
    assert engine_max_num_tokens((0, 7, 1), False, None, None, 4096)[0] == 8 * 2048


def test_max_input_len_stays_below_the_engines_max_seq_len():
    # max_seq_len = max_input_len + max_output_len (max_output_len >= 1): 512 -> 511 a sequence
    assert engine_max_num_tokens((0, 8, 0), False, None, 4, 512)[0] == 4 * 511


def test_from_0_11_and_on_the_pytorch_backend_8192_and_a_stated_value_wins():
    assert engine_max_num_tokens((0, 11, 0), False, None, 40, 2048) == (8192, None)
    assert engine_max_num_tokens((0, 14, 0), False, None, 64, 2048) == (8192, None)
    assert engine_max_num_tokens((0, 21, 0), True, None, 64, 2048) == (8192, None)
    # log 145 states --max_num_tokens 12288: the rule does not apply
    assert engine_max_num_tokens((0, 8, 0), False, 12_288, 64, 2048) == (12_288, None)


def test_log_143_pool_by_hand():
    # Llama-3-8B bf16 on an RTX 3090 (25,327,697,920 B), TensorRT-LLM 0.8, maxBatchSize 40:
    # weights 8,030,261,248 x 2 = 16,060,522,496 B; activations 40,960 tokens x 55,296 elements
    # (3 x 4,096 + 3 x 14,336) x 2 B = 4,529,848,320 B; non-torch 768 MiB = 805,306,368 B
    # free = 25,327,697,920 - 16,060,522,496 - 4,529,848,320 - 805,306,368 = 3,932,020,736
    # KV = floor(0.9 x free) = 3,538,818,662; / 131,072 B a token = 26,999 -> 211 x 128 = 27,008
    req = SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("rtx-3090"),
                      context_tokens=2048, kv_dtype=DType.bf16, tp=1)
    r = run_engine(req, EngineSettings(engine=Engine.trtllm, version="0.8.0",
                                       page_size_tokens=128, memory_fraction=Fraction(9, 10),
                                       max_batch_size=40))
    assert r.activation_bytes == 4_529_848_320
    assert r.requested_bytes == 3_538_818_662
    assert r.blocks == 211 and r.kv_cache_tokens == 27_008
    assert any(s.label == "max_num_tokens" and s.value == 40_960 for s in r.steps)
    assert any("max_num_tokens 40,960" in a for a in r.assumptions)
    # the logged pool (31,616 tokens) lies in the interval the forward-pass proxy carries
    assert r.kv_cache_tokens_low <= 31_616 <= r.kv_cache_tokens_high


def test_a_stated_engine_activation_needs_no_token_rule():
    req = SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("rtx-3090"),
                      context_tokens=2048, kv_dtype=DType.bf16, tp=1)
    r = run_engine(req, EngineSettings(engine=Engine.trtllm, version="0.8.0",
                                       page_size_tokens=128, max_batch_size=40,
                                       trt_activation_bytes=1_811_942_912))
    assert r.activation_bytes == 1_811_942_912
    assert not any(s.label == "max_num_tokens" for s in r.steps)
