"""vLLM's "Model loading took" counts torch's whole blocks (issue #13, tasks h50awq7b and
h51blocks; docs/engines-findings.md, "torch's whole blocks"; kvplan.engines.vllm_load_blocks and
kvplan.engines.vllm_load_layout).

vLLM 0.21+ loads the model under max_split_size_mb 20 (v1/worker/gpu_worker.py:338-345 in
0.21.0, :500-507 in 0.30.0) and prints torch's allocated bytes (DeviceMemoryProfiler,
utils/mem_utils.py; platforms/cuda.py get_current_memory_usage), which count each block whole: a
tensor of 20 MiB or more sits alone in a segment rounded up to 2 MiB (torch's
get_allocation_size / should_split). 1 MiB = 1,048,576 B; 2 MiB = 2,097,152 B."""

from __future__ import annotations

from pathlib import Path

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.vllm_load_blocks import round_up, slack_bytes
from kvplan.engines.vllm_load_layout import (
    not_laid_out,
    quant_layer,
    quant_vocab_count,
    rank_layout,
    vocab_tensors,
)
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

SPECS = Path(__file__).parents[1] / "assets" / "model_specs"
QWEN7_AWQ = SPECS / "qwen2.5-7b-instruct-awq.yaml"


def _req(model: str, tp: int = 1, dtype: DType | None = None, gpu: str = "h100") -> SizeRequest:
    return SizeRequest(model=load_model(model), gpu=load_hardware(gpu), context_tokens=4096,
                       tp=tp, weight_dtype=dtype)  # type: ignore[arg-type]


def test_round_up_by_hand() -> None:
    """Under 20 MiB (20,971,520 B) nothing is counted here; at or above it the segment is the
    size rounded up to 2 MiB (2,097,152 B): 67,895,296 B (64.75 MiB) -> 66 MiB, +1,310,720;
    33,947,648 B (32.375 MiB) -> 34 MiB, +1,703,936; 1,089,994,752 B (1,039.5 MiB) -> 1,040
    MiB, +524,288; 131,072,000 B (125 MiB, an odd count) -> 126 MiB, +1,048,576; 20 MiB
    exactly -> +0; 20 MiB + 1 B -> 22 MiB, +2,097,151."""
    assert round_up(8_257_536) == 0 and round_up(20_971_519) == 0
    assert round_up(67_895_296) == 1_310_720
    assert round_up(33_947_648) == 1_703_936
    assert round_up(1_089_994_752) == 524_288
    assert round_up(131_072_000) == 1_048_576
    assert round_up(20_971_520) == 0 and round_up(20_971_521) == 2_097_151


def test_qwen25_7b_16bit_tp1_by_hand() -> None:
    """Qwen2.5-7B(-Instruct) bf16 (hidden 3,584, intermediate 18,944, 28 heads and 4 KV heads
    of 128, 28 layers, vocab 152,064, untied; fit log 560) at TP 1, 2 B a weight: qkv_proj
    4,608 x 3,584 x 2 = 33,030,144 (31.5 MiB -> 32, +524,288); o_proj 3,584 x 3,584 x 2 =
    25,690,112 (24.5 -> 26, +1,572,864); gate_up 37,888 x 3,584 x 2 = 271,581,184 (259 -> 260,
    +1,048,576); down 3,584 x 18,944 x 2 = 135,790,592 (129.5 -> 130, +524,288): 3.5 MiB a layer,
    28 x 3,670,016 = 102,760,448. The embeddings and LM head, 152,064 rows (a multiple of 64) x
    3,584 x 2 = 1,089,994,752 each, +524,288 each. 103,809,024 B = 99 MiB = 0.0967 GiB: kvplan's
    14.193 GiB becomes 14.290, and 560 prints "Model loading took 14.29 GiB"."""
    req = _req("qwen2.5-7b")
    lay = rank_layout(req.model, DType.bf16, 1)
    assert lay is not None and lay.kind == "16-bit dense"
    assert lay.layers == ((28, (33_030_144, 25_690_112, 271_581_184, 135_790_592)),)
    assert lay.vocab == (1_089_994_752, 1_089_994_752)
    assert slack_bytes(req, "0.24.0") == 28 * 3_670_016 + 2 * 524_288 == 103_809_024
    assert slack_bytes(req, "0.20.0") == 0  # 0.20.0 does not scope max_split_size


def test_qwen25_7b_16bit_tp2_by_hand() -> None:
    """The same at TP 2: qkv_proj (14 + 2 + 2 heads) x 128 = 2,304 x 3,584 x 2 = 16,515,072
    (15.75 MiB: under 20, 0); o_proj 3,584 x 1,792 x 2 = 12,845,056 (0); gate_up 18,944 x 3,584
    x 2 = 135,790,592 (129.5 -> 130, +524,288); down 3,584 x 9,472 x 2 = 67,895,296 (64.75 -> 66,
    +1,310,720): 28 x 1,835,008 = 51,380,224. Vocab 152,064 / 2 = 76,032 rows x 3,584 x 2 =
    544,997,376 (519.75 -> 520, +262,144), twice. 51,904,512 B (49.5 MiB) a GPU."""
    req = _req("qwen2.5-7b", tp=2)
    lay = rank_layout(req.model, DType.bf16, 2)
    assert lay is not None
    assert lay.layers == ((28, (16_515_072, 12_845_056, 135_790_592, 67_895_296)),)
    assert lay.vocab == (544_997_376, 544_997_376)
    assert slack_bytes(req, "0.30.0") == 51_380_224 + 524_288 == 51_904_512


def test_cpu_offload_moves_tensors_out_of_the_blocks_by_hand() -> None:
    """--cpu-offload-gb moves a process's decoder-layer parameters to pinned host memory, one by
    one from its first layer, while the bytes moved are below the budget
    (`maybe_offload_to_cpu`, model_executor/models/utils.py): those round nothing on the GPU.
    Qwen2.5-7B bf16 at TP 1, 4 GiB = 4,294,967,296 B: a layer is 33,030,144 + 25,690,112 +
    271,581,184 + 135,790,592 = 466,092,032 B; nine layers move 4,194,828,288 (below), the tenth
    moves qkv (4,227,858,432), o_proj (4,253,548,544) and gate_up (4,525,129,728: past it) and
    keeps down_proj. Not rounded: 9 x 3.5 MiB + 0.5 + 1.5 + 1 = 34.5 MiB, so 99 - 34.5 = 64.5 MiB
    = 67,633,152 B. At PP 2 each stage (14 layers, vLLM's get_pp_indices) moves its own first
    nine and a half the same way: 14 x 3.5 - 34.5 = 14.5 MiB a stage, 29 over both, 14.5 a GPU
    (15,204,352) + half the vocab's 1 MiB (524,288) = 15,728,640. At TP 2 a layer is 16,515,072
    + 12,845,056 + 135,790,592 + 67,895,296 = 233,046,016 B, rounding 1.75 MiB (gate_up 0.5,
    down 1.25); eighteen layers move 4,194,828,288, the nineteenth its qkv, o_proj and gate_up
    (4,359,979,008): 18 x 1.75 + 0.5 = 32 MiB not rounded, 49 - 32 = 17 MiB + the vocab's 0.5 =
    17.5 MiB = 18,350,080."""
    gib4 = 4 * 1024**3
    assert slack_bytes(_req("qwen2.5-7b"), "0.24.0", gib4) == 67_633_152
    pp2 = SizeRequest(model=load_model("qwen2.5-7b"), gpu=load_hardware("h100"),
                      context_tokens=4096, pp=2)
    assert slack_bytes(pp2, "0.24.0") == 51_904_512  # no offload: as at TP 2
    assert slack_bytes(pp2, "0.24.0", gib4) == 15_728_640
    assert slack_bytes(_req("qwen2.5-7b", tp=2), "0.24.0", gib4) == 18_350_080


def test_fp8_qwen3_14b_by_hand() -> None:
    """Qwen3-14B at fp8 (hidden 5,120, intermediate 17,408, 40 heads and 8 KV heads of 128, 40
    layers, vocab 151,936, untied; held-out 442's Qwen3-14B-FP8): 1 B a weight, a float32 scale
    per 128 x 128 block. qkv_proj 7,168 x 5,120 = 36,700,160 (35 MiB -> 36, +1,048,576), scales
    56 x 40 x 4 = 8,960; o_proj 5,120 x 5,120 = 26,214,400 (25 -> 26, +1,048,576), 40 x 40 x 4 =
    6,400; gate_up 34,816 x 5,120 = 178,257,920 (170 MiB: whole), 272 x 40 x 4 = 43,520; down
    5,120 x 17,408 = 89,128,960 (85 -> 86, +1,048,576), 40 x 136 x 4 = 21,760. 40 x 3 MiB =
    125,829,120. Embeddings and LM head stay 16-bit: 151,936 x 5,120 x 2 = 1,555,824,640
    (1,483.75 -> 1,484, +262,144) each. 126,353,408 B."""
    req = _req("qwen3-14b", dtype=DType.fp8)
    lay = rank_layout(req.model, DType.fp8, 1)
    assert lay is not None and lay.kind == "FP8 dense"
    assert lay.layers == ((40, (36_700_160, 8_960, 26_214_400, 6_400, 178_257_920, 43_520,
                                89_128_960, 21_760)),)
    assert lay.vocab == (1_555_824_640, 1_555_824_640)
    assert slack_bytes(req, "0.27.1") == 125_829_120 + 524_288 == 126_353_408


def test_moe_qwen3_coder_480b_tp8_by_hand() -> None:
    """Qwen3-Coder-480B-A35B bf16 at TP 8 (hidden 6,144, 96 heads and 8 KV heads of 128, 62
    layers, 160 experts of moe_intermediate 2,560, no shared expert, vocab 151,936, untied):
    per layer qkv_proj (12 + 1 + 1) x 128 = 1,792 x 6,144 x 2 = 22,020,096 (21 MiB -> 22,
    +1,048,576); o_proj 6,144 x 1,536 x 2 = 18,874,368 (18 MiB: under 20, 0); FusedMoE w13 160 x
    (2 x 320) x 6,144 x 2 = 1,258,291,200 (1,200 MiB: whole) and w2 160 x 6,144 x 320 x 2 =
    629,145,600 (600 MiB: whole); the router 160 x 6,144 x 2 = 1,966,080, whole on every rank.
    62 x 1,048,576 = 65,011,712. Vocab 151,936 / 8 = 18,992 rows x 6,144 x 2 = 233,373,696
    (222.5625 MiB -> 224, +1,507,328), twice. 68,026,368 B a GPU."""
    req = _req("qwen3-coder-480b-a35b", tp=8)
    lay = rank_layout(req.model, DType.bf16, 8)
    assert lay is not None and lay.kind == "16-bit MoE"
    assert lay.layers == ((62, (22_020_096, 18_874_368, 1_258_291_200, 629_145_600,
                                1_966_080)),)
    assert lay.vocab == (233_373_696, 233_373_696)
    assert slack_bytes(req, "0.30.0") == 65_011_712 + 2 * 1_507_328 == 68_026_368


def test_qwen25_7b_awq_by_hand() -> None:
    """Qwen2.5-7B-Instruct-AWQ (task h50awq7b; AWQ 4-bit, group 128): per layer, TP 1, the
    qkv_proj qweight 3,584 x 4,608 x 0.5 B = 8,257,536, scales 28 x 4,608 x 2 = 258,048, qzeros
    28 x 576 x 4 = 64,512; gate_up 3,584 x 37,888 x 0.5 = 67,895,296, 2,121,728, 530,432; o_proj
    3,584 x 3,584 x 0.5 = 6,422,528, 200,704, 50,176; down 18,944 x 3,584 x 0.5 = 33,947,648, 148
    x 3,584 x 2 = 1,060,864, 148 x 448 x 4 = 265,216. Only gate_up's and down's qweight reach 20
    MiB: 28 x (1,310,720 + 1,703,936) = 84,410,368. The 16-bit embeddings and untied LM head,
    152,064 x 3,584 x 2 B = 1,089,994,752 each: 2 x 524,288. Total 85,458,944 B (81.5 MiB)."""
    m = load_model(str(QWEN7_AWQ))
    assert quant_layer(m, 1) == [8_257_536, 258_048, 64_512, 67_895_296, 2_121_728, 530_432,
                                 6_422_528, 200_704, 50_176, 33_947_648, 1_060_864, 265_216]
    assert vocab_tensors(m, 1, quant_vocab_count(m)) == [1_089_994_752, 1_089_994_752]
    assert slack_bytes(_req(str(QWEN7_AWQ)), "0.21.0") == 85_458_944


def test_tied_3b_awq_and_aligned_8b_by_hand() -> None:
    """Qwen2.5-3B-Instruct-AWQ (tied: one vocab matrix, 151,936 x 2,048 x 2 B = 622,329,856 =
    593.5 MiB, +524,288): gate_up qweight 2,048 x 22,016 x 0.5 B = 22,544,384 (21.5 MiB,
    +524,288) in each of 36 layers, down 11,008 x 2,048 x 0.5 = 11,272,192 (under 20 MiB): 37 x
    524,288 = 19,398,656. Llama-3.1-8B AWQ-INT4: gate_up 4,096 x 28,672 x 0.5 = 56 MiB, down 28
    MiB, embeddings 128,256 x 4,096 x 2 = 1,002 MiB: all whole 2 MiB, 0."""
    assert slack_bytes(_req(str(SPECS / "qwen2.5-3b-instruct-awq.yaml")), "0.30.0") == 19_398_656
    assert slack_bytes(_req(str(SPECS / "llama-3.1-8b-instruct-awq-int4.yaml")), "0.28.0") == 0


def test_weights_line_adds_the_blocks() -> None:
    """vLLM 0.22.1 on an RTX 3090, Qwen2.5-7B-Instruct-AWQ: the checkpoint's tensors
    5,570,747,392 B + the rotary cache 32,768 x 128 x 2 B = 8,388,608 + 85,458,944 of blocks =
    5,664,594,944 B = 5.2756 GiB (fit log 480 prints 5.29); 0.20.0 books no blocks."""
    req = _req(str(QWEN7_AWQ), gpu="rtx-3090")
    r = run_engine(req, EngineSettings(engine=Engine.vllm, version="0.22.1"))
    assert r.weights_bytes == 5_664_594_944
    old = run_engine(req, EngineSettings(engine=Engine.vllm, version="0.20.0"))
    assert old.weights_bytes == 5_579_136_000


def _weights_formula(req: SizeRequest, version: str) -> tuple[int, str]:
    r = run_engine(req, EngineSettings(engine=Engine.vllm, version=version))
    step = next(s for s in r.steps if s.label == "weights")
    return r.weights_bytes, " ".join(step.formula.split())


def test_explain_says_what_is_not_laid_out() -> None:
    """DeepSeek-V2-Lite (MLA, 27 layers) is not laid out tensor by tensor: nothing booked, and
    the weights step says so with the bound, 2 MiB x (4 x 27 + 2) = 110 tensors = 230,686,720 B.
    Under 0.20.0 (no max_split_size scope) the step says nothing of it. Qwen2.5-7B's step names
    the 103,809,024 B it books."""
    req = _req("deepseek-v2-lite")
    assert not_laid_out(req.model, DType.bf16) == "MLA attention"
    weights, formula = _weights_formula(req, "0.30.0")
    assert "torch's whole blocks not booked (MLA attention: not laid out tensor by tensor)" in formula
    assert "at most 230,686,720 B here (2 MiB x 110 tensors)" in formula
    old_weights, old_formula = _weights_formula(req, "0.20.0")
    assert "whole blocks" not in old_formula and "max_split_size_mb" not in old_formula
    assert weights == old_weights
    _, booked = _weights_formula(_req("qwen2.5-7b"), "0.30.0")
    assert "+ 103,809,024 B of torch blocks: the 16-bit dense layout's tensors" in booked


def test_what_is_not_laid_out() -> None:
    """Vision towers, hybrid layers, shared experts, MXFP4 and non-gated decoders (falcon-7b:
    params_total 6,921,720,704 against a gated layout of 9,268,887,552 without vocab) are not
    laid out; int8 is priced from the parameter count."""
    assert not_laid_out(load_model("qwen2.5-vl-7b"), DType.bf16) == "a vision tower"
    assert not_laid_out(load_model("falcon-7b"), DType.bf16) == (
        "params_total is not within 1% of a gated decoder's layout with one or two vocab matrices")
    assert not_laid_out(load_model("gpt-oss-20b"), DType.int4) == "MXFP4 experts"
    assert not_laid_out(load_model("qwen2.5-7b"), DType.int8) == (
        "int8 weights priced from the parameter count")
    assert rank_layout(load_model("qwen2.5-7b"), DType.int8, 1) is None
