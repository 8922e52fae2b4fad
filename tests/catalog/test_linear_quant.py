"""GPTQ and AWQ checkpoints priced exactly (`weight_quant`, kvplan.capacity.linear_quant).

The configs are shipped fixtures (tests/assets/hf_configs/) with the quantization_config blocks
of tests/assets/hf_configs/quantization/ set on them, as test_hf_quant_schemes does. Every figure
below is derived by hand from the config's shapes and vLLM 0.11.0's gptq.py / awq.py
`create_weights` (per linear layer of K inputs, N outputs: qweight K x N x bits/8 B, scales
(K/group) x N x 2 B, qzeros (K/group) x N x bits/8 B, and for GPTQ g_idx K x 4 B; q/k/v fused
into qkv_proj and gate/up into gate_up_proj, as vLLM builds them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kvplan.capacity import linear_quant
from kvplan.capacity.plan import weights_bytes_per_gpu
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.specs.hf_import import import_model, spec_from_config, spec_yaml
from kvplan.specs.hf_layers import ImportRefused
from kvplan.specs.schema import ModelSpec, WeightQuant
from kvplan.units import DType
from tests.conftest import invoke
from tests.hub_offline import hub_cache, run_kvplan

CONFIGS = Path(__file__).parents[1] / "assets" / "hf_configs"
AWQ = "patronusai--llama-3.1-70b-instruct-awq-int4"  # bits 4, group 128, zero_point, gemm
GPTQ = "intel--gemma-2b-int4-inc"  # bits 4, group 128, desc_act false, sym false


def _config(base: str, fragment: str, **changes: Any) -> dict[str, Any]:
    cfg = json.loads((CONFIGS / f"{base}.json").read_text())
    cfg.update(json.loads((CONFIGS / "quantization" / f"{fragment}.json").read_text()))
    cfg["quantization_config"].update(changes)
    return cfg


def _spec(base: str, fragment: str, **changes: Any) -> ModelSpec:
    return spec_from_config(_config(base, fragment, **changes), name="q", hf_id="x/q",
                            origin="test")


def test_awq_llama_70b_by_hand():
    # Llama-3.1-70B: 80 layers, hidden 8192, 64 heads, 8 KV heads x 128, intermediate 28672.
    # Per layer (K x N): qkv 8192 x (8192 + 2 x 1024) = 83,886,080; gate_up 8192 x 57,344 =
    # 469,762,048; o 8192 x 8192 = 67,108,864; down 28,672 x 8192 = 234,881,024;
    # sum 855,638,016, x 80 layers = 68,451,041,280 quantized weights.
    m = _spec("llama-3.1-70b", AWQ)
    assert m.weight_quant == WeightQuant(method="awq", weight_dtype=DType.int4, group_size=128,
                                         scale_dtype=DType.fp16)
    assert m.weight_dtype is DType.bf16  # torch_dtype: embeddings, LM head, norms
    assert m.params_total == load_model("llama-3.1-70b").params_total == 70_553_706_496
    assert linear_quant.quantized_params(m) == 80 * 855_638_016 == 68_451_041_280
    lay = linear_quant.layout(m)
    assert lay.qweight == 68_451_041_280 // 2 == 34_225_520_640  # 4 bits a weight
    assert lay.scales == 68_451_041_280 // 128 * 2 == 1_069_547_520  # fp16 per group and output
    assert lay.qzeros == 68_451_041_280 // 128 // 2 == 267_386_880  # 4-bit zeros, packed
    assert lay.g_idx == 0  # awq registers none
    # the rest: embed_tokens + lm_head 2 x 128,256 x 8192 + norms 8192 x 161 = 2,102,665,216
    assert lay.rest == (70_553_706_496 - 68_451_041_280) * 2 == 2_102_665_216 * 2
    assert weights_bytes_per_gpu(m, DType.bf16, 1) == 39_767_785_472 == (
        34_225_520_640 + 1_069_547_520 + 267_386_880 + 4_205_330_432)
    # (for comparison, not asserted: the fitted int4 pricing of kvplan/engines/common.py, 16-bit
    # embed + LM head 2 x 128,256 x 8192 and the other 68,452,360,192 parameters at 4 + 20/128
    # bits, gives 4,202,692,608 + 35,563,140,256 = 39,765,832,864 B, 1,952,608 B less)


def test_awq_tp8_splits_every_layer_evenly():
    # TP 8: 8 heads and 1 KV head a rank (qkv N = 1280), gate_up N = 7168, o K = 1024,
    # down K = 3584 = 28 groups: every tensor is exactly an eighth
    m = _spec("llama-3.1-70b", AWQ)
    quantized = 34_225_520_640 + 1_069_547_520 + 267_386_880
    assert linear_quant.weights_bytes(m, 8, 1) == quantized // 8 + 4_205_330_432 // 8 == (
        4_970_973_184)


def test_awq_through_size_says_how_it_priced(tmp_path: Path, runner):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_config("llama-3.1-70b", AWQ)))
    r = invoke(runner, "size", str(path), "--gpu", "h100", "-c", "8192", "--tp", "8", "-f", "json")
    assert r.exit_code == 0, r.output
    result = json.loads(r.output[r.output.index("{"):])["results"][0]
    assert result["weights_bytes"] == 4_970_973_184
    assert ("weights in bf16 but the decoder's linear layers in awq int4 (groups of 128: qweight "
            "34,225,520,640 B, fp16 scales 1,069,547,520 B, packed zeros 267,386,880 B; the rest "
            "4,205,330,432 B), split over 8 GPU(s)") in result["assumptions"]


def test_gptq_gemma_2b_by_hand():
    # Gemma-2B: 18 layers, hidden 2048, 8 heads, 1 KV head x 256, intermediate 16384, tied
    # embeddings. Per layer: qkv 2048 x (2048 + 2 x 256) = 5,242,880; gate_up 2048 x 32,768 =
    # 67,108,864; o 2048 x 2048 = 4,194,304; down 16,384 x 2048 = 33,554,432; sum 110,100,480.
    m = _spec("gemma-2b", GPTQ)
    assert m.weight_quant is not None and m.weight_quant.method == "gptq"
    assert not m.weight_quant.act_order
    assert linear_quant.quantized_params(m) == 18 * 110_100_480 == 1_981_808_640
    lay = linear_quant.layout(m)
    assert (lay.qweight, lay.scales, lay.qzeros) == (990_904_320, 30_965_760, 7_741_440)
    # g_idx: one int32 per input row of qkv (2048), gate_up (2048), o (2048), down (16,384)
    assert lay.g_idx == 18 * (2048 + 2048 + 2048 + 16_384) * 4 == 1_622_016
    # the rest: embeddings 256,000 x 2048 (tied) + norms 2048 x 37 = 524,363,776, bf16
    assert lay.rest == 524_363_776 * 2 == 1_048_727_552
    assert linear_quant.weights_bytes(m, 1, 1) == 2_079_961_088


@pytest.mark.parametrize(("desc_act", "per_gpu"), [(False, 1_045_030_912), (True, 1_051_666_432)])
def test_gptq_tp2_act_order_keeps_row_parallel_groups(desc_act: bool, per_gpu: int):
    # TP 2, per layer and rank: qkv (2048, 4 x 256 + 256 + 256 = 1536; the one KV head is
    # replicated): qweight 1,572,864, scales 16 x 1536 x 2 = 49,152, zeros 12,288, g_idx 8192;
    # gate_up (2048, 16,384): 16,777,216 + 524,288 + 131,072 + 8192;
    # o (1024, 2048): 1,048,576 + 8 groups x 2048 x 2 = 32,768 + 8192 + 4096;
    # down (8192, 2048): 8,388,608 + 64 x 2048 x 2 = 262,144 + 65,536 + 32,768.
    # Sum 28,925,952 x 18 = 520,667,136, + the rest / 2 = 524,363,776: 1,045,030,912.
    # desc_act: o and down keep all 16 and 128 groups (gptq.py: scale_and_zero_size =
    # input_size // group_size): + (32,768 + 262,144 + 8192 + 65,536) x 18 = 6,635,520.
    m = _spec("gemma-2b", GPTQ, desc_act=desc_act)
    assert linear_quant.weights_bytes(m, 2, 1) == per_gpu
    assert 1_051_666_432 - 1_045_030_912 == 368_640 * 18


def test_spec_yaml_round_trip(tmp_path: Path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_config("gemma-2b", GPTQ, desc_act=True)))
    spec = import_model(str(path))
    text = spec_yaml(spec)
    assert ("weight_quant:\n  method: gptq\n  weight_dtype: int4\n  group_size: 128\n"
            "  scale_dtype: fp16\n  act_order: true\n") in text
    (tmp_path / "q.yaml").write_text(text.replace("name: config", "name: q"))
    again = load_model(str(tmp_path / "q.yaml"))
    assert again.weight_quant == spec.weight_quant
    assert weights_bytes_per_gpu(again, again.weight_dtype, 1) == 2_079_961_088


def test_a_stated_weight_dtype_prices_the_whole_model():
    cfg = _config("llama-3.1-70b", AWQ)
    m = spec_from_config(cfg, name="q", hf_id="x/q", origin="t", weight=DType.int4)
    assert m.weight_quant is None and m.weight_dtype is DType.int4
    # and a --weight-dtype other than the spec's on a quantized spec does the same
    q = _spec("llama-3.1-70b", AWQ)
    assert weights_bytes_per_gpu(q, DType.fp8, 1) == 70_553_706_496


def test_unpadded_intermediate_is_refused_at_a_tp_that_splits_a_group(tmp_path: Path, runner):
    # Qwen2.5-72B's intermediate 29,568 = 231 groups of 128: TP 2 leaves 115.5 a rank, which
    # vLLM's create_weights refuses ("too large tensor parallel size")
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_config("qwen2.5-72b", AWQ)))
    ok = invoke(runner, "size", str(path), "--gpu", "h200", "-c", "4096")
    assert ok.exit_code == 0, ok.output
    r = invoke(runner, "size", str(path), "--gpu", "h100", "-c", "4096", "--tp", "2")
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "splits intermediate_size (down_proj inputs) 29568 into parts of 14784" in r.output
    with pytest.raises(InputError, match="not whole multiples of 128"):
        linear_quant.check_split(import_model(str(path)), 2)


@pytest.mark.parametrize(("fragment", "change", "reason"), [
    (GPTQ, {"bits": 3}, "gptq quantization_config.bits 3"),
    (GPTQ, {"bits": True}, "gptq quantization_config.bits True"),
    (GPTQ, {"group_size": -1},
     r"quantization_config.group_size -1 \(-1, one group per row, is not modelled\)"),
    (GPTQ, {"lm_head": True}, "gptq quantization_config.lm_head: the LM head is quantized too"),
    (GPTQ, {"dynamic": {"-:.*mlp.*": {}}}, "quantization_config.dynamic: per-module overrides"),
    (GPTQ, {"checkpoint_format": "gptq_v2"}, "checkpoint_format 'gptq_v2'"),
    (GPTQ, {"is_marlin_format": True}, "is_marlin_format is set"),
    (GPTQ, {"desc_act": "yes"}, "desc_act 'yes'"),
    (AWQ, {"bits": 8}, "awq quantization_config.bits 8"),
    (AWQ, {"zero_point": False}, "zero_point False"),
    (AWQ, {"version": "gemv"}, "version 'gemv'"),
    (AWQ, {"modules_to_not_convert": ["mlp.down_proj"]},
     "modules_to_not_convert 'mlp.down_proj' leaves model.layers.0.mlp.down_proj unquantized"),
])
def test_layouts_not_modelled_are_refused(fragment: str, change: dict[str, Any], reason: str):
    base = "gemma-2b" if fragment == GPTQ else "llama-3.1-70b"
    with pytest.raises(ImportRefused, match=reason):
        _spec(base, fragment, **change)


def test_awq_skipping_modules_outside_the_decoder_prices_the_same():
    # vLLM's is_layer_skipped_awq: a name that is no substring of a decoder linear layer's
    # prefix (the LM head, a vision tower) leaves every priced layer quantized
    m = _spec("llama-3.1-70b", AWQ, modules_to_not_convert=["lm_head", "visual"])
    assert weights_bytes_per_gpu(m, DType.bf16, 1) == 39_767_785_472


def test_a_model_type_without_the_layout_is_refused():
    with pytest.raises(ImportRefused, match="model_type 'mixtral' is not one kvplan lays out"):
        _spec("mixtral-8x7b", AWQ)


def test_float32_checkpoint_priced_as_half():
    cfg = _config("gemma-2b", GPTQ)
    cfg["torch_dtype"] = "float32"
    m = spec_from_config(cfg, name="q", hf_id="x/q", origin="t")
    assert m.weight_dtype is DType.fp16
    assert "vLLM loads GPTQ/AWQ checkpoints in half" in (m.notes or "")


def test_schema_refuses_a_group_that_does_not_divide():
    data = load_model("gemma-2b").model_dump(mode="json", exclude_none=True)
    data["weight_quant"] = {"method": "awq", "weight_dtype": "int4", "group_size": 96,
                            "scale_dtype": "fp16"}
    with pytest.raises(ValueError, match="group_size 96 must divide hidden_size 2048"):
        ModelSpec.model_validate(data)
    data["weight_quant"] = {"method": "awq", "weight_dtype": "int8", "group_size": 128,
                            "scale_dtype": "fp16"}
    with pytest.raises(ValueError, match="awq stores int4, not int8"):
        ModelSpec.model_validate(data)
    data["weight_quant"] = {"method": "awq", "weight_dtype": "int4", "group_size": 128,
                            "scale_dtype": "fp16", "act_order": True}
    with pytest.raises(ValueError, match="act_order is a gptq setting"):
        ModelSpec.model_validate(data)


def test_hub_cache_prices_an_awq_repository(tmp_path: Path):
    # `kvplan size ORG/NAME` offline, the hub cache holding only its config.json: the path a
    # hub id such as Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4 takes
    pytest.importorskip("huggingface_hub")
    repo = "acme/llama-70b-awq"
    hub_cache(tmp_path, repo, {"config.json": json.dumps(_config("llama-3.1-70b", AWQ))})
    r = run_kvplan(["size", repo, "--gpu", "h100", "-c", "8192", "--tp", "8"],
                   {"HF_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"})
    assert r.returncode == 0, r.stderr
    assert "4,970,973,184 B" in r.stdout


def test_a_gptq_or_awq_spec_counts_as_quantized_for_the_engines_dequant_scratch():
    # vLLM's and TensorRT-LLM's activation peak and vLLM's non-torch term add dequantisation
    # scratch for integer weights (kvplan.engines.common.quantized): a GPTQ/AWQ spec priced as
    # published is int4 like an int4 spec; a --weight-dtype that reprices the whole model is not
    from kvplan.capacity.plan import SizeRequest
    from kvplan.engines.common import quantized

    q = _spec("llama-3.1-70b", AWQ)
    assert q.weight_quant is not None and q.weight_dtype is DType.bf16
    assert quantized(SizeRequest(model=q, gpu=load_hardware("h100"), context_tokens=8192)) is True
    assert quantized(SizeRequest(model=q, gpu=load_hardware("h100"), context_tokens=8192,
                                 weight_dtype=DType.fp8)) is False
    plain = load_model("llama-3.1-70b")
    assert quantized(SizeRequest(model=plain, gpu=load_hardware("h100"), context_tokens=8192)) is False
    assert quantized(SizeRequest(model=plain, gpu=load_hardware("h100"), context_tokens=8192,
                                 weight_dtype=DType.int4)) is True


def test_describe_names_the_scheme_and_every_part_in_bytes():
    # the figures of test_gptq_gemma_2b_by_hand and, for AWQ, of test_awq_llama_70b_by_hand
    gptq = _spec("gemma-2b", GPTQ)
    assert linear_quant.describe(gptq) == (
        "weights in bf16 but the decoder's linear layers in gptq int4 (groups of 128: qweight "
        "990,904,320 B, fp16 scales 30,965,760 B, packed zeros 7,741,440 B, g_idx 1,622,016 B; "
        "the rest 1,048,727,552 B)")
    ordered = linear_quant.describe(_spec("gemma-2b", GPTQ, desc_act=True))
    assert "(groups of 128, act order: qweight" in ordered and "g_idx 1,622,016 B" in ordered
    awq = linear_quant.describe(_spec("llama-3.1-70b", AWQ))
    assert awq.startswith("weights in bf16 but the decoder's linear layers in awq int4 (groups "
                          "of 128: qweight 34,225,520,640 B, fp16 scales 1,069,547,520 B, packed "
                          "zeros 267,386,880 B; the rest ")
    assert "g_idx" not in awq and "act order" not in awq


@pytest.mark.parametrize(("changes", "tp", "what"), [
    # Gemma-2B: 8 heads x 256, intermediate 16,384, groups of 128, 8 int4 to an int32
    ({}, 3, "num_attention_heads 8 into parts of 2.66667, not whole multiples of 1"),
    # intermediate 384 = 3 groups (the spec's validator requires whole groups): at TP 2 a
    # rank's down_proj takes 192 inputs, 1.5 groups (gate_up's 384 a rank are 48 int32s: whole)
    ({"intermediate_size": 384}, 2,
     "intermediate_size (down_proj inputs) 384 into parts of 192, not whole multiples of 128"),
    # head_dim 80: 8 x 80 = 640 o_proj inputs, 320 a rank at TP 2, 2.5 groups
    ({"head_dim": 80}, 2,
     "heads x head_dim (o_proj inputs) 640 into parts of 320, not whole multiples of 128"),
])
def test_check_split_names_the_first_part_a_tp_breaks(changes: dict[str, Any], tp: int, what: str):
    cfg = _config("gemma-2b", GPTQ)
    cfg.update(changes)
    m = spec_from_config(cfg, name="q", hf_id="x/q", origin="test")
    with pytest.raises(InputError) as err:
        linear_quant.check_split(m, tp)
    assert str(err.value) == (f"q: tensor parallel size {tp} splits {what}; vLLM's gptq "
                              "create_weights refuses such a split (use a smaller --tp)")
    linear_quant.check_split(_spec("gemma-2b", GPTQ), 8)  # 8 heads, 2,048 a rank at TP 8: whole


def test_check_split_refuses_gate_up_outputs_that_are_not_whole_int32s():
    # only reachable with groups smaller than the int32 pack: groups of 2, intermediate 1,000 at
    # TP 4: down_proj takes 250 inputs a rank (125 groups: whole), but gate_up's 2 x 1,000 / 4 =
    # 500 outputs a rank are 62.5 int32s of 8 int4 values
    cfg = _config("gemma-2b", GPTQ, group_size=2)
    cfg["intermediate_size"] = 1000
    m = spec_from_config(cfg, name="q", hf_id="x/q", origin="test")
    with pytest.raises(InputError) as err:
        linear_quant.check_split(m, 4)
    assert str(err.value) == (
        "q: tensor parallel size 4 splits intermediate_size (gate_up_proj outputs) 2000 into "
        "parts of 500, not whole multiples of 8; vLLM's gptq create_weights refuses such a "
        "split (use a smaller --tp)")
    linear_quant.check_split(m, 2)  # 1,000 outputs a rank: 125 int32s


SPECS = Path(__file__).parents[1] / "assets" / "model_specs"
ROTARY = 32_768 * 128 * 2  # vLLM's fp16 cos/sin cache for max_position 32,768, head 128


def test_qwen25_awq_specs_are_what_vllm_030_marlin_holds():
    """Task h43awq: vLLM 0.30.0's AWQ-on-Marlin path keeps the checkpoint's bytes (no tile padding
    for these shapes, no g_idx; docs/engines-findings.md "vLLM: AWQ weights under 0.30's Marlin and Machete
    kernels"), so kvplan's layout is what the engine holds, rotary cache aside (vLLM builds one of
    max_position 32,768 x head 128 x 2 B = 8,388,608 B for both models; the test-local specs state
    no rope_type, so kvplan's vllm_rotary books none for them: the figure is added by hand here).

    Qwen2.5-7B-Instruct-AWQ (log 443's spec): 28 layers of qkv 3584 x (3584 + 2 x 512) =
    16,515,072, o 3584 x 3584 = 12,845,056, gate_up 3584 x 37,888 = 135,790,592, down 18,944 x
    3584 = 67,895,296: 233,046,016 a layer, x 28 = 6,525,288,448 weights. qweight x 0.5 B =
    3,262,644,224; scales / 128 x 2 B = 101,957,632; packed zeros / 128 x 0.5 B = 25,489,408; the
    rest 7,615,616,512 - 6,525,288,448 = 1,090,328,064 params x 2 B = 2,180,656,128 (embeddings
    and LM head 2 x 152,064 x 3584 = 1,089,994,752, norms 57 x 3584, biases 28 x 4608). Sum
    5,570,747,392 B; + the rotary cache = 5,579,136,000 B = 5.196 GiB.

    Qwen2.5-3B-Instruct-AWQ (log 252, vLLM 0.30.0, MarlinLinearKernel, "Model loading took 1.93
    GiB"): 36 layers of qkv 2048 x (2048 + 2 x 256) = 5,242,880, o 2048 x 2048 = 4,194,304,
    gate_up 2048 x 22,016 = 45,088,768, down 11,008 x 2048 = 22,544,384: 77,070,336 a layer, x 36
    = 2,774,532,096 weights: qweight 1,387,266,048, scales 43,352,064, zeros 10,838,016; the rest
    (3,085,938,688 - 2,774,532,096) x 2 B = 622,813,184. Sum 2,064,269,312 B; + 8,388,608 B of
    rotary cache = 2,072,657,920 B = 1.9303 GiB, the log's 1.93.
    """
    m7 = load_model(str(SPECS / "qwen2.5-7b-instruct-awq.yaml"))
    assert linear_quant.quantized_params(m7) == 28 * 233_046_016 == 6_525_288_448
    lay = linear_quant.layout(m7)
    assert (lay.qweight, lay.scales, lay.qzeros, lay.g_idx, lay.rest) == (
        3_262_644_224, 101_957_632, 25_489_408, 0, 2_180_656_128)
    assert linear_quant.weights_bytes(m7, 1, 1) == 5_570_747_392

    m3 = load_model(str(SPECS / "qwen2.5-3b-instruct-awq.yaml"))
    assert linear_quant.quantized_params(m3) == 36 * 77_070_336 == 2_774_532_096
    lay = linear_quant.layout(m3)
    assert (lay.qweight, lay.scales, lay.qzeros, lay.g_idx, lay.rest) == (
        1_387_266_048, 43_352_064, 10_838_016, 0, 622_813_184)
    loaded = linear_quant.weights_bytes(m3, 1, 1) + ROTARY
    assert loaded == 2_072_657_920
    assert round(loaded / 2**30, 2) == 1.93  # log 252's "Model loading took 1.93 GiB"
