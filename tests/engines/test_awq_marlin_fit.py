"""AWQ through vLLM's Marlin kernel on an Ampere card, read term by term (issue #13, task h48awq;
docs/engines-findings.md, "vLLM: AWQ/Marlin start-ups with a printed breakdown (task h48awq)").

Fit log 530 (vLLM 0.28.0, hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4 on one RTX 3090,
a warm compile cache) prints "Model loading took 5.39 GiB" and 125,952 tokens; kvplan meets it
with no quantization-specific term, which is the fit evidence that such a term is not what the
held-out AWQ runs lack."""

from __future__ import annotations

from pathlib import Path

from kvplan.calibrate.compare import calibrate_files
from kvplan.capacity import linear_quant
from kvplan.specs import load_model

ASSETS = Path(__file__).parents[1] / "assets"
SPEC = ASSETS / "model_specs" / "llama-3.1-8b-instruct-awq-int4.yaml"


def test_llama31_8b_awq_layout_by_hand() -> None:
    """Per layer (K x N, TP 1): qkv 4,096 x (4,096 + 2 x 1,024) = 25,165,824; gate_up 4,096 x
    (2 x 14,336) = 117,440,512; o 4,096 x 4,096 = 16,777,216; down 14,336 x 4,096 =
    58,720,256; sum 218,103,808, x 32 layers = 6,979,321,856 weights. qweight x 0.5 B =
    3,489,660,928; fp16 scales / 128 x 2 B = 109,051,904; packed zeros / 128 x 0.5 B =
    27,262,976; no g_idx. The rest: 8,030,261,248 - 6,979,321,856 = 1,050,939,392 params x 2 B =
    2,101,878,784 (embeddings and the untied LM head 2 x 128,256 x 4,096 = 1,050,673,152, norms
    65 x 4,096 = 266,240). Sum 5,727,854,592 B; with vLLM's llama3 rotary cache (131,072 x 128
    x 2 B = 33,554,432) 5,761,409,024 B = 5.366 GiB against the log's 5.39 (5.385-5.395 GiB =
    5,782,099,722-5,792,837,140 B): 20.7-31.4 MB not placed, as for log 123 (27 MB)."""
    m = load_model(str(SPEC))
    assert linear_quant.quantized_params(m) == 32 * 218_103_808 == 6_979_321_856
    lay = linear_quant.layout(m)
    assert (lay.qweight, lay.scales, lay.qzeros, lay.g_idx, lay.rest) == (
        3_489_660_928, 109_051_904, 27_262_976, 0, 2_101_878_784)
    assert linear_quant.weights_bytes(m, 1, 1) == 5_727_854_592


def test_log_530_meets_the_pool_without_a_quantization_term() -> None:
    """The shapes basis of log 530 (vLLM 0.28.0, RTX 3090 at 25,327,697,920 B, utilization 0.9,
    8,192 tokens, 256 sequences, 2,048 batched tokens): requested floor(25,327,697,920 x 0.9) =
    22,794,928,128; weights 5,761,409,024 (above); activation max(forward 2,048 x (3 x 4,096 +
    3 x 14,336) x 2 B = 226,492,416, sampler 256 x 128,256 x 2 B) = 226,492,416; non-torch 70 MiB
    = 73,400,320; Model Runner V2 state 256 x (128,256 + 2 x 4,008 + 4,481) x 4 B + 2,048 x 13 B
    = 144,157,696; no graph term (0.28's Model Runner V2 returns 0). KV 16,589,468,672 B /
    (16 x 32 x 4,096 B = 2,097,152 B a block) = 7,910 blocks = 126,560 tokens against 125,952
    (7,872 blocks): +0.48%, 38 blocks = 0.074 GiB."""
    (rep,) = calibrate_files(sorted((ASSETS / "logs").glob("530-*.log")))
    shapes = {c.quantity: c for c in rep.checks if c.basis == "shapes"}
    assert rep.model == "llama-3.1-8b-instruct-awq-int4"
    assert shapes["KV tokens"].predicted == 126_560 and shapes["KV tokens"].logged == 125_952
    assert round(shapes["KV tokens"].error_pct, 2) == 0.48
