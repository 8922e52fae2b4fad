"""Block-fp8 checkpoints at tensor-parallel sizes that split a block (task h91fp8block,
kvplan.engines.fp8_blocks): the spec's weight_block_size from each checkpoint's config.json, and
the engines' refusal at a TP whose shards are not whole blocks, on the shipped specs' real
shapes. Every expected figure is worked by hand from the config fixtures
(tests/assets/hf_configs/*.json) and the engines' checks, read in the wheels: SGLang 0.4.6.post1
srt/layers/quantization/fp8.py:213-244 (linear) and :491-511 (fused MoE); vLLM 0.7.0 fp8.py
(every merged partition checked), 0.19.1 fp8.py:629-649 (MoE), utils/fp8_utils.py:1425-1473
and layers/linear.py:470/:502 (a merged column layer with an unaligned partition skipped)."""

from __future__ import annotations

import json

import pytest

from kvplan.engines.fp8_blocks import block_fp8_reason, block_fp8_refusal
from kvplan.errors import InputError
from kvplan.specs import load_model
from kvplan.specs.hf_import import import_model
from tests.conftest import ASSETS

FIX = ASSETS / "hf_configs"
BLOCK_FP8 = ("deepseek-r1", "deepseek-v3", "kimi-k2", "qwen3-235b-a22b-fp8", "qwen3-30b-a3b-fp8",
             "qwen3-30b-a3b-thinking-2507-fp8", "qwen3-32b-fp8")
SGL = ("sglang", "0.4.6.post1")
V19 = ("vllm", "0.19.1")
V07 = ("vllm", "0.7.0")
MOE_N = "The output_size of gate's and up's weight = {} is not divisible by weight quantization "\
    "block_n = 128."
OUT_N = "Weight output_partition_size = {} is not divisible by weight quantization block_n = 128."
IN_K = "Weight input_size_per_partition = {} is not divisible by weight quantization block_k = 128."


def _message(engine: tuple[str, str], model: str, tp: int, ep: int | None = None) -> str | None:
    found = block_fp8_refusal(*engine, load_model(model), tp, ep)
    return None if found is None else found.message


@pytest.mark.parametrize("name", BLOCK_FP8)
def test_every_shipped_block_fp8_spec_carries_its_config_block_size(name: str) -> None:
    cfg = json.loads((FIX / f"{name}.json").read_text())
    stated = cfg["quantization_config"]["weight_block_size"]
    assert stated == [128, 128]  # each checkpoint's config.json, verbatim
    assert load_model(name).weight_block_size == stated


def test_no_other_shipped_spec_claims_block_scales() -> None:
    from kvplan.specs import all_models

    have = sorted(m.name for m in all_models()[0] if m.weight_block_size is not None)
    assert have == sorted(BLOCK_FP8)
    # per-tensor fp8 (ModelOpt): an fp8 checkpoint without blocks
    assert load_model("llama-3.1-70b-instruct-fp8").weight_block_size is None


def test_import_reads_the_block_size_and_refuses_a_bad_one(tmp_path) -> None:  # noqa: ANN001
    spec = import_model(str(FIX / "qwen3-32b-fp8.json"), name="q32")
    assert spec.weight_block_size == [128, 128]
    cfg = json.loads((FIX / "qwen3-32b-fp8.json").read_text())
    cfg["quantization_config"]["weight_block_size"] = [128]
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps(cfg))
    with pytest.raises(InputError, match=r"quantization_config.weight_block_size \[128\] is not "
                       r"two positive integers"):
        import_model(str(bad), name="bad")
    from kvplan.units import DType

    # a stated --weight-dtype prices the whole model in it: no fp8 blocks then
    assert import_model(str(FIX / "qwen3-32b-fp8.json"), name="q", weight=DType.bf16) \
        .weight_block_size is None


def test_outcome_93_qwen3_235b_fp8_at_tp8_is_sglangs_own_error() -> None:
    # moe_intermediate_size 1,536 (the config): 1,536 / 8 = 192 a rank, 192 % 128 = 64
    assert _message(SGL, "qwen3-235b-a22b-fp8", 8) == MOE_N.format(192)
    assert _message(V19, "qwen3-235b-a22b-fp8", 8) == MOE_N.format(192)  # vLLM alike
    why = block_fp8_reason(*SGL, load_model("qwen3-235b-a22b-fp8"), 8)
    assert why is not None and why.startswith(f"SGLang 0.4.6.post1 would not start: \""
                                              f"{MOE_N.format(192)}\"")
    assert "each expert's gate/up (1,536 / 8) 192 % block_n 128 = 64" in why
    assert "each expert's down (1,536 / 8) 192 % block_k 128 = 64" in why


@pytest.mark.parametrize("tp", [1, 2, 4])
def test_qwen3_235b_fp8_up_to_tp4_passes_the_rule(tp: int) -> None:
    # 1,536 / 4 = 384 = 3 x 128; attention 64 heads x 128 / 4 = 2,048, 4 KV heads x 128 / 4 = 128
    for engine in (SGL, V19, V07):
        assert _message(engine, "qwen3-235b-a22b-fp8", tp) is None


def test_expert_parallelism_keeps_the_experts_whole() -> None:
    # TP 8 with EP 8 (vLLM --enable-expert-parallel, SGLang --enable-ep-moe): each expert keeps
    # its 1,536 rows; SGLang --ep-size 4 at TP 8: experts split over 8 / 4 = 2, 768 = 6 x 128
    assert _message(SGL, "qwen3-235b-a22b-fp8", 8, ep=8) is None
    assert _message(V19, "qwen3-235b-a22b-fp8", 8, ep=8) is None
    assert _message(SGL, "qwen3-235b-a22b-fp8", 8, ep=4) is None


def test_qwen3_30b_a3b_fp8_fails_from_tp4() -> None:
    # moe_intermediate_size 768: TP 2 384 = 3 x 128; TP 4 192; TP 8 96
    assert _message(SGL, "qwen3-30b-a3b-fp8", 2) is None
    assert _message(SGL, "qwen3-30b-a3b-fp8", 4) == MOE_N.format(192)
    assert _message(V19, "qwen3-30b-a3b-thinking-2507-fp8", 8) == MOE_N.format(96)


@pytest.mark.parametrize("tp", [8, 16])
def test_deepseek_v3_at_tp8_and_16_builds_whole_blocks(tp: int) -> None:
    # by hand (config: 128 heads, qk_nope 128 + rope 64, v 128, intermediate 18,432,
    # moe_intermediate 2,048, one shared expert): TP 8: q_b 16 x 192 = 3,072, kv_b 16 x 256 =
    # 4,096, o_proj 16 x 128 = 2,048, dense 18,432 / 8 = 2,304 = 18 x 128, experts 256;
    # TP 16: 1,536, 2,048, 1,024, dense 1,152 = 9 x 128, experts and shared 128
    for name in ("deepseek-v3", "deepseek-r1"):
        for engine in (SGL, V19, V07):
            assert _message(engine, name, tp) is None


def test_deepseek_v3_at_tp32_splits_the_dense_mlp_first() -> None:
    # TP 32: attention 4 heads (768, 1,024, 512: whole blocks); layer 0 is dense (first 3):
    # 18,432 / 32 = 576, 576 % 128 = 64 -> SGLang and vLLM 0.7.0 on gate_up_proj (block_n);
    # vLLM 0.19.1 skips the merged gate_up_proj and refuses down_proj (block_k); the experts
    # and the shared expert, 2,048 / 32 = 64, would fail too
    assert _message(SGL, "deepseek-v3", 32) == OUT_N.format(576)
    assert _message(V07, "deepseek-v3", 32) == OUT_N.format(576)
    assert _message(V19, "deepseek-v3", 32) == IN_K.format(576)
    found = block_fp8_refusal(*V19, load_model("deepseek-r1"), 32)
    assert found is not None
    assert [s.arithmetic() for s in found.shards] == [
        "dense MLP down_proj (18,432 / tp 32) 576 % block_k 128 = 64",
        "each expert's gate/up (2,048 / 32) 64 % block_n 128 = 64",
        "each expert's down (2,048 / 32) 64 % block_k 128 = 64",
        "shared experts down_proj (2,048 / tp 32) 64 % block_k 128 = 64"]


def test_a_dense_block_fp8_model() -> None:
    # Qwen3-32B-FP8: intermediate 25,600; TP 8 3,200 = 25 x 128; TP 16 1,600 = 12.5 x 128
    assert _message(SGL, "qwen3-32b-fp8", 8) is None
    assert _message(SGL, "qwen3-32b-fp8", 16) == OUT_N.format(1600)
    assert _message(("vllm", "0.13.0"), "qwen3-32b-fp8", 16) == OUT_N.format(1600)
    assert _message(("vllm", "0.14.0"), "qwen3-32b-fp8", 16) == IN_K.format(1600)
    assert _message(("vllm", None), "qwen3-32b-fp8", 16) == IN_K.format(1600)  # newest


def test_releases_before_block_fp8_and_other_engines_have_no_rule() -> None:
    # vLLM 0.6.5 and SGLang 0.4.0 do not read weight_block_size (0.6.6, 0.4.1 do); TensorRT-LLM
    # before 1.0 (a TensorRT engine) was not read (its PyTorch backend since task h100vllmhyb:
    # tests/engines/test_fp8_blocks_trtllm.py); transformers has none; nor has a model without
    # blocks
    assert _message(("vllm", "0.6.5"), "qwen3-235b-a22b-fp8", 8) is None
    assert _message(("vllm", "0.6.6"), "qwen3-235b-a22b-fp8", 8) == MOE_N.format(192)
    assert _message(("sglang", "0.4.0"), "qwen3-235b-a22b-fp8", 8) is None
    assert _message(("sglang", "0.4.1"), "qwen3-235b-a22b-fp8", 8) == MOE_N.format(192)
    assert _message(("trtllm", "0.21.0"), "qwen3-235b-a22b-fp8", 8) is None
    assert _message(("transformers", None), "qwen3-235b-a22b-fp8", 8) is None
    assert _message(SGL, "qwen3-235b-a22b", 8) is None  # the bf16 release
