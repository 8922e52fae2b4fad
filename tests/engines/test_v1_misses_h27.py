"""Terms read in vLLM's source for issue #13's held-out misses (task h27v1miss), by hand.

- The profiling sampler's native sort (38 B a logit, kvplan/engines/vllm_sort_sampler.py) runs in
  0.11 (without FlashInfer, as 0.10) and 0.12-0.16 (FlashInfer's sampler opt-in); 0.17 masks with
  Triton (16 B kept). Qwen2.5-1.5B on an RTX 3090 (`vllm serve` below 70 GiB: 2,048 batched
  tokens, 256 sequences): 256 x 151,936 logits x 38 B = 1,478,033,408 B; x 16 B = 622,329,856 B.
- vLLM 0.6.4's profiler books device use less torch's allocated bytes, so FP8 weights quantized
  at load (fp8.py process_weights_after_loading: a new FP8 tensor for each 16-bit weight) leave
  their 16-bit copies in the allocator as non-torch memory, at the GPTQ repack share of log 11:
  Llama-3.1-70B in FP8 on one GPU weighs 68,452,360,192 B of FP8 linear weights + 2 x 128,256 x
  8,192 x 2 B of 16-bit embeddings and LM head = 72,655,052,800 B; non-torch = 350 MiB +
  floor(72,655,052,800 x 97 / 1000) = 367,001,600 + 7,047,540,121 = 7,414,541,721 B.
- The AWQ spec of log 123 (tests/assets/model_specs/qwen2.5-1.5b-instruct-awq.yaml): 28 layers x
  (1536 x 2048 + 1536 x 17,920 + 1536 x 1536 + 8960 x 1536) = 1,310,195,712 quantized weights:
  qweight / 2 = 655,097,856 B, fp16 scales / 64 = 20,471,808 B, packed zeros / 256 = 5,117,952 B;
  the rest (1,543,714,304 - 1,310,195,712) x 2 B = 467,037,184 B (embeddings tied).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.capacity import linear_quant
from kvplan.engines.interface import Interval
from kvplan.engines.vllm_nontorch import fp8_at_load, non_torch
from kvplan.engines.vllm_series import flavour
from kvplan.specs import load_model
from tests.conftest import explain_record, step_value

MIB = 2**20
AWQ_SPEC = Path(__file__).parents[1] / "assets" / "model_specs" / "qwen2.5-1.5b-instruct-awq.yaml"


@pytest.mark.parametrize(("version", "per_logit"), [
    ("0.11.0", 38), ("0.13.0", 38), ("0.16.0", 38), ("0.17.1", 16),
])
def test_the_sort_runs_through_0_16(version: str, per_logit: int) -> None:
    got = explain_record("qwen2.5-1.5b", "--gpu", "rtx-3090", "--engine", "vllm", "--engine-version",
                         version, "-c", "2048")
    assert step_value(got, "activation peak") == 256 * 151_936 * per_logit
    assert (256 * 151_936 * 38, 256 * 151_936 * 16) == (1_478_033_408, 622_329_856)


def test_opting_in_to_flashinfer_keeps_16_bytes_from_0_12() -> None:
    got = explain_record("qwen2.5-1.5b", "--gpu", "rtx-3090", "--engine", "vllm", "--engine-version",
                         "0.13.0", "-c", "2048", "--topk-topp-sampler", "flashinfer")
    assert step_value(got, "activation peak") == 622_329_856


@pytest.mark.parametrize(("bits", "published", "weight_quant", "expected"), [
    (8, 16, False, True), (8, 8, False, False), (8, 16, True, False), (4, 16, False, False),
    (16, 16, False, False),
])
def test_fp8_at_load(bits: int, published: int, weight_quant: bool, expected: bool) -> None:
    assert fp8_at_load(bits, published, weight_quant) is expected


def test_fp8_at_load_books_the_repack_share_in_0_6_4_only() -> None:
    weights = 72_655_052_800
    nt, how = non_torch(flavour("0.6.4"), 1, weights, False, fp8_load=True)
    assert nt == Interval(367_001_600 + 7_047_540_121, 200 * MIB, 600 * MIB + weights * 15 // 100)
    assert how == "CUDA context + NCCL + the cache of 16-bit weights quantized to FP8 at load (vLLM 0.6.4)"
    nt5, how5 = non_torch(flavour("0.6.5"), 1, weights, False, fp8_load=True)
    # 0.6.5 books growth over its start-up free memory (task h39v066): 70 MiB, no FP8 cache
    assert nt5.best == 70 * MIB and how5 == "growth after start-up (V0 from 0.6.5: start-up baseline)"


def test_explain_books_it_for_llama_70b_fp8_at_load() -> None:
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 131,072 positions x 128 x 2 B = 33,554,432 B, and leaves the pool;
    # recomputed: 72,655,052,800 -> 72,688,607,232, 7,414,541,721 -> 7,417,796,501
    args = ("llama-3.1-70b", "--gpu", "mi300x", "--engine", "vllm", "--weight-dtype", "fp8",
            "-c", "32768", "--engine-version")
    old = explain_record(*args, "0.6.4")
    assert step_value(old, "weights") == 72_688_607_232
    assert step_value(old, "non-torch memory") == 7_417_796_501
    # 0.6.5: the growth term, 70 MiB = 73,400,320 B (task h39v066)
    assert step_value(explain_record(*args, "0.6.5"), "non-torch memory") == 73_400_320


def test_the_awq_spec_of_log_123() -> None:
    m = load_model(str(AWQ_SPEC))
    assert linear_quant.quantized_params(m) == 1_310_195_712
    lay = linear_quant.layout(m)
    assert (lay.qweight, lay.scales, lay.qzeros, lay.g_idx, lay.rest) == (
        655_097_856, 20_471_808, 5_117_952, 0, 467_037_184)
    assert linear_quant.weights_bytes(m, 1, 1) == 1_147_724_800  # 1.07 GiB; logged 1.1018


GGUF_SPEC = Path(__file__).parents[1] / "assets" / "model_specs" / "llama-3.2-3b-q8_0-gguf.yaml"


def test_the_gguf_q8_0_spec_of_log_119() -> None:
    # Llama-3.2-3B: 28 layers x (3072 x (3072 + 1024 + 1024) + 3072 x 16,384 + 3072 x 3072 +
    # 8192 x 3072) = 28 x 100,663,296 = 2,818,572,288 linear weights; Q8_0 is 32 int8 values and
    # one fp16 scale (34 B): 2,818,572,288 B + 2,818,572,288 / 32 x 2 = 176,160,768 B of scales;
    # the rest (3,212,749,824 - 2,818,572,288 = 394,177,536: the tied embeddings 128,256 x 3072 =
    # 394,002,432 and the norms) in blocks too: 12,318,048 x 34 = 418,813,632 B.
    m = load_model(str(GGUF_SPEC))
    assert linear_quant.quantized_params(m) == 2_818_572_288
    lay = linear_quant.layout(m)
    assert (lay.qweight, lay.scales, lay.qzeros, lay.g_idx, lay.rest) == (
        2_818_572_288, 176_160_768, 0, 0, 418_813_632)
    assert linear_quant.weights_bytes(m, 1, 1) == 3_413_546_688  # 3.18 GiB; logged 3.2637
    assert -(-394_177_536 // 32) * 34 == 418_813_632


def test_explain_prices_the_gguf_spec() -> None:
    got = explain_record(str(GGUF_SPEC), "--gpu", "rtx-4090", "--engine", "vllm", "--engine-version",
                         "0.8.2-v0", "-c", "10000")
    # 3,413,546,688 B of Q8_0 weights + the rotary cos/sin cache, 131,072 positions x 128 x 2 B =
    # 33,554,432 B (llama3 rope, factor 32 over 8,192 positions: the base config's rope fields,
    # which the spec carries since 2026-12-06)
    assert step_value(got, "weights") == 3_413_546_688 + 131_072 * 128 * 2 == 3_447_101_120


@pytest.mark.parametrize(("quant", "message"), [
    ({"weight_dtype": "int4", "group_size": 32, "scale_dtype": "fp16"}, "gguf stores int8"),
    ({"weight_dtype": "int8", "group_size": 64, "scale_dtype": "fp16"}, "modelled as Q8_0"),
    ({"weight_dtype": "int8", "group_size": 32, "scale_dtype": "bf16"}, "modelled as Q8_0"),
])
def test_gguf_is_q8_0_only(tmp_path: Path, quant: dict, message: str) -> None:
    text = GGUF_SPEC.read_text().split("weight_quant:")[0] + "weight_quant:\n" + "".join(
        f"  {k}: {v}\n" for k, v in {"method": "gguf", **quant}.items())
    path = tmp_path / "llama-3.2-3b-q8_0-gguf.yaml"
    path.write_text(text)
    with pytest.raises(Exception, match=message):
        load_model(str(path))


def test_the_gguf_weights_are_described_with_their_bytes() -> None:
    """`kvplan size`'s assumption line for a GGUF Q8_0 spec: the linear layers' values and scales
    (2,818,572,288 + 176,160,768 B) and the blocks of the rest."""
    m = load_model(str(GGUF_SPEC))
    assert linear_quant.describe(m) == (
        "weights as a GGUF file's Q8_0 blocks (32 int8 values and one fp16 scale: linear layers "
        "2,994,733,056 B, embeddings and the rest 418,813,632 B)")
