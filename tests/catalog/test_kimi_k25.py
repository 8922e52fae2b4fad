"""Kimi-K2.5 (moonshotai/Kimi-K2.5): int4 routed experts beside bf16 weights, and a MoonViT tower.

The fixture tests/assets/hf_configs/kimi-k2.5.json is ai-dynamo/aiconfigurator
src/aiconfigurator/model_configs/moonshotai--Kimi-K2.5_config.json@507f0fb, byte for byte.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kvplan.capacity import expert_quant
from kvplan.capacity.kv import Precision, stage_caches
from kvplan.capacity.plan import weights_bytes_per_gpu
from kvplan.specs import load_model
from kvplan.specs.hf_import import spec_from_config
from kvplan.specs.hf_layers import ImportRefused
from kvplan.specs.params_multimodal import moonvit_vision
from kvplan.specs.schema import ExpertQuant, ModelSpec
from kvplan.units import DType
from tests.conftest import invoke

FIXTURE = Path(__file__).parents[1] / "assets" / "hf_configs" / "kimi-k2.5.json"


def _config() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text())


def _import(cfg: dict[str, Any]) -> ModelSpec:
    return spec_from_config(cfg, name="k", hf_id="moonshotai/Kimi-K2.5", origin="test")


def test_moonvit_tower_and_projector_count():
    # MoonViT (modeling_kimi_k25.py, MoonViT3dPretrainedModel), d = 1,152, MLP 4,304, 27 blocks:
    #   patch embedding Conv2d(3, d, 14 x 14) with bias: 3 x 14 x 14 x 1,152 + 1,152 = 678,528
    #   learnable position table 64 x 64 x d = 4,718,592 (the temporal sincos table is a buffer)
    #   one block: norm0 + norm1 2 x 2 x d = 4,608; wqkv d x 3d + 3d = 3,984,768;
    #     wo d x d + d = 1,328,256; fc0 d x 4,304 + 4,304 = 4,962,512; fc1 4,304 x d + d =
    #     4,959,360; together 15,239,504, x 27 = 411,466,608
    #   final LayerNorm 2 x d = 2,304
    #   tower: 678,528 + 4,718,592 + 411,466,608 + 2,304 = 416,866,032
    # patchmerger projector: LayerNorm(1,152) 2,304; 2 x 2 patches merged: 4,608 wide;
    #   linear_1 4,608 x 4,608 + 4,608 = 21,238,272; linear_2 4,608 x 7,168 + 7,168 = 33,037,312;
    #   together 54,277,888
    # tower + projector = 471,143,920
    vcfg = _config()["vision_config"]
    assert moonvit_vision(vcfg, 7168) == 471_143_920 == 416_866_032 + 54_277_888


def test_spec_shapes_kv_and_parameters():
    m = load_model("kimi-k2.5")
    assert m.model_type == "kimi_k25" and m.weight_dtype is DType.bf16
    assert m.max_context_tokens == 262_144
    # MLA: one latent of kv_lora_rank 512 + qk_rope_head_dim 64 per layer, whole on every TP rank
    for tp in (1, 8):
        stage = stage_caches(m, Precision(DType.bf16), tp=tp, pp=1)[0]
        assert stage.bytes_per_token == 61 * (512 + 64) * 2 == 70_272
    # kimi-k2's text stack 1,026,408,232,448 (the same shapes) + the tower 471,143,920
    assert m.params_total == load_model("kimi-k2").params_total + 471_143_920 == 1_026_879_376_368
    assert m.params_encoder == 471_143_920
    assert m.params_active == load_model("kimi-k2").params_active == 32_861_500_928
    assert m.moe is not None
    assert m.moe.expert_quant == ExpertQuant(weight_dtype=DType.int4, group_size=32,
                                             scale_dtype=DType.bf16)


def test_weight_bytes_at_tp8():
    m = load_model("kimi-k2.5")
    # routed experts: 60 MoE layers x 384 x 3 x 7,168 x 2,048 = 1,014,686,023,680 weights;
    # int4 + one bf16 scale per 32: (32 x 4 + 16) / 32 bits = 4.5 bits a weight
    # = 31,708,938,240 groups x 18 B = 570,760,888,320 B
    assert expert_quant.expert_bytes(m) == 1_014_686_023_680 // 32 * 18 == 570_760_888_320
    # the rest in bf16: (1,026,879,376,368 - 1,014,686,023,680) x 2 = 24,386,705,376 B
    assert expert_quant.rest_bytes(m) == 12_193_352_688 * 2 == 24_386_705_376
    # TP 8: 71,345,111,040 + 3,048,338,172 = 74,393,449,212 B (69.28 GiB) per GPU
    assert weights_bytes_per_gpu(m, DType.bf16, 8) == 71_345_111_040 + 3_048_338_172 == 74_393_449_212
    # EP 16 over TP 8 (2 x 8 GPUs): whole experts, 1/16 each: 35,672,555,520 + the same rest
    assert expert_quant.weights_bytes(m, 8, 1, 16) == 35_672_555_520 + 3_048_338_172
    # --weight-dtype fp8 prices the whole model in fp8 instead (the published layout is not used)
    assert weights_bytes_per_gpu(m, DType.fp8, 8) == -(-1_026_879_376_368 // 8)


def test_import_reads_the_quantization_config():
    spec = _import(_config())
    assert spec.weight_dtype is DType.bf16 and spec.params_encoder == 471_143_920
    assert spec.moe is not None and spec.moe.expert_quant is not None
    assert (spec.moe.expert_quant.group_size, spec.moe.expert_quant.scale_dtype) == (32, DType.bf16)
    assert "routed experts published in int4" in (spec.notes or "")


def _quant(cfg: dict[str, Any]) -> dict[str, Any]:
    q: dict[str, Any] = cfg["text_config"]["quantization_config"]
    return q


def _weights(cfg: dict[str, Any]) -> dict[str, Any]:
    w: dict[str, Any] = _quant(cfg)["config_groups"]["group_0"]["weights"]
    return w


MALFORMED = {
    "format": (lambda c: _quant(c).update(format="float-quantized"), "format"),
    "8-bit": (lambda c: _weights(c).update(num_bits=8), "num_bits"),
    "asymmetric": (lambda c: _weights(c).update(symmetric=False), "symmetric"),
    "channel": (lambda c: _weights(c).update(strategy="channel"), "strategy"),
    "group-size": (lambda c: _weights(c).update(group_size="32"), "group_size"),
    "shared-quantized": (lambda c: _quant(c)["ignore"].remove("re:.*shared_experts.*"), "ignore"),
    "activations": (lambda c: _quant(c)["config_groups"]["group_0"].update(
        input_activations={"num_bits": 8}), "activations"),
    "two-groups": (lambda c: _quant(c)["config_groups"].update(group_1={}), "exactly one group"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_other_layouts_are_refused_not_guessed(case):
    cfg = copy.deepcopy(_config())
    change, word = MALFORMED[case]
    change(cfg)
    with pytest.raises(ImportRefused, match=word) as err:
        _import(cfg)
    assert "\n" not in str(err.value)


def test_group_size_must_divide_the_widths():
    data = load_model("kimi-k2.5").model_dump(mode="json")
    data["moe"]["expert_quant"]["group_size"] = 48  # 7,168 / 48 is not whole
    with pytest.raises(ValueError, match="group_size 48 must divide"):
        ModelSpec.model_validate(data)
    data["moe"]["expert_quant"].update(group_size=32, weight_dtype="fp8")
    with pytest.raises(ValueError, match="only int4"):
        ModelSpec.model_validate(data)


def test_cli_refuses_a_malformed_config_in_one_line(runner, tmp_path):
    cfg = copy.deepcopy(_config())
    _weights(cfg).update(num_bits=8)
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps(cfg))
    result = invoke(runner, "import", str(bad))
    assert result.exit_code == 2
    assert "num_bits" in result.output and len(result.output.strip().splitlines()) == 1


def test_size_states_the_expert_layout(runner):
    result = invoke(runner, "size", "kimi-k2.5", "--gpu", "h200", "--tp", "8", "-f", "json")
    assert result.exit_code == 0, result.output
    assert "74393449212" in result.output.replace(",", "").replace("_", "")
    assert "routed experts in int4, one bf16 scale per 32" in result.output
