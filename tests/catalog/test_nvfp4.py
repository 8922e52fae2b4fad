"""ModelOpt NVFP4 checkpoints priced from the format (`nvfp4`, kvplan.capacity.nvfp4).

Per quantized linear layer of K inputs and N outputs the checkpoint stores (and vLLM's
ModelOptNvFp4LinearMethod / TensorRT-LLM's NVFP4 Linear register) `weight` uint8 N x K/2, one
float8_e4m3fn `weight_scale` per 16 inputs of a row (N x K/16) and two fp32 scalars
(`weight_scale_2`, `input_scale`): 4.5 bits a weight + 8 B a tensor. Every figure below is worked
by hand from that and the config's shapes.

tests/assets/quant_configs/nvidia--Kimi-K2.5-NVFP4_config.json is nvidia/Kimi-K2.5-NVFP4's
config.json as ai-dynamo/aiconfigurator stores it (src/aiconfigurator/model_configs/, commit
507f0fb07ca4c68a1d2afc1fbdb5ddcbdf8dd1d7), byte for byte.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from kvplan.capacity import nvfp4
from kvplan.capacity.plan import weights_bytes_per_gpu
from kvplan.errors import InputError
from kvplan.specs import load_model
from kvplan.specs.hf_import import import_model, spec_from_config
from kvplan.specs.hf_layers import ImportRefused
from kvplan.specs.schema import ModelSpec
from kvplan.units import DType
from tests.conftest import invoke

ASSETS = Path(__file__).parents[1] / "assets"
KIMI_CONFIG = ASSETS / "quant_configs" / "nvidia--Kimi-K2.5-NVFP4_config.json"
KIMI_SPEC = str(ASSETS / "model_specs" / "kimi-k2.5-nvfp4.yaml")
LLAMA_CONFIG = ASSETS / "hf_configs" / "llama-3.1-8b.json"

# Kimi-K2.5-NVFP4 (text_config: 61 layers, hidden 7,168, layer 0 dense with intermediate 18,432,
# layers 1-60 with 384 routed experts + 1 shared expert of moe_intermediate 2,048):
#   routed  60 x 384 x 3 x 7,168 x 2,048 = 1,014,686,023,680 weights, 69,120 tensors
#   shared  60 x 3 x 7,168 x 2,048       =     2,642,411,520 weights,    180 tensors
#   dense   3 x 7,168 x 18,432           =       396,361,728 weights,      3 tensors
#   together 1,017,724,796,928 weights x 9/16 B = 572,470,198,272 B; 69,303 tensors x 8 B = 554,424 B
#   the rest (MLA attention, embeddings, LM head, router, norms, MoonViT): 1,026,879,376,368 -
#   1,017,724,796,928 = 9,154,579,440 params x 2 B = 18,309,158,880 B
# At TP 8: 572,470,198,272 / 8 + 554,424 (the scalars on every rank) + 18,309,158,880 / 8
#   = 71,558,774,784 + 554,424 + 2,288,644,860 = 73,847,974,068 B
KIMI_TP8 = 73_847_974_068


def _kimi_config() -> dict[str, Any]:
    return json.loads(KIMI_CONFIG.read_text())


def _import(cfg: dict[str, Any], hf_id: str = "nvidia/Kimi-K2.5-NVFP4") -> ModelSpec:
    return spec_from_config(cfg, name="k", hf_id=hf_id, origin="test")


def test_kimi_nvfp4_bytes_by_hand():
    m = load_model(KIMI_SPEC)
    lay = nvfp4.layout(m)
    assert lay.quantized_params == 1_014_686_023_680 + 2_642_411_520 + 396_361_728
    assert lay.packed == 572_470_198_272
    assert lay.scalars == 554_424
    assert lay.rest == 18_309_158_880
    assert nvfp4.weights_bytes(m, 8, 1) == KIMI_TP8
    # TP 1: everything on one GPU
    assert nvfp4.weights_bytes(m, 1, 1) == 572_470_198_272 + 554_424 + 18_309_158_880
    assert weights_bytes_per_gpu(m, DType.bf16, 8) == KIMI_TP8
    # expert parallelism 16 over TP 8: each GPU holds 24 whole experts, and their scalars
    routed = 1_014_686_023_680 * 9 // 16
    rest = KIMI_TP8 - routed // 8 - 69_120 * 8
    assert nvfp4.weights_bytes(m, 8, 1, ep=16) == rest + routed // 16 + 69_120 * 8 // 16
    # the int4 release of the same model (kimi-k2.5) is priced 545,475,144 B a GPU higher at TP 8:
    # NVFP4 also quantizes the shared experts and the dense MLP
    assert weights_bytes_per_gpu(load_model("kimi-k2.5"), DType.bf16, 8) - KIMI_TP8 == 545_475_144


def test_the_official_config_imports_as_the_hand_written_spec():
    spec = _import(_kimi_config())
    hand = load_model(KIMI_SPEC)
    assert spec.nvfp4 is not None and hand.nvfp4 is not None
    assert spec.nvfp4.quantized == hand.nvfp4.quantized == ["dense_mlp", "shared_experts",
                                                            "routed_experts"]
    assert spec.weight_dtype is DType.bf16
    for field in ("params_total", "params_encoder", "num_layers", "hidden_size",
                  "intermediate_size", "vocab_size", "moe", "attention"):
        assert getattr(spec, field) == getattr(hand, field), field
    assert nvfp4.weights_bytes(spec, 8, 1) == KIMI_TP8


def _ignore(cfg: dict[str, Any]) -> list[str]:
    return cfg["quantization_config"]["ignore"]


def test_the_exclusions_decide_the_groups():
    cfg = _kimi_config()
    cfg["quantization_config"]["ignore"] = [p for p in _ignore(cfg) if "self_attn" not in p]
    spec = _import(cfg)
    assert spec.nvfp4 is not None and spec.nvfp4.quantized == [
        "attention", "dense_mlp", "shared_experts", "routed_experts"]
    cfg = _kimi_config()
    _ignore(cfg).remove("language_model.lm_head")
    spec = _import(cfg)
    assert spec.nvfp4 is not None and spec.nvfp4.quantized[-1] == "lm_head"
    cfg = _kimi_config()
    _ignore(cfg).append("language_model.model.layers.0.mlp*")
    spec = _import(cfg)
    assert spec.nvfp4 is not None and "dense_mlp" not in spec.nvfp4.quantized


@pytest.mark.parametrize("change, words", [
    (lambda c: _ignore(c).remove("language_model.model.layers.7.self_attn*"), "part of attention"),
    (lambda c: _ignore(c).append("language_model.model.layers.3.mlp.experts.5*"),
     "part of routed_experts"),
    (lambda c: _ignore(c).remove("vision_tower*"), "vision tower"),
    (lambda c: c["quantization_config"]["config_groups"]["group_0"]["weights"].update(
        group_size=32), "group_size 32"),
    (lambda c: c["quantization_config"].update(quant_algo="FP8"), "quant_algo 'FP8'"),
    (lambda c: _ignore(c).append("re:.*experts.*"), "regular-expression"),
])
def test_what_the_importer_refuses(change, words):
    cfg = copy.deepcopy(_kimi_config())
    change(cfg)
    with pytest.raises(ImportRefused, match=words):
        _import(cfg)


def _llama_folder(tmp_path: Path, exclude: list[str]) -> Path:
    """Llama-3.1-8B's config.json beside an hf_quant_config.json of ModelOpt's NVFP4 export
    layout (the `quantization` block of nvidia/DeepSeek-V3-0324-NVFP4's file: quant_algo,
    group_size, exclude_modules); the exclusions are the test's."""
    (tmp_path / "config.json").write_text(LLAMA_CONFIG.read_text())
    quant = {"producer": {"name": "modelopt", "version": "0.27.0"},
             "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": None,
                              "group_size": 16, "exclude_modules": exclude}}
    (tmp_path / "hf_quant_config.json").write_text(json.dumps(quant))
    return tmp_path


def test_a_dense_model_from_hf_quant_config_by_hand(tmp_path):
    spec = import_model(str(_llama_folder(tmp_path, ["lm_head"])))
    assert spec.nvfp4 is not None and spec.nvfp4.quantized == ["attention", "dense_mlp"]
    # Llama-3.1-8B, 32 layers: attention q 4,096 x 4,096, k and v 4,096 x 1,024, o 4,096 x 4,096
    #   = 41,943,040 a layer; MLP 3 x 4,096 x 14,336 = 176,160,768 a layer; together
    #   218,103,808 x 32 = 6,979,321,856 weights x 9/16 = 3,925,868,544 B; 7 x 32 = 224 tensors
    #   x 8 B = 1,792 B; the rest 8,030,261,248 - 6,979,321,856 = 1,050,939,392 x 2 B
    #   = 2,101,878,784 B (embeddings, LM head, norms)
    assert nvfp4.weights_bytes(spec, 1, 1) == 3_925_868_544 + 1_792 + 2_101_878_784
    # TP 2: 3,925,868,544 / 2 + 1,792 + 2,101,878,784 / 2
    assert nvfp4.weights_bytes(spec, 2, 1) == 1_962_934_272 + 1_792 + 1_050_939_392


def test_a_quant_file_of_another_algorithm_still_needs_weight_dtype(tmp_path):
    folder = _llama_folder(tmp_path, ["lm_head"])
    quant = json.loads((folder / "hf_quant_config.json").read_text())
    quant["quantization"]["quant_algo"] = "FP8"
    (folder / "hf_quant_config.json").write_text(json.dumps(quant))
    with pytest.raises(InputError, match="pass --weight-dtype"):
        import_model(str(folder))


def test_a_split_into_part_blocks_is_refused():
    data = load_model("llama-3.1-8b").model_dump(mode="json", exclude_unset=True)
    data.update(intermediate_size=14352, params_estimated=True,
                nvfp4={"group_size": 16, "quantized": ["dense_mlp"], "source": "test: 16 x 897"})
    m = ModelSpec.model_validate(data)
    assert nvfp4.weights_bytes(m, 1, 1) > 0  # 14,352 inputs: 897 blocks
    # TP 2 leaves 7,176 down_proj inputs a rank: 448.5 blocks
    with pytest.raises(InputError, match="7176 inputs of an nvfp4 dense_mlp"):
        nvfp4.weights_bytes(m, 2, 1)


@pytest.mark.parametrize("nv, words", [
    ({"group_size": 16, "quantized": ["shared_experts"], "source": "test: a dense model"},
     "moe_intermediate_size"),
    ({"group_size": 16, "quantized": ["lm_head", "lm_head"], "source": "test: twice"}, "twice"),
    ({"group_size": 32, "quantized": ["lm_head"], "source": "test: not the format"},
     "group_size"),
])
def test_the_spec_field_is_validated(nv, words):
    data = load_model("llama-3.1-8b").model_dump(mode="json", exclude_unset=True)
    data["nvfp4"] = nv
    with pytest.raises(ValidationError, match=words):
        ModelSpec.model_validate(data)


def test_size_states_the_nvfp4_layout(runner):
    result = invoke(runner, "size", KIMI_SPEC, "--gpu", "b300", "--tp", "8", "--kv-dtype", "fp8",
                    "-f", "json")
    assert result.exit_code == 0, result.output
    flat = result.output.replace(",", "")
    assert str(KIMI_TP8) in flat
    assert "dense_mlp, shared_experts, routed_experts in NVFP4" in result.output
    # a stated --weight-dtype other than the spec's prices the whole model in it instead:
    # 1,026,879,376,368 params x 1 B / 8 GPUs, rounded up
    result = invoke(runner, "size", KIMI_SPEC, "--gpu", "b300", "--tp", "8", "--weight-dtype",
                    "fp8", "-f", "json")
    assert result.exit_code == 0, result.output
    assert "128359922046" in result.output.replace(",", "")
    assert "NVFP4" not in result.output


@pytest.mark.parametrize("engine", ["trtllm", "vllm", "sglang"])
def test_explain_prices_nvfp4_on_each_engine_that_loads_it(runner, engine):
    result = invoke(runner, "explain", KIMI_SPEC, "--gpu", "b300", "--tp", "8", "--kv-dtype",
                    "fp8", "--engine", engine, "--context", "262144")
    assert result.exit_code == 0, result.output
    if engine == "sglang":  # + its load-time buffers (sglang.LOAD_EXTRA_TP)
        assert "ModelOpt NVFP4 as published" in result.output
    elif engine == "vllm":
        # + the MLA down-projections whole on every rank (kvplan.engines.mla_replicated), bf16
        # here (attention is not NVFP4): 7,168 x 2,112 x 61 x 2 B = 1,846,935,552, less the
        # 230,866,944 the split booked: 73,847,974,068 + 1,616,068,608 = 75,464,042,676 B;
        # + DeepSeek's MLA rotary cache, booked for kimi_k25 from vLLM 0.15.0 (vllm_rotary;
        # deepseek_v2.py:542-554 in 0.34.0): 4,096 x 64 = 262,144 rows x 64 x 2 B = 33,554,432 B
        # -> 75,497,597,108 B; + the vision tower's whole parts on every rank, bf16 (the
        # checkpoint's ignore keeps vision_tower* and mm_projector* out of NVFP4; task mmenc,
        # kvplan.engines.vision_replicated): 59,863,936 params x 2 B x 7/8 = 104,761,888 B
        # -> 75,602,358,996 B
        assert 75_497_597_108 + 59_863_936 * 2 * 7 // 8 == 75_602_358_996
        assert "75,602,358,996 B" in result.output
    else:
        assert "73,847,974,068 B" in result.output
    if engine == "trtllm":
        assert "ModelOpt NVFP4 as published" in result.output


def test_calibration_log_121_uses_the_nvfp4_spec():
    log = ASSETS / "logs" / "121-trtllm-kimi-k2.5-nvfp4-tp8-b300-1.3.0rc7.log"
    directive = next(line for line in log.read_text().splitlines()
                     if line.startswith("# kvplan:"))
    assert "spec=../model_specs/kimi-k2.5-nvfp4.yaml" in directive


def test_mla_attention_group_by_hand():
    # Kimi-K2.5's MLA projections a layer: q_a_proj 7,168 x 1,536 = 11,010,048; q_b_proj 1,536 x
    # 64 x (128 + 64) = 18,874,368; kv_a_proj_with_mqa 7,168 x (512 + 64) = 4,128,768; kv_b_proj
    # 512 x 64 x (128 + 128) = 8,388,608; o_proj 64 x 128 x 7,168 = 58,720,256; together
    # 101,122,048 a layer, x 61 = 6,168,444,928 weights in 5 x 61 = 305 tensors
    m = load_model(KIMI_SPEC)
    attention = nvfp4.group(m, "attention")
    assert (attention.params, attention.tensors) == (6_168_444_928, 305)
    data = m.model_dump(mode="json", exclude_unset=True)
    data["nvfp4"]["quantized"] = ["attention", *data["nvfp4"]["quantized"]]
    quantized = ModelSpec.model_validate(data)
    # at TP 1 the attention leaves bf16 (2 B a weight) for 9/16 B a weight + 8 B a tensor
    saved = 6_168_444_928 * 2 - 6_168_444_928 * 9 // 16 - 305 * 8
    assert nvfp4.weights_bytes(m, 1, 1) - nvfp4.weights_bytes(quantized, 1, 1) == saved


@pytest.mark.parametrize("change, words", [
    (lambda c: c["quantization_config"]["config_groups"]["group_0"]["weights"].update(num_bits=8),
     "not 4-bit float"),
    (lambda c: c["quantization_config"].update(ignore="lm_head"), "not a list of names"),
    (lambda c: c["quantization_config"].update(ignore=["*"]), "every linear layer is excluded"),
])
def test_what_the_importer_refuses_in_the_scheme(change, words):
    cfg = copy.deepcopy(_kimi_config())
    change(cfg)
    with pytest.raises(ImportRefused, match=words):
        _import(cfg)


def test_shared_experts_of_another_architecture_are_refused():
    # GLM-4.5-Air (glm4_moe) has a shared expert whose module names kvplan does not write out
    cfg = json.loads((ASSETS / "hf_configs" / "glm-4.5-air.json").read_text())
    cfg["quantization_config"] = {"quant_method": "modelopt", "quant_algo": "NVFP4",
                                  "group_size": 16, "ignore": ["lm_head"]}
    with pytest.raises(ImportRefused, match="shared experts of model_type 'glm4_moe'"):
        _import(cfg, hf_id="test/glm-4.5-air-nvfp4")


def test_a_matrix_of_part_blocks_is_refused():
    data = load_model("llama-3.1-8b").model_dump(mode="json", exclude_unset=True)
    data.update(vocab_size=128_257, nvfp4={"group_size": 16, "quantized": ["lm_head"],
                                             "source": "test: lm_head inputs are hidden_size"})
    m = ModelSpec.model_validate(data)
    assert nvfp4.weights_bytes(m, 1, 1) > 0  # the LM head's inputs are hidden_size 4,096
    data.update(hidden_size=4_104, vocab_size=128_256)  # 4,104 inputs: 256.5 blocks
    with pytest.raises(InputError, match="4104 inputs, not a whole number of 16-value blocks"):
        nvfp4.weights_bytes(ModelSpec.model_validate(data), 1, 1)


def test_mla_attention_without_the_projection_widths_is_refused():
    # the spec's MLA block without qk_nope_head_dim: the projections' widths are unknown, so the
    # nvfp4 attention group cannot be counted (a named refusal, not a wrong count)
    data = load_model(KIMI_SPEC).model_dump(mode="json", exclude_unset=True)
    data["attention"]["mla"].pop("qk_nope_head_dim", None)
    m = ModelSpec.model_validate(data)
    with pytest.raises(InputError, match=r"^kimi-k2\.5-nvfp4: nvfp4 attention needs "
                       r"mla\.qk_nope_head_dim and mla\.v_head_dim \(the projections' widths\)$"):
        nvfp4.group(m, "attention")
