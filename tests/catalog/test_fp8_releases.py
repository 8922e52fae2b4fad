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
