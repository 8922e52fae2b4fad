"""vLLM's profile in full: every number of an EngineResult, its explain steps, notes and log lines,
for a few representative cases (dense / MoE + MLA / sliding hybrid, TP 1 / TP > 1, each version
series). Each expected number is worked by hand in the comments from vLLM's own accounting
(vllm/v1/worker/gpu_worker.py determine_available_memory, v1/core/kv_cache_utils.py, as
kvplan.engines.vllm's docstring quotes it), not read back from the code.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/vllm.py. This file
holds the V1 releases' representative cases; test_engines_vllm_older.py the V0 and early-V1
releases and the pools too small to start, test_engines_vllm_inputs.py measured terms and stated
settings (split by task h42hygiene, 974 lines in one module before).
"""

from __future__ import annotations

from fractions import Fraction

from engine_runs import GIB, numbers, rotary_words, steps, vllm

from kvplan.capacity.plan import Breakdown
from kvplan.engines import Engine

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
    ("CUDA graph memory",  # vllm_capture's sizes (task h43graphs), vllm_graphs.note for 0.31.0
     "102 graphs (PIECEWISE 51: 1, 2, 4 ... 512; FULL decode 51: 1, 2, 4 ... 512) x 32 layers "
     "x 0.225 MiB (capture sizes from max_num_seqs 1,024 and max_num_batched_tokens 8,192: "
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
        non_torch_bytes=73_400_320, cuda_graph_bytes=770_072_256,
        kv_cache_bytes=59_853_146_513, kv_cache_bytes_low=58_170_977_515,
        kv_cache_bytes_high=60_298_161_515, kv_cache_tokens=456_640,
        kv_cache_tokens_low=443_808, kv_cache_tokens_high=460_032, blocks=28_540,
        block_size_tokens=16, max_model_len=8192, max_concurrency=Fraction(28_540, 512),
        starts=True, reason=None, max_model_len_that_starts=8192)
    assert r.engine is Engine.vllm and r.engine_version == "0.31.0"
    # users: 28,651 // 512 = 55; they use 55 x 512 x 2,097,152 = 59,055,800,320 B of the pool;
    # overhead act + non-torch + state + graphs = 2,092,871,680; unallocated = the 8% not
    # requested
    s = r.size
    assert (s.users_per_replica, s.fits, s.kv_budget_bytes, s.reason) == (
        55, True, 59_853_146_513, None)
    assert s.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=16_062_619_648, kv_used_bytes=59_055_800_320,
        kv_free_bytes=59_853_146_513 - 59_055_800_320, reserve_bytes=2_326_073_024,
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
        ("CUDA graph memory", 770_072_256, "bytes", "given", ()),
        ("KV cache memory", 59_853_146_513, "bytes", "sum",
         ("requested memory", "-weights", "-activation peak", "-non-torch memory",
          "-Model Runner V2 state", "-CUDA graph memory")),
        ("block size", 16, "tokens", "given", ()),
        ("KV bytes per token per layer", 4096, "bytes", "given", ()),
        ("page size per layer", 65_536, "bytes", "mul", ("block size",
                                                        "KV bytes per token per layer")),
        ("layers per block", 32, "layers", "given", ()),
        ("bytes per block", 2_097_152, "bytes", "mul", ("page size per layer",
                                                       "layers per block")),
        ("blocks (raw)", 28_540, "blocks", "div", ("KV cache memory", "bytes per block")),
        ("GPU blocks", 28_540, "blocks", "max", ("blocks (raw)", 0)),
        ("KV cache groups", 1, "groups", "given", ()),
        ("blocks per group", 28_540, "blocks", "div", ("GPU blocks", "KV cache groups")),
        # 0.21 on: int(28,651 / 512 x 8,192) = 458,416 (vLLM's float arithmetic, a given step)
        ("GPU KV cache size", 456_640, "tokens", "given", ()),
        ("blocks per request", 512, "blocks", "given", ()),
        ("maximum concurrency", Fraction(28_540, 512), "ratio", "ratio",
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
        # widths: activation 721,420,288 B (0.67 GiB), non-torch 0.48 GiB, graphs (task
        # h43graphs) 1,403,245,824 - 513,381,504 = 889,864,320 B (0.83 GiB)
        "KV range dominated by the CUDA-graph estimate (0.83 GiB wide)",
    )
    assert s.assumptions == r.assumptions
    # 59,853,146,513 / 2^30 = 55.74 GiB; 28,540 / 512 = 55.74x (55.96 before task h43graphs)
    assert r.log_lines == ("Available KV cache memory: 55.74 GiB",
                           "GPU KV cache size: 456,640 tokens",
                           "Maximum concurrency for 8,192 tokens per request: 55.74x")


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
        # activation 3,945,791,488 - 1,576,009,728 = 2.21 GiB; non-torch 5,423,235,072 - 1.5 GiB
        # = 3.55 GiB (the NVLS term's high end); graphs 0
        "KV range dominated by the non-torch memory (3.55 GiB wide)",
    )
    assert r.log_lines == ("Available KV cache memory: 34.11 GiB",
                           "GPU KV cache size: 447,056 tokens",
                           "Maximum concurrency for 32,768 tokens per request: 13.64x")


def test_deepseek_v2_lite_mla_moe_tp2_with_023_in_every_field():
    # vLLM 0.23: DeepseekV2ForCausalLM is not in its DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES (0.24
    # lists it: task h30v1miss), so this MoE keeps the V1 16 B sampler on all 1,024 rows
    # (batch-sharded sampling comes with 0.29). MLA on Hopper: 64-token blocks.
    r = vllm("deepseek-v2-lite", "h100", 16384, "0.23.0", tp=2)
    # weights 15,706,484,224 x 2 B / 2 + kv_a_proj_with_mqa whole on each rank (0.7.3 on,
    # kvplan.engines.mla_replicated): 2,048 x 576 x 27 x 2 B = 63,700,992, half booked by the
    # split: + 31,850,496 = 15,738,334,720; + the 16-bit router whole on each rank (0.8.5 on, task
    # h38router): 26 MoE layers x 64 experts x 2,048 x 2 B = 6,815,744, half booked by the split:
    # + 3,407,872 = 15,741,742,592. forward per token: MoE 6 x (3 x 1,408 / 2 + 2,048) =
    # 24,960 (> the dense layer's 3 x 10,944 / 2 = 16,416; attention (8 x 192 + 2 x 8 x 192 +
    # 8 x 128) = 5,632); 3 x 2,048 + 24,960 = 31,104 el x 8,192 x 2 B = 509,607,936.
    # sampler 1,024 x 102,400 x (12, 16, 28) B: best 1,677,721,600, low 1,258,291,200,
    # high 2,936,012,800 + 0.25 GiB = 3,204,448,256.
    # + the rotary cos/sin cache (task h39rope, below) 20,971,520 = 15,762,714,112.
    # requested at 0.23's default utilization 0.92 (config/cache.py:66 from 0.20.0; 0.9 until
    # the lead read it, when KV was 56,330,240,021, 28,297 blocks, 110 users):
    #   floor(85,045,477,376 x 92 / 100) = 78,241,839,185.
    # KV 78,241,839,185 - 15,762,714,112 - 1,677,721,600 - 2,233,382,993 - 536,870,912
    #   = 58,031,149,568 (54.05 GiB); block 64 x (512 + 64) x 2 B x 27 layers = 1,990,656 (not
    #   split by TP) -> 29,151 blocks, 1,865,664 tokens; a 16,384 request 256 blocks: 113.87x,
    #   113 users (56.5 a GPU).
    # low - 3,204,448,256 - 2.5 GiB - 1.1 GiB (1,181,116,006) = 55,409,206,251 -> 27,834 blocks
    #   1,781,376 tokens
    # high - 1,258,291,200 - 1.5 GiB - GIB // 5 = 59,395,472,773 -> 29,837 blocks 1,909,568
    # the model maximum 163,840 tokens is 2,560 blocks: it starts at that length.
    # task h43graphs, the graph term by the capture sizes: 1,024 sequences -> 102 graphs x 27
    # layers = 2,754 graph-layers x (235,929, 157,286, 429,916) B = 649,748,466 (low
    # 433,165,644, high 1,183,988,664), was 536,870,912 (GiB // 5 - 1.1 GiB): KV 58,031,149,568
    # + 536,870,912 - 649,748,466 = 57,918,272,014 -> 29,095 blocks, 1,862,080 tokens, 113.65x,
    # 113 users; low 55,409,206,251 + 1,181,116,006 - 1,183,988,664 = 55,406,333,593 -> 27,833
    # blocks, 1,781,312 tokens; high 59,395,472,773 + 214,748,364 - 433,165,644 =
    # 59,177,055,493 -> 29,727 blocks, 1,902,528 tokens.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=78_241_839_185,
        weights_bytes=15_762_714_112, activation_bytes=1_677_721_600,
        activation_bytes_low=1_258_291_200, activation_bytes_high=3_204_448_256,
        non_torch_bytes=2_233_382_993, cuda_graph_bytes=649_748_466,
        kv_cache_bytes=57_918_272_014, kv_cache_bytes_low=55_406_333_593,
        kv_cache_bytes_high=59_177_055_493, kv_cache_tokens=1_862_080,
        kv_cache_tokens_low=1_781_312, kv_cache_tokens_high=1_902_528, blocks=29_095,
        block_size_tokens=64, max_model_len=16384, max_concurrency=Fraction(29_095, 256),
        starts=True, reason=None, max_model_len_that_starts=163_840)
    assert r.size.users_per_replica == 113
    assert r.size.request.block_size_tokens == 64
    by_label = {st.label: st for st in r.steps}
    assert by_label["KV bytes per token per layer"].formula == (
        "MLA latent (512 + 64) x 2 B, not split by TP")
    assert (by_label["page size per layer"].value, by_label["bytes per block"].value) == (
        73_728, 1_990_656)
    assert by_label["users per GPU"].value == Fraction(113, 2)
    assert r.assumptions[2:5] == (
        "activation peak 1.56 GiB (range 1.17 GiB to 2.98 GiB)",
        "CUDA graphs: 102 graphs (PIECEWISE 51: 1, 2, 4 ... 512; FULL decode 51: 1, 2, 4 ... 512)"
        " x 27 layers x 0.225 MiB (capture sizes from max_num_seqs 1,024 and "
        "max_num_batched_tokens 8,192: kvplan.engines.vllm_capture); estimate subtracted before "
        "sizing (vLLM 0.21-0.24 gpu_worker.py)",
        "fp16 cache in 64-token blocks; 1 KV cache group(s)",
    )
    # task h43graphs: 57,918,272,014 / 2^30 = 53.94 GiB; 29,095 / 256 = 113.65x
    assert r.log_lines == ("Available KV cache memory: 53.94 GiB",
                           "GPU KV cache size: 1,862,080 tokens",
                           "Maximum concurrency for 16,384 tokens per request: 113.65x")
    # 0.24-0.28 run DeepseekV2ForCausalLM on Model Runner V2 although it is MoE (it is in
    # DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES, vLLM 0.24.0/0.25.0/0.28.0 config/vllm.py): the lean
    # sampler, 1,024 x 102,400 x 6 B = 629,145,600 B in 0.24-0.25 (the fp32 copy), above the
    # forward (from 0.24 with the modular MoE workspaces: 3 x 2,048 + 6 x (2,048 + 2,048) =
    # 30,720 el x 8,192 x 2 B = 503,316,480 B); and Model Runner V2's profile_cudagraph_memory
    # returns 0 in 0.24-0.28 (no graph estimate);
    # KV 76,540,929,638 - 15,741,742,592 - 629,145,600 - 2,233,382,993
    #   = 57,936,658,453 -> 29,104 blocks of 1,990,656 B, 1,862,656 tokens, 113 users (0.24,
    # 0.25). 0.28: the dummy pass leaves the bf16 logits untouched (task h36samp), 1,024 x
    # 102,400 x 2 B = 209,715,200 B, under the 503,316,480 B forward, which is the peak; and
    # (from 0.27, task h30v1miss) Model Runner V2's persistent state is booked, the full
    # vocabulary on each TP rank:
    # 1,024 x (102,400 + 2 x 3,200 + 4,481) x 4 B + 8,192 x 13 B = 464,105,472 ->
    #   76,540,929,638 - 15,741,742,592 - 503,316,480 - 2,233,382,993 - 464,105,472
    #   = 57,598,382,101 -> 28,934 blocks, 1,851,776 tokens, 28,934 // 256 = 113 users.
    # Task h39rope adds the rotary cos/sin cache to the weights, DeepSeek YaRN 4,096 x 40 =
    # 163,840 positions x qk_rope_head_dim 64 x 2 B = 20,971,520 B: 15,762,714,112; KV
    # 57,936,658,453 - 20,971,520 = 57,915,686,933 -> 29,093 blocks, 1,861,952 tokens, 113 users
    # (0.24, 0.25); 57,598,382,101 - 20,971,520 = 57,577,410,581 -> 28,923 blocks, 1,851,072
    # tokens, 28,923 // 256 = 112 users (0.28).
    # At these releases' default utilization, 0.92 (config/cache.py:66 from 0.20.0), each pool
    # gains 78,241,839,185 - 76,540,929,638 = 1,700,909,547 B: 57,915,686,933 -> 59,616,596,480
    # -> 29,948 blocks, 1,916,672 tokens, 116 users (0.24, 0.25); 57,577,410,581 ->
    # 59,278,320,128 -> 29,778 blocks, 1,905,792 tokens, 29,778 // 256 = 116 users (0.28)
    for version, expected in (("0.24.0", (629_145_600, 59_616_596_480, 1_916_672, 116)),
                              ("0.25.0", (629_145_600, 59_616_596_480, 1_916_672, 116)),
                              ("0.28.0", (503_316_480, 59_278_320_128, 1_905_792, 116))):
        r = vllm("deepseek-v2-lite", "h100", 16384, version, tp=2)
        assert (r.activation_bytes, r.kv_cache_bytes, r.kv_cache_tokens,
                r.size.users_per_replica) == expected


def test_gemma3_1b_sliding_hybrid_on_l40s_with_0102_in_every_field():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # Gemma 3's two caches (global and local rope), 2 x 32,768 positions x 256 x 2 B =
    # 33,554,432 B, and leaves the pool;
    # recomputed: 1,999,771,904 -> 2,033,326,336, 39,876,323,072 -> 39,842,768,640, 38,339,110,656
    # -> 38,305,556,224, 40,197,187,328 -> 40,163,632,896, 1,390,768 -> 1,389,600, 1,337,152 ->
    # 1,335,984, 1,401,952 -> 1,400,784, 608,464 -> 607,952, 86,923 -> 86,850
    # Gemma-3-1B: 26 layers, every 6th full: 4 full, 22 sliding (window 512). vLLM 0.10 groups
    # them by the 1.5x rule: 22 >= 1.5 x 4, so groups of 4 layers: 1 full + ceil(22 / 4) = 6
    # sliding groups, 7 x 4 - 26 = 2 padding layers. L40S 47,803,596,800 B < 70 GiB: 2,048
    # batched tokens, 256 sequences.
    # the FlashInfer sampler (as vLLM's container installs it): 0.10's native sort is
    # tests/engines/test_vllm_sort_sampler.py's
    r = vllm("gemma-3-1b", "l40s", 32768, "0.10.2", topk_topp_sampler="flashinfer")
    # requested floor(47,803,596,800 x 0.9) = 43,023,237,120; weights 999,885,952 x 2 B.
    # forward 2,048 x (3 x 1,152 + 3 x 6,912) x 2 B = 99,090,432; sampler 256 x 262,144 x 16 B =
    # 1,073,741,824 (best); low 256 x 262,144 x 12 = 805,306,368; high x 28 + 0.25 GiB = 2 GiB.
    # KV 43,023,237,120 - 1,999,771,904 - 1,073,741,824 - 73,400,320 = 39,876,323,072 (no graph
    # term before 0.21); block 16 x 1 head x 512 x 2 B x 4 layers = 65,536: 608,464 blocks;
    # per group 608,464 // 7 = 86,923 -> 1,389,600 tokens.
    # a 32,768 request: full 2,048 blocks + 6 x (ceil(min(511 + 2,048, 32,768) / 16) + 1 = 161)
    # = 3,014 blocks; 608,464 / 3,014 = 201.71x; 201 users.
    # low 43,023,237,120 - 1,999,771,904 - 2 GiB - 0.5 GiB = 38,339,110,656 -> 585,008 blocks,
    #   83,572 a group, 1,337,152 tokens; high - 805,306,368 - 20 MiB = 40,197,187,328 ->
    #   613,360 blocks, 87,622 a group, 1,401,952 tokens.
    assert numbers(r) == dict(
        memory_bytes=47_803_596_800, requested_bytes=43_023_237_120,
        weights_bytes=2_033_326_336, activation_bytes=1_073_741_824,
        activation_bytes_low=805_306_368, activation_bytes_high=2 * GIB,
        non_torch_bytes=73_400_320, cuda_graph_bytes=0,
        kv_cache_bytes=39_842_768_640, kv_cache_bytes_low=38_305_556_224,
        kv_cache_bytes_high=40_163_632_896, kv_cache_tokens=1_389_600,
        kv_cache_tokens_low=1_335_984, kv_cache_tokens_high=1_400_784, blocks=607_952,
        block_size_tokens=16, max_model_len=32768, max_concurrency=Fraction(607_952, 3014),
        starts=True, reason=None, max_model_len_that_starts=32768)
    assert r.size.users_per_replica == 201
    by_label = {st.label: st for st in r.steps}
    assert (by_label["layers per block"].value, by_label["layers per block"].formula) == (
        4, "layers sharing one block id (2 padding)")
    assert (by_label["KV cache groups"].value, by_label["KV cache groups"].formula) == (
        7, "1 full + 6 sliding-window")
    assert (by_label["blocks per group"].value, by_label["GPU KV cache size"].value) == (
        86_850, 1_389_600)
    assert (by_label["blocks per request"].value, by_label["blocks per request"].formula) == (
        3014, "one request of max_model_len 32,768 tokens; sliding layers hold "
        "min(window - 1 + 2,048, L) tokens + 1 block")
    assert by_label["KV bytes per token per layer"].formula == (
        "1 KV heads/rank x (256 + 256) x 2 B")
    assert r.assumptions == (
        "vLLM 0.10.2 (V1 engine), gpu_memory_utilization 0.9 of total memory",
        "profiled with max_num_batched_tokens 2,048 and max_num_seqs 256",
        "activation peak 1.00 GiB (range 0.75 GiB to 2.00 GiB)",
        "CUDA graphs: captured after sizing (not subtracted)",
        "fp16 cache in 16-token blocks; 7 KV cache group(s)",
        "KV range dominated by the activation peak (1.25 GiB wide)",
    )
    assert r.log_lines == ("Available KV cache memory: 37.11 GiB",
                           "GPU KV cache size: 1,389,600 tokens",
                           "Maximum concurrency for 32,768 tokens per request: 201.71x")
