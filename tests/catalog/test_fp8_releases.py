"""Official FP8 releases shipped as their own catalog entries (task h58fp8): the checkpoint's
weight bytes differ from the bf16 release's, so they are specs, not aliases."""

from __future__ import annotations

import json
from pathlib import Path

from kvplan.capacity.kv import Precision, stage_caches
from kvplan.capacity.plan import weights_bytes_per_gpu
from kvplan.specs import load_model
from kvplan.specs.resolve import resolve_model
from kvplan.units import DType

FIX = Path(__file__).parents[1] / "assets" / "hf_configs"


def test_nvidia_llama31_70b_fp8_weights_and_cache():
    spec = load_model("llama-3.1-70b-instruct-fp8")
    assert spec.hf_id == "nvidia/Llama-3.1-70B-Instruct-FP8"
    assert spec.weight_dtype is DType.fp8
    # hf_quant_config.json (modelopt 0.23.0): kv_cache_quant_algo FP8
    assert spec.kv_cache_quant_algo == "FP8"
    # 70,553,706,496 parameters (llama-3-70b's count, the same shapes) x 1 byte
    assert weights_bytes_per_gpu(spec, spec.weight_dtype, 1) == 70_553_706_496
    # split over TP 8: 70,553,706,496 / 8 = 8,819,213,312 exactly
    assert weights_bytes_per_gpu(spec, spec.weight_dtype, 8) == 8_819_213_312
    # the bf16 release is twice that: the FP8 entry is not an alias of llama-3.1-70b
    bf16 = load_model("llama-3.1-70b")
    assert weights_bytes_per_gpu(bf16, bf16.weight_dtype, 1) == 141_107_412_992
    # KV per token at bf16: 80 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes = 327,680; fp8 halves it
    (stage,) = stage_caches(spec, Precision(DType.bf16), 1, 1)
    assert stage.full_bytes_per_token == 327_680
    (stage8,) = stage_caches(spec, Precision(DType.fp8), 1, 1)
    assert stage8.full_bytes_per_token == 163_840


def test_fixture_is_the_snapshot_config_byte_for_byte():
    ours = (FIX / "llama-3.1-70b-instruct-fp8.json").read_bytes()
    snapshot = (FIX / "quantization" / "nvidia--llama-3.1-70b-instruct-fp8" / "config.json").read_bytes()
    assert ours == snapshot
    assert "quantization_config" not in json.loads(ours)  # ModelOpt states it beside config.json


def test_the_hub_id_resolves_to_the_fp8_entry():
    found = resolve_model("nvidia/Llama-3.1-70B-Instruct-FP8", allow_hub=False)
    assert (found.spec.name, found.rule) == ("llama-3.1-70b-instruct-fp8", "hf_id")


def test_qwen3_30b_thinking_2507_fp8_is_qwens_block_fp8_release():
    """Qwen/Qwen3-30B-A3B-Thinking-2507-FP8 (task h70catalog), from the config transformers 5.7.0
    printed for it: quant_method fp8, e4m3, 128 x 128 blocks, priced as qwen3-30b-a3b-fp8 is."""
    cfg = json.loads((FIX / "qwen3-30b-a3b-thinking-2507-fp8.json").read_text())
    quant = cfg["quantization_config"]
    assert (quant["quant_method"], quant["fmt"], quant["weight_block_size"]) == ("fp8", "e4m3", [128, 128])
    # lm_head plus each of the 48 layers' two norms and router gate stay bf16
    assert len(quant["modules_to_not_convert"]) == 1 + 48 * 3
    spec = load_model("qwen3-30b-a3b-thinking-2507-fp8")
    assert spec.weight_dtype is DType.fp8 and not spec.params_estimated
    # 30,532,122,624 parameters x 1 byte; the bf16 release is twice that
    assert weights_bytes_per_gpu(spec, spec.weight_dtype, 1) == 30_532_122_624
    bf16 = load_model("qwen3-30b-a3b-thinking-2507")
    assert weights_bytes_per_gpu(bf16, bf16.weight_dtype, 1) == 61_064_245_248
    # 48 layers x 4 KV heads x 128 x 2 x 2 B at a bf16 cache, 262,144 positions (the original
    # release's FP8, qwen3-30b-a3b-fp8, allows 40,960)
    (stage,) = stage_caches(spec, Precision(DType.bf16), 1, 1)
    assert stage.full_bytes_per_token == 98_304
    assert (spec.max_context_tokens, load_model("qwen3-30b-a3b-fp8").max_context_tokens) == (262_144, 40_960)
    found = resolve_model("Qwen/Qwen3-30B-A3B-Thinking-2507-FP8", allow_hub=False)
    assert (found.spec.name, found.rule) == ("qwen3-30b-a3b-thinking-2507-fp8", "hf_id")
