"""Quantized dense vLLM checkpoints' non-KV terms (issue #13, task h44quant; docs/engines-findings.md,
"vLLM: quantized dense checkpoints term by term").

Fit log 420 (vLLM 0.8.5.post1, Qwen/Qwen2.5-72B-Instruct-AWQ on one L20) was priced with the
catalog's bf16 shapes at int4, whose intermediate size (29,568) is the base model's; the AWQ
checkpoint's config.json states 29,696 (tests/assets/model_specs/qwen2.5-72b-instruct-awq.yaml
cites it), and the spec now lays the weights out as vLLM registers AWQ tensors."""

from __future__ import annotations

from pathlib import Path

from kvplan.calibrate.compare import calibrate_files
from kvplan.capacity import linear_quant
from kvplan.specs import load_model

ASSETS = Path(__file__).parents[1] / "assets"
SPEC = ASSETS / "model_specs" / "qwen2.5-72b-instruct-awq.yaml"


def test_qwen25_72b_awq_layout_by_hand() -> None:
    """Per layer (K x N, TP 1): qkv 8,192 x (8,192 + 2 x 1,024) = 83,886,080; gate_up 8,192 x
    (2 x 29,696) = 486,539,264; o 8,192 x 8,192 = 67,108,864; down 29,696 x 8,192 =
    243,269,632; sum 880,803,840 = 8,192 x 107,520, x 80 layers = 70,464,307,200 weights.
    qweight x 0.5 B = 35,232,153,600; fp16 scales / 128 x 2 B = 1,101,004,800; packed 4-bit
    zeros / 128 x 0.5 B = 275,251,200; AWQ registers no g_idx. The rest: 72,957,861,888 -
    70,464,307,200 = 2,493,554,688 params x 2 B = 4,987,109,376 (embeddings and the untied LM
    head 2 x 152,064 x 8,192 = 2,491,416,576, norms and biases 2,138,112). Sum 41,595,518,976 B,
    130,744,320 B above the base shapes' 29,568 (80 x 3 x 8,192 x 128 = 251,658,240 more weights
    at 0.5 + 2/128 + 0.5/128 B: 125,829,120 + 3,932,160 + 983,040)."""
    m = load_model(str(SPEC))
    assert m.intermediate_size == 29_696 and m.params_total == 72_706_203_648 + 251_658_240
    assert linear_quant.quantized_params(m) == 80 * 880_803_840 == 70_464_307_200
    lay = linear_quant.layout(m)
    assert (lay.qweight, lay.scales, lay.qzeros, lay.g_idx, lay.rest) == (
        35_232_153_600, 1_101_004_800, 275_251_200, 0, 4_987_109_376)
    assert linear_quant.weights_bytes(m, 1, 1) == 41_595_518_976
    base = m.model_copy(update={"intermediate_size": 29_568, "params_total": 72_706_203_648})
    assert linear_quant.weights_bytes(m, 1, 1) - linear_quant.weights_bytes(base, 1, 1) == (
        251_658_240 // 2 + 251_658_240 // 64 + 251_658_240 // 256) == 130_744_320


def test_log_420_with_its_checkpoint_spec() -> None:
    """The shapes basis of log 420 (vLLM 0.8.5 V1, L20 at 44.52 GiB = 47,802,986,004 B,
    utilization 0.98, 4,096 batched tokens, 48 sequences, eager): requested floor(47,802,986,004
    x 0.98) = 46,846,926,283; weights 41,595,518,976 + the rotary cache 32,768 x 128 x 2 B =
    41,603,907,584; activation max(forward 4,096 x (3 x 8,192 + 3 x 29,696) x 2 B = 931,135,488,
    sampler 48 x 152,064 x 16 B) = 931,135,488; non-torch 350 MiB = 367,001,600 (V1 before 0.9.1:
    device use less torch's allocated bytes). KV 3,944,881,611 B / (16 x 80 x 4,096 B =
    5,242,880 B a block) = 752 blocks = 12,032 tokens against the 10,848 quoted: +10.91% (12,448
    and +14.75% with the base shapes)."""
    (rep,) = calibrate_files(sorted((ASSETS / "logs").glob("420-*.log")))
    shapes = {c.quantity: c for c in rep.checks if c.basis == "shapes"}
    assert rep.model == "qwen2.5-72b-instruct-awq"
    assert shapes["KV tokens"].predicted == 12_032 and shapes["KV tokens"].logged == 10_848
    assert round(shapes["KV tokens"].error_pct, 2) == 10.91
