"""Dense 8-bit checkpoints priced exactly (task h59fp8): compressed-tensors W8A8 and fbgemm_fp8
as `weight_quant` (kvplan.specs.hf_quant8, kvplan.capacity.linear_quant).

The compressed-tensors blocks are public config.json blocks (tests/assets/hf_configs/quantization/,
sources in tests/assets/hf_configs/SOURCES.md, "Task h59fp8") set on the shipped fixture whose
shapes that config.json prints. Two are development inputs (Hermes-3 405B FP8, Llama-3.2-3B
w8a8), two were held out (the nm-testing Llama-3-8B pair): their figures were written by hand
before kvplan ran on them and matched at first measurement. No fbgemm_fp8 config.json text was
found; its blocks here are written from vLLM 0.29.0's FBGEMMFp8Config.from_config keys.

Every figure is derived by hand from vLLM 0.29.0's create_weights (per linear layer of K inputs,
N outputs, S fused shards: weight K x N bytes; channel weight_scale N fp32, tensor S fp32; static
fp8 input_scale S fp32, static int8 one fp32 (+ one int8 zero point when asymmetric); fbgemm
input_scale_ub one fp32; q/k/v fused into qkv_proj (S 3), gate/up into gate_up_proj (S 2)).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kvplan.capacity import linear_quant
from kvplan.capacity.plan import weights_bytes_per_gpu
from kvplan.errors import InputError
from kvplan.specs import load_model
from kvplan.specs.hf_import import import_model, spec_from_config
from kvplan.specs.hf_layers import ImportRefused
from kvplan.specs.schema import ModelSpec, WeightQuant
from kvplan.units import DType
from tests.conftest import invoke

CONFIGS = Path(__file__).parents[1] / "assets" / "hf_configs"
HERMES = "nousresearch--hermes-3-llama-3.1-405b-fp8"  # fp8 channel, dynamic (compression_config)
W8A8_3B = "neuralmagic--llama-3.2-3b-instruct-quantized.w8a8"  # int8 channel, dynamic
FP8_STATIC = "nm-testing--meta-llama3-8b-instruct-quant-fp8"  # held out: fp8 tensor, static
INT8_ASYM = "nm-testing--meta-llama-3-8b-instruct-w8a8-static-per-tensor-asym"  # held out
BASES = {HERMES: "llama-3.1-405b", W8A8_3B: "llama-3.2-3b", FP8_STATIC: "llama-3-8b",
         INT8_ASYM: "llama-3-8b"}
# fbgemm_fp8's keys as vLLM's FBGEMMFp8Config.from_config reads them (no public file found)
FBGEMM = {"quant_method": "fbgemm_fp8", "modules_to_not_convert": ["lm_head"],
          "activation_scale_ub": 1200.0}

# Llama-3-8B / Llama-3.1-8B per layer (hidden 4096, 32 heads, 8 KV heads x 128, intermediate
# 14,336): qkv 4096 x 6144 = 25,165,824; o 4096 x 4096 = 16,777,216; gate_up 4096 x 28,672 =
# 117,440,512; down 14,336 x 4096 = 58,720,256; sum 218,103,808, x 32 layers:
LLAMA_8B_WEIGHTS = 32 * 218_103_808 == 6_979_321_856 and 6_979_321_856
# outputs per layer (channel scales): 6144 + 4096 + 28,672 + 4096 = 43,008
LLAMA_8B_CHANNEL = 32 * 43_008 * 4 == 5_505_024 and 5_505_024
# the rest, bf16: 2 x 128,256 x 4096 (embeddings, LM head) + norms 32 x 2 x 4096 + 4096
LLAMA_8B_REST = (8_030_261_248 - 6_979_321_856) * 2 == 2_101_878_784 and 2_101_878_784


def _config(fragment: str, base: str | None = None) -> dict[str, Any]:
    cfg = json.loads((CONFIGS / f"{base or BASES[fragment]}.json").read_text())
    cfg.update(json.loads((CONFIGS / "quantization" / f"{fragment}.json").read_text()))
    return cfg


def _spec(cfg: dict[str, Any]) -> ModelSpec:
    return spec_from_config(cfg, name="q", hf_id="x/q", origin="test")


def _scheme(cfg: dict[str, Any]) -> dict[str, Any]:
    key = "quantization_config" if "quantization_config" in cfg else "compression_config"
    block: dict[str, Any] = cfg[key]
    return block


def test_hermes_405b_fp8_channel_by_hand():
    # Llama-3.1-405B: 126 layers, hidden 16,384, 128 heads, 8 KV heads x 128, intermediate
    # 53,248. Per layer: qkv 16,384 x 18,432 = 301,989,888; o 16,384 x 16,384 = 268,435,456;
    # gate_up 16,384 x 106,496 = 1,744,830,464; down 53,248 x 16,384 = 872,415,232;
    # sum 3,187,671,040, x 126 = 401,646,551,040 fp8 weights, a byte each.
    m = _spec(_config(HERMES))
    assert m.weight_quant == WeightQuant(method="compressed-tensors", weight_dtype=DType.fp8,
                                         scale_dtype=DType.fp32, strategy="channel")
    assert m.weight_dtype is DType.bf16 and m.weight_quant.group_size is None
    lay = linear_quant.layout(m)
    assert lay.qweight == 126 * 3_187_671_040 == 401_646_551_040
    # one fp32 per output row: (18,432 + 16,384 + 106,496 + 16,384) x 4 = 630,784 a layer
    assert lay.scales == 126 * 630_784 == 79_478_784
    assert lay.inputs == 0 and lay.qzeros == 0 and lay.g_idx == 0  # dynamic activations
    assert lay.rest == (405_853_388_800 - 401_646_551_040) * 2 == 8_413_675_520
    assert weights_bytes_per_gpu(m, DType.bf16, 1) == 410_139_705_344 == (
        401_646_551_040 + 79_478_784 + 8_413_675_520)
    # TP 8: 16 heads and 1 KV head a rank: qkv 16,384 x 2304, gate_up 16,384 x 13,312 (split
    # N), o 2048 x 16,384, down 6656 x 16,384 (split K, whole N: its scales on every rank)
    rank = 126 * (16_384 * 2304 + 16_384 * 13_312 + 2048 * 16_384 + 6656 * 16_384)
    scales = 126 * (2304 + 13_312 + 16_384 + 16_384) * 4
    assert linear_quant.weights_bytes(m, 8, 1) == rank + scales + 8_413_675_520 // 8 == (
        50_205_818_880 + 24_385_536 + 1_051_709_440)


def test_llama_3_2_3b_int8_channel_by_hand():
    # Llama-3.2-3B: 28 layers, hidden 3072, 24 heads, 8 KV heads x 128, intermediate 8192,
    # tied embeddings. Per layer: qkv 3072 x 5120 = 15,728,640; o 3072 x 3072 = 9,437,184;
    # gate_up 3072 x 16,384 = 50,331,648; down 8192 x 3072 = 25,165,824; sum 100,663,296.
    m = _spec(_config(W8A8_3B))
    assert m.weight_quant is not None and m.weight_quant.weight_dtype is DType.int8
    assert m.params_total == load_model("llama-3.2-3b").params_total == 3_212_749_824
    lay = linear_quant.layout(m)
    assert lay.qweight == 28 * 100_663_296 == 2_818_572_288
    assert lay.scales == 28 * (5120 + 3072 + 16_384 + 3072) * 4 == 3_096_576
    # the rest, one 128,256 x 3072 matrix (tied) + norms 28 x 2 x 3072 + 3072, in bf16
    assert lay.rest == (128_256 * 3072 + 28 * 2 * 3072 + 3072) * 2 == 788_355_072
    assert weights_bytes_per_gpu(m, DType.bf16, 1) == 3_610_023_936


def test_held_out_fp8_tensor_static_by_hand():
    # Llama-3-8B, fp8 per tensor, static per-tensor fp8 activations: one fp32 weight_scale and
    # one fp32 input_scale per shard, 3 + 1 + 2 + 1 = 7 a layer each
    m = _spec(_config(FP8_STATIC))
    quant = m.weight_quant
    assert quant is not None and (quant.strategy, quant.input_scale) == ("tensor", "static")
    lay = linear_quant.layout(m)
    assert (lay.qweight, lay.scales, lay.inputs, lay.rest) == (
        LLAMA_8B_WEIGHTS, 32 * 7 * 4, 32 * 7 * 4, LLAMA_8B_REST)
    assert weights_bytes_per_gpu(m, DType.bf16, 1) == 9_081_202_432 == (
        6_979_321_856 + 896 + 896 + 2_101_878_784)
    # TP 2: qkv 4096 x 3072, gate_up 4096 x 14,336, o 2048 x 4096, down 7168 x 4096 a rank;
    # per-tensor scales are whole on every rank
    rank = 32 * (4096 * 3072 + 4096 * 14_336 + 2048 * 4096 + 7168 * 4096)
    assert linear_quant.weights_bytes(m, 2, 1) == rank + 1792 + LLAMA_8B_REST // 2 == (
        4_540_602_112)


def test_held_out_int8_static_asymmetric_by_hand():
    # Llama-3-8B, int8 per channel, static asymmetric int8 activations: one fp32 input_scale
    # and one int8 input_zero_point a layer (CompressedTensorsW8A8Int8.create_weights)
    m = _spec(_config(INT8_ASYM))
    quant = m.weight_quant
    assert quant is not None and (quant.strategy, quant.input_scale) == (
        "channel", "static_zero_point")
    lay = linear_quant.layout(m)
    assert (lay.qweight, lay.scales, lay.inputs) == (
        LLAMA_8B_WEIGHTS, LLAMA_8B_CHANNEL, 32 * 4 * (4 + 1))
    assert weights_bytes_per_gpu(m, DType.bf16, 1) == 9_086_706_304
    # CUTLASS's azp_adj (int32 per output column, built after loading) is not charged, and
    # the notes say so
    assert "CUTLASS adds an int32 azp_adj per output column" in (m.notes or "")


def test_fbgemm_fp8_by_hand():
    # Llama-3.1-8B shapes (= Llama-3-8B's), fbgemm_fp8: channel scales and one fp32
    # input_scale_ub a layer (4 linear layers x 32)
    cfg = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    cfg["quantization_config"] = dict(FBGEMM)
    m = _spec(cfg)
    assert m.weight_quant == WeightQuant(method="fbgemm_fp8", weight_dtype=DType.fp8,
                                         scale_dtype=DType.fp32, strategy="channel")
    lay = linear_quant.layout(m)
    assert (lay.qweight, lay.scales, lay.inputs) == (LLAMA_8B_WEIGHTS, LLAMA_8B_CHANNEL, 512)
    assert weights_bytes_per_gpu(m, DType.bf16, 1) == 9_086_706_176 == (
        6_979_321_856 + 5_505_024 + 512 + 2_101_878_784)


def test_int8_static_symmetric_by_hand():
    # the held-out asymmetric block made symmetric: static int8 activations keep one fp32
    # input_scale a layer and no zero point (CompressedTensorsW8A8Int8.create_weights), 4 linear
    # layers x 32 x 4 B; fp8 would keep one a fused shard
    m = _spec(_set(_config(INT8_ASYM), f"{A}.symmetric", True))
    quant = m.weight_quant
    assert quant is not None and (quant.weight_dtype, quant.input_scale) == (DType.int8, "static")
    lay = linear_quant.layout(m)
    assert (lay.qweight, lay.scales, lay.inputs) == (LLAMA_8B_WEIGHTS, LLAMA_8B_CHANNEL, 512)
    assert linear_quant.describe(m) == (
        "weights in bf16 but the decoder's linear layers in compressed-tensors int8 (a byte a "
        "weight 6,979,321,856 B, one fp32 scale per output row 5,505,024 B, static input scales "
        "512 B; the rest 2,101,878,784 B)")


def test_fbgemm_fp8_described_with_its_input_scale_ub():
    cfg = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    cfg["quantization_config"] = dict(FBGEMM)
    assert linear_quant.describe(_spec(cfg)) == (
        "weights in bf16 but the decoder's linear layers in fbgemm_fp8 fp8 (a byte a weight "
        "6,979,321,856 B, one fp32 scale per output row 5,505,024 B, input_scale_ub 512 B; the "
        "rest 2,101,878,784 B)")


def test_a_stated_weight_dtype_prices_the_whole_model():
    m = spec_from_config(_config(W8A8_3B), name="q", hf_id="x/q", origin="test",
                         weight=DType.fp16)
    assert m.weight_quant is None and m.weight_dtype is DType.fp16


def test_cli_import_then_size(tmp_path: Path, runner):
    source = tmp_path / "config.json"
    source.write_text(json.dumps(_config(W8A8_3B)))
    spec = tmp_path / "llama-3.2-3b-w8a8.yaml"
    r = invoke(runner, "import", str(source), "-o", str(spec))
    assert r.exit_code == 0, r.output
    text = spec.read_text()
    assert "method: compressed-tensors" in text and "strategy: channel" in text
    assert "compressed_tensors_w8a8_int8.py create_weights" in " ".join(text.split())
    r = invoke(runner, "size", str(spec), "--gpu", "h100", "-c", "8192", "-f", "json")
    assert r.exit_code == 0, r.output
    result = json.loads(r.output[r.output.index("{"):])["results"][0]
    assert result["weights_bytes"] == 3_610_023_936
    assert ("weights in bf16 but the decoder's linear layers in compressed-tensors int8 (a byte "
            "a weight 2,818,572,288 B, one fp32 scale per output row 3,096,576 B; the rest "
            "788,355,072 B), split over 1 GPU(s)") in result["assumptions"]
    text_out = invoke(runner, "size", str(spec), "--gpu", "h100", "-c", "8192")
    assert "Weights per GPU  3.36 GiB (3,610,023,936 B)" in text_out.output


def test_cli_held_out_static_fp8_size(tmp_path: Path, runner):
    source = tmp_path / "config.json"
    source.write_text(json.dumps(_config(FP8_STATIC)))
    spec = tmp_path / "fp8.yaml"
    assert invoke(runner, "import", str(source), "-o", str(spec)).exit_code == 0
    r = invoke(runner, "size", str(spec), "--gpu", "h100", "-c", "8192", "-f", "json")
    result = json.loads(r.output[r.output.index("{"):])["results"][0]
    assert result["weights_bytes"] == 9_081_202_432
    assert any("one fp32 scale per fused shard 896 B, static input scales 896 B; the rest "
               "2,101,878,784 B" in line for line in result["assumptions"])


def _set(cfg: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    node = _scheme(cfg)
    *keys, last = path.split(".")
    for key in keys:
        node = node[key]
    node[last] = value
    return cfg


W = "config_groups.group_0.weights"
A = "config_groups.group_0.input_activations"


@pytest.mark.parametrize(("change", "reason"), [
    ((f"{W}.strategy", "group"), r"weights.group_size is None|weights.strategy 'group'"),
    ((f"{W}.block_structure", [128, 128]), r"weights.block_structure is \[128, 128\], not None"),
    ((f"{W}.num_bits", 4), r"weights.num_bits is 4, not 8"),
    ((f"{W}.type", "float"), r"weights.type is 'float', not 'int'"),
    ((f"{W}.symmetric", False), r"weights.symmetric is False, not True"),
    ((A, None), r"input_activations is null \(weight-only 8-bit"),
    ((f"{A}.strategy", "group"), r"strategy 'group', symmetric True is not dynamic per-token"),
    (("ignore", ["lm_head", "re:.*mlp.down_proj"]), r"ignore 're:.\*mlp.down_proj': only "
     "lm_head is resolved"),
    (("ignore", ["lm_head", "model.layers.0.mlp.down_proj"]), "only lm_head is resolved"),
    (("kv_cache_scheme", {"num_bits": 8, "type": "float"}), r"kv_cache_scheme is set"),
    (("format", "pack-quantized"), r"format 'pack-quantized' is not float-quantized"),
    (("config_groups.group_1", {"targets": ["Linear"]}), r"config_groups must hold exactly "
     r"one group \(mixed groups are not modelled\)"),
    (("config_groups.group_0.targets", ["re:.*self_attn.*"]), r"targets are not \['Linear'\]"),
])
def test_layouts_not_priced_are_refused_on_their_field(change: tuple[str, Any], reason: str):
    cfg = _set(_config(W8A8_3B), *change)
    with pytest.raises(ImportRefused, match=reason):
        _spec(cfg)


def test_untied_lm_head_not_ignored_is_refused():
    cfg = _set(_config(FP8_STATIC), "ignore", [])
    with pytest.raises(ImportRefused, match=r"ignore \[\] does not name lm_head"):
        _spec(cfg)
    # tied (Llama-3.2-3B): the LM head is the embedding matrix, never a Linear
    assert _spec(_set(_config(W8A8_3B), "ignore", [])).weight_quant is not None


@pytest.mark.parametrize(("change", "reason"), [
    ({"modules_to_not_convert": ["lm_head", "model.layers.0.mlp.down_proj"]},
     r"modules_to_not_convert 'model.layers.0.mlp.down_proj' leaves a decoder linear layer"),
    ({"activation_scale_ub": None}, r"activation_scale_ub None is not a number"),
    ({"modules_to_not_convert": "lm_head"}, r"modules_to_not_convert 'lm_head' is not a list"),
])
def test_fbgemm_refusals(change: dict[str, Any], reason: str):
    cfg = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    cfg["quantization_config"] = {**FBGEMM, **change}
    with pytest.raises(ImportRefused, match=reason):
        _spec(cfg)


def test_model_types_without_the_layout_are_refused():
    cfg = json.loads((CONFIGS / "mixtral-8x7b.json").read_text())  # routed experts
    cfg["quantization_config"] = _scheme(_config(W8A8_3B))
    with pytest.raises(ImportRefused, match="format 'int-quantized'"):
        _spec(cfg)  # the routed-experts reader names it: only int4 experts are modelled
    cfg = json.loads((CONFIGS / "falcon-7b.json").read_text())
    cfg["quantization_config"] = dict(FBGEMM)
    with pytest.raises(ImportRefused, match="'fbgemm_fp8' on model_type 'falcon'"):
        _spec(cfg)


def test_refusal_is_one_line_exit_2(tmp_path: Path, runner):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_set(_config(W8A8_3B), f"{W}.strategy", "group")))
    r = invoke(runner, "import", str(path))
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert "compression_config.config_groups.group_0.weights.group_size" in r.output or (
        "compression_config.config_groups.group_0.weights.strategy" in r.output)
    with pytest.raises(InputError, match="cannot import"):
        import_model(str(path))


@pytest.mark.parametrize(("fields", "reason"), [
    ({"method": "compressed-tensors", "weight_dtype": "fp8", "scale_dtype": "fp32",
      "strategy": "channel", "group_size": 128}, "group_size: unset for compressed-tensors"),
    ({"method": "compressed-tensors", "weight_dtype": "int4", "scale_dtype": "fp32",
      "strategy": "channel"}, "compressed-tensors stores fp8 or int8, not int4"),
    ({"method": "compressed-tensors", "weight_dtype": "fp8", "scale_dtype": "fp32"},
     "strategy: compressed-tensors takes channel or tensor, not group"),
    ({"method": "gptq", "weight_dtype": "int4", "scale_dtype": "fp16", "group_size": 128,
      "strategy": "channel"}, "strategy: gptq takes group, not channel"),
    ({"method": "gptq", "weight_dtype": "int4", "scale_dtype": "fp16"},
     "group_size: required for gptq"),
    ({"method": "fbgemm_fp8", "weight_dtype": "fp8", "scale_dtype": "fp32",
      "strategy": "tensor"}, "fbgemm_fp8 scales are per channel"),
    ({"method": "fbgemm_fp8", "weight_dtype": "fp8", "scale_dtype": "fp32",
      "strategy": "channel", "input_scale": "static"}, "input_scale: static activation scales"),
    ({"method": "compressed-tensors", "weight_dtype": "fp8", "scale_dtype": "fp32",
      "strategy": "channel", "input_scale": "static_zero_point"}, "only int8 activations"),
])
def test_spec_validation(fields: dict[str, Any], reason: str):
    from pydantic import ValidationError

    from kvplan.specs.validators import WeightQuant as Validated

    with pytest.raises(ValidationError, match=reason):
        Validated.model_validate(fields)


def test_engines_count_fp8_dense_as_fp8_and_int8_as_quantized():
    from kvplan.capacity.request import SizeRequest
    from kvplan.engines.common import quantized
    from kvplan.specs import load_hardware

    gpu = load_hardware("h100")
    fp8 = SizeRequest(model=_spec(_config(FP8_STATIC)), gpu=gpu, context_tokens=4096)
    int8 = SizeRequest(model=_spec(_config(INT8_ASYM)), gpu=gpu, context_tokens=4096)
    assert quantized(fp8) is False and quantized(int8) is True
