"""vLLM's profile in full: every number of an EngineResult, its explain steps, notes and log lines,
for a few representative cases (dense / MoE + MLA / sliding hybrid, TP 1 / TP > 1, each version
series). Each expected number is worked by hand in the comments from vLLM's own accounting
(vllm/v1/worker/gpu_worker.py determine_available_memory, v1/core/kv_cache_utils.py, as
kvplan.engines.vllm's docstring quotes it), not read back from the code.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/vllm.py. This file
holds the V1 releases' dense cases, test_engines_vllm_mla_sliding.py the MLA and sliding ones,
test_engines_vllm_older.py the V0 and early-V1 releases and the pools too small to start,
test_engines_vllm_inputs.py measured terms and stated settings (split by tasks h42hygiene, 974
lines in one module before, and the lead, 2026-12-06, 413).
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.capacity.plan import Breakdown
from kvplan.engines import Engine
from kvplan.engines.vllm_compile_cache import NOTE as COMPILE_NOTE
from tests.mutants.engine_runs import numbers, rotary_words, steps, vllm

# The explain lines every vLLM result shares, in order, with the text of each formula.
FORMULAS_V1_031 = [
    ("GPU memory", "h100-sxm-80gb total memory"),
    # 0.31's default, 0.92 (config/cache.py:66 from 0.20.0; the lead read it in the wheels)
    ("gpu_memory_utilization", "default (0.92 from vLLM 0.20: config/cache.py:66 in 0.20.0, "
     ":215 in 0.33.0; 0.9 before)"),
    ("requested memory", "floor(GPU memory x gpu_memory_utilization)"),
    # + the rotary cos/sin cache (task h39rope): 8,192 positions x 128 x 2 B = 2,097,152 B
    ("weights", "8,030,261,248 params x 16 bits / 1 GPU(s)" + rotary_words("8,192 positions x 128 x 2 B")),
    ("activation peak",
     "max(forward 8,192 tok x 55,296 el x 2 B, sampler 1,024 rows x vocab 128,256 x 2 B)"),
    ("non-torch memory", "growth after start-up"),
    ("Model Runner V2 state",
     "1,024 seqs x (128,256 vocab + 2 x 4,008 + 4,481) x 4 B + 8,192 tok x 13 B "
     "(output_bin_counts, prompt_bin_mask and grammar bitmask, sampling tables, input buffers; "
     "booked from vLLM 0.27, on every TP GPU)"),
    ("CUDA graph memory",  # vllm_capture's form (task h44graphbase), vllm_graphs.note for 0.31.0
     "342 MiB first capture + 100 later graphs (each mode's first left out) x 32 layers x "
     "0.0855 MiB; 102 graphs (PIECEWISE 51: 1, 2, 4 ... 512; FULL decode 51: 1, 2, 4 ... 512) "
     "(capture sizes from max_num_seqs 1,024 and max_num_batched_tokens 8,192: "
     "kvplan.engines.vllm_capture); "
     "estimate subtracted before sizing (Model Runner V2's profile_cudagraph_memory measures "
     "them, gpu/model_runner.py:1004 -> gpu/cudagraph_utils.py:854; gpu_worker.py:676 "
     "subtracts it; read in 0.31.0)"),
    ("KV cache memory",
     "requested memory - weights - activation peak - non-torch memory - Model Runner V2 state"
     " - CUDA graph memory"),
    ("block size", "--block-size (vLLM default 16; MLA 64 on Hopper, 128 on Blackwell)"),
    ("KV bytes per token per layer", "8 KV heads/rank x (128 + 128) x 2 B"),
    ("page size per layer", "block size x KV bytes per token per layer"),
    ("layers per block", "layers sharing one block id"),
    ("bytes per block", "page size per layer x layers per block"),
    ("blocks (raw)", "floor(KV cache memory / bytes per block)"),
    ("GPU blocks", "never below 0"),
    ("KV cache groups", "1 full + 0 sliding-window"),
    ("blocks per group", "floor(GPU blocks / groups)"),
    ("GPU KV cache size",  # 0.21 on: int(concurrency x max_model_len) (task h36v030)
     "int(GPU blocks / blocks per request x max_model_len 8,192) (0.21 on; kv_cache_utils.py "
     "get_kv_cache_capacity)"),
    ("blocks per request", "one request of max_model_len 8,192 tokens"),
    ("maximum concurrency", "GPU blocks / blocks per request"),
    ("blocks per user", "one sequence holding 8,192 tokens, as the engine allocates it"),
    ("users per replica", "floor(GPU blocks / blocks per user)"),
    ("GPUs per replica", "tp 1 x pp 1"),
    ("users per GPU", "users per replica / GPUs per replica"),
]


def test_llama3_8b_on_one_h100_with_the_default_031_in_every_field():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 8,192 positions x 128 x 2 B = 2,097,152 B, and leaves the pool; recomputed: 16,060,522,496 ->
    # 16,062,619,648, 58,387,535,462 -> 58,385,438,310, 56,694,294,938 -> 56,692,197,786,
    # 58,897,982,260 -> 58,895,885,108, 445,456 -> 445,440, 432,528 -> 432,512, 449,344 -> 449,328,
    # 27,841 -> 27,840. Then 0.31's default utilization, 0.92 (config/cache.py:66 from 0.20.0;
    # kvplan had taken 0.9 before 0.34): requested 76,540,929,638 -> 78,241,839,185 (+1,700,909,547
    # in every bound): 58,385,438,310 -> 60,086,347,857, 56,692,197,786 -> 58,393,107,333,
    # 58,895,885,108 -> 60,596,794,655, 27,840 -> 28,651 blocks, 54 -> 55 users
    # vLLM 0.31 (V1, CUDA graphs subtracted, Model Runner V2 for all: its dummy pass keeps the
    # bf16 logits untouched, 2 B a logit, 6 B high), H100
    # 85,045,477,376 B >= 70 GiB and not an A100: 8,192 batched tokens, 1,024 sequences.
    # task h43graphs: the graph term by the capture sizes (kvplan.engines.vllm_capture): 1,024
    # sequences -> sizes up to 512: 51 PIECEWISE + 51 FULL = 102 graphs x 32 layers = 3,264
    # graph-layers x (235,929, 157,286, 429,916) B = 770,072,256 (low 513,381,504, high
    # 1,403,245,824), was 536,870,912 (214,748,364-1,181,116,006): KV 60,086,347,857 ->
    # 59,853,146,513 (28,540 blocks, 456,640 tokens, 28,540 / 512 = 55.74x), low 58,393,107,333
    # + 1,181,116,006 - 1,403,245,824 = 58,170,977,515 (27,738 blocks, 443,808 tokens), high
    # 60,596,794,655 + 214,748,364 - 513,381,504 = 60,298,161,515 (28,752 blocks, 460,032);
    # reserve 2,092,871,680 - 536,870,912 + 770,072,256 = 2,326,073,024. Below, the figures
    # before this task are kept in the arithmetic; the asserts hold the new ones.
    # task h44graphbase: a first capture + later graphs (vllm_capture.BASE_BYTES (358,612,992,
    # 170,917,888, 813,694,976), GRAPH_LAYER_BYTES (89,653, 89,653, 382,730)): 102 graphs in 2
    # modes -> 100 later x 32 layers = 3,200 graph-layers: 358,612,992 + 286,889,600 =
    # 645,502,592 (low 170,917,888 + 286,889,600 = 457,807,488, high 813,694,976 + 3,200 x
    # 382,730 = 2,038,430,976): KV 59,853,146,513 + 770,072,256 - 645,502,592 = 59,977,716,177
    # (28,599 blocks, 457,584 tokens, 28,599 / 512 = 55.86x), low 58,170,977,515 + 1,403,245,824
    # - 2,038,430,976 = 57,535,792,363 (27,435 blocks, 438,960 tokens), high 60,298,161,515 +
    # 513,381,504 - 457,807,488 = 60,353,735,531 (28,778 blocks, 460,448); reserve 2,326,073,024
    # - 770,072,256 + 645,502,592 = 2,201,503,360.
    r = vllm("llama-3-8b", "h100", 8192, "0.31.0")
    # requested floor(85,045,477,376 x 92 / 100) = floor(78,241,839,185.92) = 78,241,839,185;
    # weights 8,030,261,248 x 2 B + the rotary cache 2,097,152 = 16,062,619,648.
    # forward: 8,192 tok x (3 x 4,096 + max(3 x 14,336, (32 + 2 x 8 + 32) x 128)) = 55,296 el
    #   x 2 B = 905,969,664; sampler 1,024 x 128,256 x (2, 2, 6) B = 262,668,288 / 262,668,288 /
    #   788,004,864. best max(905,969,664, 262,668,288); low max(int(0.85 fwd) 770,074,214,
    #   262,668,288); high max(int(1.35 fwd) 1,223,059,046, 788,004,864) + 0.25 GiB
    #   = 1,491,494,502.
    # non-torch V1 TP 1 (70 MiB, 20 MiB, 0.5 GiB); graphs (0.5 GiB, GiB // 5, GIB * 11 // 10).
    # Model Runner V2's persistent state, booked from 0.28 (exact, in every bound): 1,024 x
    #   (128,256 + 2 x ceil(128,256 / 32) 4,008 + 4,481) x 4 B + 8,192 x 13 B = 576,630,784.
    # KV 78,241,839,185 - 16,062,619,648 - 905,969,664 - 73,400,320 - 576,630,784 - 536,870,912
    #   = 60,086,347,857 (55.96 GiB)
    # block: 16 tok x 8 heads x 256 x 2 B x 32 layers = 2,097,152 B; 60,086,347,857 // that =
    #   28,651 blocks (28,651 x 2,097,152 = 60,085,796,352), 458,416 tokens; a request 8,192 /
    #   16 = 512 blocks: 28,651 / 512 = 55.96x.
    # low KV: - high act 1,491,494,502 - 0.5 GiB - state - 1.1 GiB (1,181,116,006, task
    #   h36v030's high end) = 58,393,107,333 -> 27,844 blocks 445,504 tok; high KV: - 770,074,214
    #   - 20 MiB - state - 214,748,364 = 60,596,794,655 -> 28,894 blocks 462,304 tok.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=78_241_839_185,
        weights_bytes=16_062_619_648, activation_bytes=905_969_664,
        activation_bytes_low=770_074_214, activation_bytes_high=1_491_494_502,
        non_torch_bytes=73_400_320, cuda_graph_bytes=645_502_592,
        kv_cache_bytes=59_977_716_177, kv_cache_bytes_low=57_535_792_363,
        kv_cache_bytes_high=60_353_735_531, kv_cache_tokens=457_584,
        kv_cache_tokens_low=438_960, kv_cache_tokens_high=460_448, blocks=28_599,
        block_size_tokens=16, max_model_len=8192, max_concurrency=Fraction(28_599, 512),
        starts=True, reason=None, max_model_len_that_starts=8192)
    assert r.engine is Engine.vllm and r.engine_version == "0.31.0"
    # users: 28,651 // 512 = 55; they use 55 x 512 x 2,097,152 = 59,055,800,320 B of the pool;
    # overhead act + non-torch + state + graphs = 2,092,871,680; unallocated = the 8% not
    # requested
    s = r.size
    assert (s.users_per_replica, s.fits, s.kv_budget_bytes, s.reason) == (
        55, True, 59_977_716_177, None)
    assert s.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=16_062_619_648, kv_used_bytes=59_055_800_320,
        kv_free_bytes=59_977_716_177 - 59_055_800_320, reserve_bytes=2_201_503_360,
        unallocated_bytes=85_045_477_376 - 78_241_839_185)
    assert (s.usable_bytes, s.max_context_that_fits, s.suggestions) == (78_241_839_185, None, ())
    assert [(st.label, st.formula) for st in r.steps] == FORMULAS_V1_031
    assert steps(r) == [
        ("GPU memory", 85_045_477_376, "bytes", "given", ()),
        ("gpu_memory_utilization", Fraction(92, 100), "ratio", "given", ()),
        ("requested memory", 78_241_839_185, "bytes", "mul", ("GPU memory",
                                                             "gpu_memory_utilization")),
        ("weights", 16_062_619_648, "bytes", "given", ()),
        ("activation peak", 905_969_664, "bytes", "given", ()),
        ("non-torch memory", 73_400_320, "bytes", "given", ()),
        ("Model Runner V2 state", 576_630_784, "bytes", "given", ()),
        ("CUDA graph memory", 645_502_592, "bytes", "given", ()),
        ("KV cache memory", 59_977_716_177, "bytes", "sum",
         ("requested memory", "-weights", "-activation peak", "-non-torch memory",
          "-Model Runner V2 state", "-CUDA graph memory")),
        ("block size", 16, "tokens", "given", ()),
        ("KV bytes per token per layer", 4096, "bytes", "given", ()),
        ("page size per layer", 65_536, "bytes", "mul", ("block size",
                                                        "KV bytes per token per layer")),
        ("layers per block", 32, "layers", "given", ()),
        ("bytes per block", 2_097_152, "bytes", "mul", ("page size per layer",
                                                       "layers per block")),
        ("blocks (raw)", 28_599, "blocks", "div", ("KV cache memory", "bytes per block")),
        ("GPU blocks", 28_599, "blocks", "max", ("blocks (raw)", 0)),
        ("KV cache groups", 1, "groups", "given", ()),
        ("blocks per group", 28_599, "blocks", "div", ("GPU blocks", "KV cache groups")),
        # 0.21 on: int(28,651 / 512 x 8,192) = 458,416 (vLLM's float arithmetic, a given step)
        ("GPU KV cache size", 457_584, "tokens", "given", ()),
        ("blocks per request", 512, "blocks", "given", ()),
        ("maximum concurrency", Fraction(28_599, 512), "ratio", "ratio",
         ("GPU blocks", "blocks per request")),
        ("blocks per user", 512, "blocks", "given", ()),
        ("users per replica", 55, "users", "div", ("GPU blocks", "blocks per user")),
        ("GPUs per replica", 1, "GPUs", "given", ()),
        ("users per GPU", 55, "users", "ratio", ("users per replica", "GPUs per replica")),
    ]
    assert r.assumptions == (
        "vLLM 0.31.0 (V1 engine), gpu_memory_utilization 0.92 of total memory",
        "profiled with max_num_batched_tokens 8,192 and max_num_seqs 1,024",
        # 905,969,664 / 2^30 = 0.84; 770,074,214 -> 0.72; 1,491,494,502 -> 1.39
        "activation peak 0.84 GiB (range 0.72 GiB to 1.39 GiB)",
        "CUDA graphs: " + FORMULAS_V1_031[7][1],
        "fp16 cache in 16-token blocks; 1 KV cache group(s)",
        COMPILE_NOTE,  # task h48cold: V1 compiles; the figure assumes a warm compile cache
        # widths: activation 721,420,288 B (0.67 GiB), non-torch 0.48 GiB, graphs (task
        # h43graphs) 1,403,245,824 - 513,381,504 = 889,864,320 B (0.83 GiB); task h44graphbase
        # 2,038,430,976 - 457,807,488 = 1,580,623,488 B (1.47 GiB)
        "KV range dominated by the CUDA-graph estimate (1.47 GiB wide)",
    )
    assert s.assumptions == r.assumptions
    # 59,977,716,177 / 2^30 = 55.86 GiB; 28,599 / 512 = 55.86x (55.74 before task h44graphbase,
    # 55.96 before task h43graphs)
    assert r.log_lines == ("Available KV cache memory: 55.86 GiB",
                           "GPU KV cache size: 457,584 tokens",
                           "Maximum concurrency for 8,192 tokens per request: 55.86x")


def test_llama31_70b_tp4_on_h100_with_019_in_every_field():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 131,072 positions x 128 x 2 B = 33,554,432 B, and leaves the pool;
    # recomputed: 35,276,853,248 -> 35,310,407,680, 36,656,717,333 -> 36,623,162,901, 31,895,049,830
    # -> 31,861,495,398, 38,077,453,926 -> 38,043,899,494, 447,456 -> 447,056, 389,328 -> 388,928,
    # 464,800 -> 464,400, 27,966 -> 27,941
    # vLLM 0.19 (V1, graphs captured after sizing, V1 sampler 16 B a logit on every rank).
    r = vllm("llama-3.1-70b", "h100", 32768, "0.19.0", tp=4)
    # weights 70,553,706,496 x 2 B / 4 = 35,276,853,248.
    # forward per token on a rank: 3 x 8,192 + max(3 x 28,672 / 4 = 21,504,
    #   (16 q + 2 x 2 kv + 16 o heads) x 128 = 4,608) = 46,080; x 8,192 x 2 B = 754,974,720.
    # sampler 1,024 x 128,256 x (12, 16, 28) = 1,576,009,728 / 2,101,346,304 / 3,677,356,032:
    # best 2,101,346,304; low max(641,728,512, 1,576,009,728); high 3,677,356,032 + 0.25 GiB.
    # non-torch: TP on an SXM (NVLink) module: GIB x 208 // 100 = 2,233,382,993 (1.5 - 2.5 GiB),
    # plus NCCL's NVLS buffers above TP 2 on Hopper (vllm_tp_workspaces, from 0.11: the NVLS
    # buffers alone): 2 communicators x (16 ch x 2 x 131,072 x 8 x 4 = 134,217,728 + credits
    # 24 x 2 x 64 x 4 = 12,288 aligned to 2 MiB) = 272,629,760 (low 0; high + 2 x 64 x 2 x
    # 9,633,792 tree buffers = 2,738,880,512): 2,506,012,753 (1.5 GiB - 5,423,235,072).
    # KV 76,540,929,638 - 35,276,853,248 - 2,101,346,304 - 2,506,012,753 = 36,656,717,333
    # block: 16 x 2 heads x 256 x 2 B x 80 layers = 1,310,720; 27,966 blocks (447,056 tokens);
    # a 32,768-token request: 2,048 blocks: 27,966 / 2,048 = 13.64x; 13 users.
    # low: - 3,945,791,488 - 5,423,235,072 = 31,895,049,830 -> 24,333 blocks, 389,328 tokens;
    # high: - 1,576,009,728 - 1.5 GiB = 38,077,453,926 -> 29,050 blocks, 464,800 tokens.
    # the 131,072-token model maximum needs 8,192 blocks <= 27,966: it would start at it.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=76_540_929_638,
        weights_bytes=35_310_407_680, activation_bytes=2_101_346_304,
        activation_bytes_low=1_576_009_728, activation_bytes_high=3_945_791_488,
        non_torch_bytes=2_506_012_753, cuda_graph_bytes=0,
        kv_cache_bytes=36_623_162_901, kv_cache_bytes_low=31_861_495_398,
        kv_cache_bytes_high=38_043_899_494, kv_cache_tokens=447_056,
        kv_cache_tokens_low=388_928, kv_cache_tokens_high=464_400, blocks=27_941,
        block_size_tokens=16, max_model_len=32768, max_concurrency=Fraction(27_941, 2048),
        starts=True, reason=None, max_model_len_that_starts=131_072)
    s = r.size
    assert (s.users_per_replica, s.kv_budget_bytes) == (13, 36_623_162_901)
    # used 13 x 2,048 x 1,310,720 = 34,896,609,280; overhead 2,101,346,304 + 2,506,012,753
    assert s.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=35_310_407_680, kv_used_bytes=34_896_609_280,
        kv_free_bytes=36_623_162_901 - 34_896_609_280, reserve_bytes=4_607_359_057,
        unallocated_bytes=85_045_477_376 - 76_540_929_638)
    by_label = {st.label: st for st in r.steps}
    assert "CUDA graph memory" not in by_label
    assert by_label["KV cache memory"].args == ("requested memory", "-weights",
                                                "-activation peak", "-non-torch memory")
    assert by_label["KV cache memory"].formula == (
        "requested memory - weights - activation peak - non-torch memory")
    assert by_label["weights"].formula == ("70,553,706,496 params x 16 bits / 4 GPU(s)"
                                           + rotary_words("131,072 positions x 128 x 2 B"))
    assert by_label["activation peak"].formula == (
        "max(forward 8,192 tok x 46,080 el x 2 B, sampler 1,024 rows x vocab 128,256 x 16 B)")
    assert by_label["non-torch memory"].formula == (
        "growth after start-up with NVLink TP workspaces (NCCL, FlashInfer all-reduce, custom "
        "all-reduce; transport not stated: an NVLink module by the GPU label); + TP 4 on hopper "
        "NVSwitch: NVLS buffers once used (NCCL connects at run time)")
    assert by_label["KV bytes per token per layer"].formula == (
        "2 KV heads/rank x (128 + 128) x 2 B")
    assert by_label["blocks per request"].formula == "one request of max_model_len 32,768 tokens"
    assert (by_label["GPUs per replica"].value, by_label["GPUs per replica"].formula) == (
        4, "tp 4 x pp 1")
    assert by_label["users per GPU"].value == Fraction(13, 4)
    assert r.assumptions == (
        "vLLM 0.19.0 (V1 engine), gpu_memory_utilization 0.9 of total memory",
        "profiled with max_num_batched_tokens 8,192 and max_num_seqs 1,024",
        "activation peak 1.96 GiB (range 1.47 GiB to 3.67 GiB)",
        "CUDA graphs: captured after sizing (not subtracted)",
        "fp16 cache in 16-token blocks; 1 KV cache group(s)",
        COMPILE_NOTE,  # task h48cold: V1 compiles; the figure assumes a warm compile cache
        # activation 3,945,791,488 - 1,576,009,728 = 2.21 GiB; non-torch 5,423,235,072 - 1.5 GiB
        # = 3.55 GiB (the NVLS term's high end); graphs 0
        "KV range dominated by the non-torch memory (3.55 GiB wide)",
    )
    assert r.log_lines == ("Available KV cache memory: 34.11 GiB",
                           "GPU KV cache size: 447,056 tokens",
                           "Maximum concurrency for 32,768 tokens per request: 13.64x")
