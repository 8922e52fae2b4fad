"""vLLM's profile in full: every number of an EngineResult, its explain steps, notes and log lines,
for a few representative cases (dense / MoE + MLA / sliding hybrid, TP 1 / TP > 1, each version
series). Each expected number is worked by hand in the comments from vLLM's own accounting
(vllm/v1/worker/gpu_worker.py determine_available_memory, v1/core/kv_cache_utils.py, as
kvplan.engines.vllm's docstring quotes it), not read back from the code.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/vllm.py.
"""

from __future__ import annotations

from fractions import Fraction

from engine_runs import GIB, numbers, rotary_words, run

from kvplan.capacity.plan import Breakdown
from kvplan.engines import Engine, EngineResult
from kvplan.specs import load_model
from kvplan.units import DType


def steps(r: EngineResult) -> list[tuple[object, ...]]:
    """(label, value, unit, op, args) of every explain line, in order."""
    return [(s.label, s.value, s.unit, s.op, s.args) for s in r.steps]


def vllm(model: str, gpu: str, ctx: int, version: str | None = None,
         **kw: object) -> EngineResult:
    return run(Engine.vllm, model, gpu, ctx, version, **kw)


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
    ("CUDA graph memory",  # vllm_graphs.note for 0.31.0 on Model Runner V2
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
        non_torch_bytes=73_400_320, cuda_graph_bytes=536_870_912,
        kv_cache_bytes=60_086_347_857, kv_cache_bytes_low=58_393_107_333,
        kv_cache_bytes_high=60_596_794_655, kv_cache_tokens=458_416,
        kv_cache_tokens_low=445_504, kv_cache_tokens_high=462_304, blocks=28_651,
        block_size_tokens=16, max_model_len=8192, max_concurrency=Fraction(28_651, 512),
        starts=True, reason=None, max_model_len_that_starts=8192)
    assert r.engine is Engine.vllm and r.engine_version == "0.31.0"
    # users: 28,651 // 512 = 55; they use 55 x 512 x 2,097,152 = 59,055,800,320 B of the pool;
    # overhead act + non-torch + state + graphs = 2,092,871,680; unallocated = the 8% not
    # requested
    s = r.size
    assert (s.users_per_replica, s.fits, s.kv_budget_bytes, s.reason) == (
        55, True, 60_086_347_857, None)
    assert s.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=16_062_619_648, kv_used_bytes=59_055_800_320,
        kv_free_bytes=60_086_347_857 - 59_055_800_320, reserve_bytes=2_092_871_680,
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
        ("CUDA graph memory", 536_870_912, "bytes", "given", ()),
        ("KV cache memory", 60_086_347_857, "bytes", "sum",
         ("requested memory", "-weights", "-activation peak", "-non-torch memory",
          "-Model Runner V2 state", "-CUDA graph memory")),
        ("block size", 16, "tokens", "given", ()),
        ("KV bytes per token per layer", 4096, "bytes", "given", ()),
        ("page size per layer", 65_536, "bytes", "mul", ("block size",
                                                        "KV bytes per token per layer")),
        ("layers per block", 32, "layers", "given", ()),
        ("bytes per block", 2_097_152, "bytes", "mul", ("page size per layer",
                                                       "layers per block")),
        ("blocks (raw)", 28_651, "blocks", "div", ("KV cache memory", "bytes per block")),
        ("GPU blocks", 28_651, "blocks", "max", ("blocks (raw)", 0)),
        ("KV cache groups", 1, "groups", "given", ()),
        ("blocks per group", 28_651, "blocks", "div", ("GPU blocks", "KV cache groups")),
        # 0.21 on: int(28,651 / 512 x 8,192) = 458,416 (vLLM's float arithmetic, a given step)
        ("GPU KV cache size", 458_416, "tokens", "given", ()),
        ("blocks per request", 512, "blocks", "given", ()),
        ("maximum concurrency", Fraction(28_651, 512), "ratio", "ratio",
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
        # widths: activation 721,420,288 B (0.67 GiB), non-torch 0.48 GiB, graphs 1.1 GiB
        # (GIB * 11 // 10) - GiB // 5 = 966,367,642 B (0.90 GiB)
        "KV range dominated by the CUDA-graph estimate (0.90 GiB wide)",
    )
    assert s.assumptions == r.assumptions
    # 60,086,347,857 / 2^30 = 55.96 GiB; 28,651 / 512 = 55.96x
    assert r.log_lines == ("Available KV cache memory: 55.96 GiB",
                           "GPU KV cache size: 458,416 tokens",
                           "Maximum concurrency for 8,192 tokens per request: 55.96x")


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
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=78_241_839_185,
        weights_bytes=15_762_714_112, activation_bytes=1_677_721_600,
        activation_bytes_low=1_258_291_200, activation_bytes_high=3_204_448_256,
        non_torch_bytes=2_233_382_993, cuda_graph_bytes=536_870_912,
        kv_cache_bytes=58_031_149_568, kv_cache_bytes_low=55_409_206_251,
        kv_cache_bytes_high=59_395_472_773, kv_cache_tokens=1_865_664,
        kv_cache_tokens_low=1_781_376, kv_cache_tokens_high=1_909_568, blocks=29_151,
        block_size_tokens=64, max_model_len=16384, max_concurrency=Fraction(29_151, 256),
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
        "CUDA graphs: estimate subtracted before sizing (vLLM 0.21-0.24 gpu_worker.py)",
        "fp16 cache in 64-token blocks; 1 KV cache group(s)",
    )
    assert r.log_lines == ("Available KV cache memory: 54.05 GiB",
                           "GPU KV cache size: 1,865,664 tokens",
                           "Maximum concurrency for 16,384 tokens per request: 113.87x")
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


def test_a_v0_int4_checkpoint_on_064_in_every_field():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 8,192 positions x 128 x 2 B = 2,097,152 B, and leaves the pool; recomputed: 5,727,460,432 ->
    # 5,729,557,584, 922,565,261 -> 922,768,685, 30,105,584,316 -> 30,103,283,740, 26,861,297,521 ->
    # 26,858,885,796, 31,606,439,241 -> 31,604,342,089, 229,680 -> 229,664, 204,928 -> 204,912,
    # 241,136 -> 241,120, 14,355 -> 14,354
    # vLLM 0.6.4.post1 (V0): max(max_model_len 4,096, 2,048) batched tokens, 256 sequences, the
    # 40 B sampler on every sequence; non-torch includes the repack cache of quantized weights.
    r = vllm("llama-3-8b", "a100-40gb", 4096, "0.6.4.post1", weight_dtype=DType.int4)
    # weights: embeddings + head 2 x 128,256 x 4,096 = 1,050,673,152 params in 2 B; the other
    # 6,979,588,096 at 4 bits + (16 + 4) bits per 128: 27,918,352,384 + 1,090,560,640 bits
    # = 3,626,114,128 B; total 2,101,346,304 + 3,626,114,128 = 5,727,460,432.
    # requested floor(42,298,834,944 x 0.9) = 38,068,951,449.
    # forward 4,096 x 55,296 x 2 = 452,984,832; sampler 256 x 128,256 x (16, 40, 48) =
    # 525,336,576 / 1,313,341,440 / 1,576,009,728; high + 0.25 GiB + 2 GiB (quantized)
    # = 3,991,928,832.
    # non-torch V0 (350, 200, 600 MiB) + the weights x (0.097, 0, 0.15) repack cache:
    # 367,001,600 + 555,563,661 = 922,565,261 (high 629,145,600 + 859,119,064 = 1,488,264,664).
    # KV 38,068,951,449 - 5,727,460,432 - 1,313,341,440 - 922,565,261 = 30,105,584,316 ->
    # // 2,097,152 = 14,355 blocks, 229,680 tokens; V0's concurrency = tokens / 4,096 = 56.07x.
    # low 38,068,951,449 - 5,727,460,432 - 3,991,928,832 - 1,488,264,664 = 26,861,297,521 ->
    # 12,808 blocks 204,928 tokens; high - 525,336,576 - 200 MiB = 31,606,439,241 -> 15,071
    # blocks 241,136 tokens.
    assert numbers(r) == dict(
        memory_bytes=42_298_834_944, requested_bytes=38_068_951_449,
        weights_bytes=5_729_557_584, activation_bytes=1_313_341_440,
        activation_bytes_low=525_336_576, activation_bytes_high=3_991_928_832,
        non_torch_bytes=922_768_685, cuda_graph_bytes=0,
        kv_cache_bytes=30_103_283_740, kv_cache_bytes_low=26_858_885_796,
        kv_cache_bytes_high=31_604_342_089, kv_cache_tokens=229_664,
        kv_cache_tokens_low=204_912, kv_cache_tokens_high=241_120, blocks=14_354,
        block_size_tokens=16, max_model_len=4096, max_concurrency=Fraction(229_664, 4096),
        starts=True, reason=None, max_model_len_that_starts=8192)
    assert r.engine_version == "0.6.4.post1 (V0)"
    assert r.size.users_per_replica == 14_354 // 256
    by_label = {st.label: st for st in r.steps}
    assert by_label["non-torch memory"].formula == (
        "CUDA context + NCCL + quantized-weight repack cache (vLLM 0.6.4)")
    assert by_label["weights"].formula == ("8,030,261,248 params x 4 bits / 1 GPU(s)"
                                           + rotary_words("8,192 positions x 128 x 2 B"))
    assert (by_label["maximum concurrency"].args, by_label["maximum concurrency"].formula) == (
        ("GPU KV cache size", 4096), "GPU KV cache size / max_model_len (V0 and V1 before 0.9)")
    assert by_label["blocks per request"].formula == "one request of max_model_len 4,096 tokens"
    assert r.assumptions == (
        "vLLM 0.6.4.post1 (V0 engine), gpu_memory_utilization 0.9 of total memory",
        "profiled with max_num_batched_tokens 4,096 and max_num_seqs 256",
        "activation peak 1.22 GiB (range 0.49 GiB to 3.72 GiB)",
        "CUDA graphs: captured after sizing (not subtracted)",
        "fp16 cache in 16-token blocks; 1 KV cache group(s)",
        "KV range dominated by the activation peak (3.23 GiB wide)",
    )
    assert r.log_lines == ("# GPU blocks: 14354",
                           "Maximum concurrency for 4096 tokens per request: 56.07x")


def test_gemma2_9b_on_a100_with_085_in_every_field():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 8,192 positions x 256 x 2 B = 4,194,304 B, and leaves the pool; recomputed: 18,483,411,968 ->
    # 18,487,606,272, 47,778,176,409 -> 47,773,982,105, 46,723,308,953 -> 46,719,114,649,
    # 54,751,206,809 -> 54,747,012,505, 277,728 -> 277,696, 271,584 -> 271,568, 318,256 -> 318,224,
    # 17,358 -> 17,356
    # vLLM 0.8.5: V1, but "GPU KV cache size" is blocks x block (not // groups) and the
    # concurrency tokens / max_model_len (both from 0.9), and no 1.5x rule (0.10): groups of
    # min(21 full, 21 sliding) = 21 layers. An A100 80GB (85,100,068,864 B) is >= 70 GiB, and
    # 0.8.5 has no A100 exception (engine/arg_utils.py :1596, "device_memory >= 70 * GiB_bytes";
    # 0.9.0 adds 'and "a100" not in device_name'; task h36v083): 8,192 batched tokens and 1,024
    # sequences. Published in fp32, served in bf16.
    r = vllm("gemma-2-9b", "a100-80gb", 8192, "0.8.5")
    # requested floor(85,100,068,864 x 0.9) = 76,590,061,977; weights 9,241,705,984 x 2 B.
    # The sampler sorts natively (0.8-0.16 without FlashInfer, task h36v083): 1,024 rows x
    # 256,000 x 38 B = 9,961,472,000 > forward 8,192 x 53,760 x 2 = 880,803,840;
    # low 1,024 x 256,000 x 12 = 3,145,728,000; high x 40 = 10,485,760,000 + 0.25 GiB.
    # Non-torch before 0.9.1 is the whole device's (the CUDA context counts: 350 MiB, 200-600).
    # KV 76,590,061,977 - 18,483,411,968 - 9,961,472,000 - 367,001,600 = 47,778,176,409;
    # block 16 x 8 heads x 512 x 2 B x 21 = 2,752,512: 17,358 blocks, x 16 = 277,728 tokens;
    # 277,728 / 8,192 = 33.90x; a request: 512 full + ceil(min(4,095 + 8,192, 8,192) / 16) + 1
    # = 513 sliding = 1,025 blocks: 17,358 // 1,025 = 16 users.
    # low - 10,754,195,456 - 600 MiB = 46,723,308,953 -> 16,974 blocks 271,584 tokens;
    # high - 3,145,728,000 - 200 MiB = 54,751,206,809 -> 19,891 blocks 318,256 tokens.
    assert numbers(r) == dict(
        memory_bytes=85_100_068_864, requested_bytes=76_590_061_977,
        weights_bytes=18_487_606_272, activation_bytes=9_961_472_000,
        activation_bytes_low=3_145_728_000, activation_bytes_high=10_754_195_456,
        non_torch_bytes=367_001_600, cuda_graph_bytes=0,
        kv_cache_bytes=47_773_982_105, kv_cache_bytes_low=46_719_114_649,
        kv_cache_bytes_high=54_747_012_505, kv_cache_tokens=277_696,
        kv_cache_tokens_low=271_568, kv_cache_tokens_high=318_224, blocks=17_356,
        block_size_tokens=16, max_model_len=8192, max_concurrency=Fraction(277_696, 8192),
        starts=True, reason=None, max_model_len_that_starts=8192)
    assert r.size.users_per_replica == 16
    by_label = {st.label: st for st in r.steps}
    assert (by_label["KV cache groups"].value, by_label["KV cache groups"].formula) == (
        1, "1 full + 1 sliding-window")
    assert (by_label["layers per block"].value, by_label["blocks per request"].value) == (
        21, 1025)
    assert r.assumptions[1] == "profiled with max_num_batched_tokens 8,192 and max_num_seqs 1,024"
    assert r.assumptions[4:6] == (
        "fp16 cache in 16-token blocks; 2 KV cache group(s)",
        "KV range dominated by the activation peak (7.09 GiB wide)",
    )
    assert r.assumptions[6].startswith("topk_topp_sampler unstated: native, as pip installs a "
                                       "0.8-0.11 release")
    assert r.assumptions[7] == (
        "gemma-2-9b is published in float32; vllm serves it in 16 bits when no dtype is given "
        "(--dtype auto)")
    assert r.log_lines[2] == "Maximum concurrency for 8,192 tokens per request: 33.90x"


def test_a_70b_on_one_h100_leaves_no_kv_memory_in_every_field():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 131,072 positions x 128 x 2 B = 33,554,432 B, and leaves the pool;
    # recomputed: 141,107,412,992 -> 141,140,967,424, -67,592,063,386 -> -67,625,617,818,
    # -69,575,654,604 -> -69,609,209,036, -66,918,982,450 -> -66,952,536,882, -12,893 -> -12,899
    # (pinned to 0.33.0 when task h41v034 made 0.34.0, whose budget is capped by the device
    # headroom, the default: tests/engines/test_vllm_034.py); then 0.33's default utilization,
    # 0.92 (config/cache.py:215 in 0.33.0), for the 0.9 kvplan had taken: requested
    # 76,540,929,638 -> 78,241,839,185, every bound +1,700,909,547: -67,625,617,818 ->
    # -65,924,708,271, -69,609,209,036 -> -67,908,299,489, -66,952,536,882 -> -65,251,627,335,
    # -12,899 -> -12,575 blocks, -62.98 -> -61.40 GiB
    r = vllm("llama-3.1-70b", "h100", 8192, "0.33.0")
    # requested floor(85,045,477,376 x 92 / 100) = 78,241,839,185.
    # weights 70,553,706,496 x 2 B = 141,107,412,992 (+ the rotary cache 33,554,432 =
    # 141,140,967,424) > requested 78,241,839,185.
    # forward 8,192 x (3 x 8,192 + 3 x 28,672 = 110,592) x 2 B = 1,811,939,328 < 0.33's warm-up
    # sampler 1,024 x 128,256 x 14 = 1,838,678,016 (the best); low: the forward's
    # int(0.85 x) = 1,540,148,428; high: int(1.35 x) = 2,446,118,092 + 0.25 GiB = 2,714,553,548
    # (above the sampler's 1,024 x 128,256 x 18 = 2,364,014,592).
    # Model Runner V2's persistent state (booked from 0.28, exact): 1,024 x (128,256 + 2 x 4,008
    #   + 4,481) x 4 B + 8,192 x 13 B = 576,630,784.
    # KV 78,241,839,185 - 141,140,967,424 - 1,838,678,016 - 73,400,320 - 576,630,784
    #   - 536,870,912 = -65,924,708,271 (-61.40 GiB): no blocks (floor(KV / 5,242,880) = -12,575,
    #   then 0).
    # low: - 2,714,553,548 - 0.5 GiB - state - 1.1 GiB (1,181,116,006) = -67,908,299,489; high:
    #   - 1,540,148,428
    #   - 20 MiB - state - GIB // 5 = -65,251,627,335.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=78_241_839_185,
        weights_bytes=141_140_967_424, activation_bytes=1_838_678_016,
        activation_bytes_low=1_540_148_428, activation_bytes_high=2_714_553_548,
        non_torch_bytes=73_400_320, cuda_graph_bytes=536_870_912,
        kv_cache_bytes=-65_924_708_271, kv_cache_bytes_low=-67_908_299_489,
        kv_cache_bytes_high=-65_251_627_335, kv_cache_tokens=0, kv_cache_tokens_low=0,
        kv_cache_tokens_high=0, blocks=0, block_size_tokens=16, max_model_len=8192,
        max_concurrency=Fraction(0), starts=False,
        reason="vLLM would not start: no memory for the KV cache (-61.40 GiB after weights "
               "131.45 GiB, activations 1.71 GiB and other overheads); raise "
               "gpu_memory_utilization, add GPUs or lower max_num_batched_tokens",
        max_model_len_that_starts=0)
    s = r.size
    assert (s.users_per_replica, s.fits, s.kv_budget_bytes, s.max_context_that_fits) == (
        0, False, 0, 0)
    assert s.reason == r.reason
    # no pool, and the weights alone exceed memory: no overhead fits, the rest is negative
    assert s.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=141_140_967_424, kv_used_bytes=0,
        kv_free_bytes=0, reserve_bytes=0, unallocated_bytes=85_045_477_376 - 141_140_967_424)
    by_label = {st.label: st for st in r.steps}
    assert by_label["blocks (raw)"].value == -12_575
    assert (by_label["users per replica"].value, by_label["users per replica"].op,
            by_label["users per replica"].formula) == (0, "given", "the engine does not start")
    assert r.log_lines == ("Available KV cache memory: -61.40 GiB",
                           "GPU KV cache size: 0 tokens",
                           "Maximum concurrency for 8,192 tokens per request: 0.00x")


def test_v1_refuses_a_max_model_len_its_pool_cannot_hold():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 131,072 positions x 128 x 2 B = 33,554,432 B, and leaves the pool;
    # recomputed: 70,553,706,496 -> 70,587,260,928, 1,533,042,197 -> 1,499,487,765, -218,163,609 ->
    # -251,718,041, 2,644,029,441 -> 2,610,475,009, 9,344 -> 9,152, 16,128 -> 15,920; then 0.31's
    # default utilization, 0.92 (config/cache.py:66 from 0.20.0), for the 0.9 kvplan had taken:
    # every bound +1,700,909,547 (1,499,487,765 -> 3,200,397,312, 572 -> 1,220 blocks): still
    # far below one 131,072-token request
    r = vllm("llama-3.1-70b", "h100", 131072, "0.31.0", tp=2)
    # TP 2 on 0.31: the sampler is sharded, ceil(1,024 / 2) = 512 rows x 128,256 x 2 B (the
    # untouched bf16 logits) = 131,334,144 < forward 8,192 x (3 x 8,192 + 3 x 14,336) x 2 B = 1,107,296,256.
    # Model Runner V2's persistent state (0.28 on), the full vocabulary on each TP rank (not
    #   sharded): 1,024 x (128,256 + 2 x 4,008 + 4,481) x 4 B + 8,192 x 13 B = 576,630,784.
    # requested floor(85,045,477,376 x 92 / 100) = 78,241,839,185; weights 70,553,706,496 / 2
    #   x 2 B + the rotary cache 33,554,432 = 70,587,260,928.
    # KV 78,241,839,185 - 70,587,260,928 - 1,107,296,256 - 2,233,382,993 - 576,630,784
    #   - 536,870,912 = 3,200,397,312 (2.98 GiB); block 16 x 4 heads x 256 x 2 B x 80 =
    #   2,621,440: 1,220 blocks, 19,520 tokens; one 131,072 request is 8,192 blocks =
    #   21,474,836,480 B (20.00 GiB). The longest that starts: 1,220 blocks x 16 = 19,520 tokens.
    # low - 1,763,285,401 - 2.5 GiB - state - 1.1 GiB (1,181,116,006) = 1,449,191,506 -> 552
    #   blocks, 8,832 tokens;
    # high - 941,201,817 - 1.5 GiB - state - GIB // 5 = 4,311,384,556 -> 1,644 blocks, 26,304.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=78_241_839_185,
        weights_bytes=70_587_260_928, activation_bytes=1_107_296_256,
        activation_bytes_low=941_201_817, activation_bytes_high=1_763_285_401,
        non_torch_bytes=2_233_382_993, cuda_graph_bytes=536_870_912,
        kv_cache_bytes=3_200_397_312, kv_cache_bytes_low=1_449_191_506,
        kv_cache_bytes_high=4_311_384_556, kv_cache_tokens=19_520, kv_cache_tokens_low=8_832,
        kv_cache_tokens_high=26_304, blocks=1_220, block_size_tokens=16, max_model_len=131_072,
        max_concurrency=Fraction(1_220, 8192), starts=False,
        reason="vLLM would not start: one request of max_model_len 131,072 needs 20.00 GiB of "
               "KV cache but 2.98 GiB is available; the estimated maximum model length is "
               "19,520",
        max_model_len_that_starts=19_520)
    s = r.size
    assert (s.users_per_replica, s.fits, s.kv_budget_bytes, s.max_context_that_fits) == (
        0, False, 3_200_397_312, 19_520)
    # the pool is allocated but holds nobody; overhead 1,107,296,256 + 2,233,382,993
    #   + 576,630,784 + 0.5 GiB
    assert s.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=70_587_260_928, kv_used_bytes=0,
        kv_free_bytes=3_200_397_312, reserve_bytes=4_454_180_945,
        unallocated_bytes=85_045_477_376 - 78_241_839_185)
    # widths: activation 822,083,584 (0.77 GiB), non-torch 1 GiB, graphs 0.8 GiB
    assert r.assumptions[-1] == "KV range dominated by the non-torch memory (1.00 GiB wide)"
    assert r.assumptions[2] == "activation peak 1.03 GiB (range 0.88 GiB to 1.64 GiB)"
    # 1,220 / 8,192 = 0.149
    assert r.log_lines[2] == "Maximum concurrency for 131,072 tokens per request: 0.15x"


def test_v0_refuses_a_max_seq_len_above_its_cache_tokens():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 131,072 positions x 128 x 2 B = 33,554,432 B, and leaves the pool;
    # recomputed: 70,553,706,496 -> 70,587,260,928, 4,137,010,790 -> 4,103,456,358, -152,189,338 ->
    # -185,743,770, 5,193,451,110 -> 5,159,896,678, 25,248 -> 25,040, 31,696 -> 31,488, 1,578 ->
    # 1,565
    r = vllm("llama-3.1-70b", "h100", 131072, "0.6.3", tp=2)
    # V0 0.6.3 above 32,768 tokens profiles 512 batched tokens (chunked prefill on by default,
    # its scheduler default; vllm_v0_early) and 256 sequences:
    # sampler 256 x 128,256 x 40 B = 1,313,341,440 > forward 512 x 67,584 x 2 = 69,206,016;
    # low 256 x 128,256 x 16 = 525,336,576; high x 48 = 1,576,009,728 + 0.25 GiB.
    # non-torch V0 with TP (0.5, 0.25, 4 GiB). KV 76,540,929,638 - 70,553,706,496
    #   - 1,313,341,440 - 536,870,912 = 4,137,010,790 -> 1,578 blocks of 2,621,440, 25,040 tokens
    # low - 1,844,445,184 - 4 GiB = -152,189,338 (no tokens); high - 525,336,576 - 0.25 GiB =
    #   5,193,451,110 -> 1,981 blocks, 31,696 tokens.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=76_540_929_638,
        weights_bytes=70_587_260_928, activation_bytes=1_313_341_440,
        activation_bytes_low=525_336_576, activation_bytes_high=1_844_445_184,
        non_torch_bytes=GIB // 2, cuda_graph_bytes=0,
        kv_cache_bytes=4_103_456_358, kv_cache_bytes_low=-185_743_770,
        kv_cache_bytes_high=5_159_896_678, kv_cache_tokens=25_040, kv_cache_tokens_low=0,
        kv_cache_tokens_high=31_488, blocks=1565, block_size_tokens=16, max_model_len=131_072,
        max_concurrency=Fraction(25_040, 131_072), starts=False,
        reason="vLLM would not start: max seq len (131,072) is larger than the maximum number "
               "of tokens that can be stored in KV cache (25,040)",
        max_model_len_that_starts=25_040)
    assert r.engine_version == "0.6.3 (V0)"
    assert r.size.max_context_that_fits == 25_040
    by_label = {st.label: st for st in r.steps}
    assert by_label["non-torch memory"].formula == "CUDA context + NCCL with TP buffers"
    assert r.assumptions[1] == "profiled with max_num_batched_tokens 512 and max_num_seqs 256"
    # widths: activation 1,319,108,608 (1.23 GiB), non-torch 3.75 GiB
    assert r.assumptions[-1] == "KV range dominated by the non-torch memory (3.75 GiB wide)"
    assert r.log_lines == ("# GPU blocks: 1565",
                           "Maximum concurrency for 131072 tokens per request: 0.19x")


def test_measured_terms_and_the_smallest_pipeline_stage():
    measured = dict(memory_bytes=80 * GIB, weights_bytes=8 * GIB, activation_bytes=GIB,
                    non_torch_bytes=GIB // 2, stage_kv_bytes=(60 * GIB, 50 * GIB))
    from kvplan.engines import Measured
    r = vllm("llama-3-8b", "h100", 8192, "0.10.2", pp=2, measured=Measured(**measured))
    # requested floor(80 GiB x 0.9) = 77,309,411,328; KV 72 GiB - 8 - 1 - 0.5 = 62.5 GiB.
    # each stage holds 16 of the 32 layers: a block 16 x 4,096 B x 16 = 1,048,576 B; stage 0
    # 60 GiB -> 61,440 blocks, stage 1 50 GiB -> 51,200: the pool is the smaller, 51,200
    # blocks = 819,200 tokens; a request 512 blocks: 100x, 100 users.
    assert (r.memory_bytes, r.requested_bytes, r.weights_bytes, r.activation_bytes,
            r.activation_bytes_low, r.activation_bytes_high, r.non_torch_bytes,
            r.kv_cache_bytes) == (80 * GIB, 77_309_411_328, 8 * GIB, GIB, GIB, GIB, GIB // 2,
                                  62 * GIB + GIB // 2)
    assert (r.blocks, r.kv_cache_tokens, r.max_concurrency, r.size.users_per_replica) == (
        51_200, 819_200, 100, 100)
    by_label = {st.label: st for st in r.steps}
    assert (by_label["GPU memory"].formula, by_label["weights"].formula,
            by_label["activation peak"].formula, by_label["non-torch memory"].formula) == (
        "total memory the log printed", "measured (log)", "measured (log)", "measured (log)")
    assert (by_label["layers per block"].value, by_label["blocks (raw)"].value) == (16, 64_000)
    assert (by_label["GPU blocks"].value, by_label["GPU blocks"].op,
            by_label["GPU blocks"].formula) == (
        51_200, "given", "smallest over pipeline stages (measured KV per stage)")
    assert (by_label["GPUs per replica"].formula, by_label["users per GPU"].value) == (
        "tp 1 x pp 2", 50)
    # measured terms have no width: no "dominated by" note
    assert r.assumptions[2:] == ("activation peak 1.00 GiB (range 1.00 GiB to 1.00 GiB)",
                                 "CUDA graphs: captured after sizing (not subtracted)",
                                 "fp16 cache in 16-token blocks; 1 KV cache group(s)")


def test_a_measured_pool_and_cuda_graphs():
    from kvplan.engines import Measured
    r = vllm("llama-3-8b", "h100", 8192, "0.21.0",
             measured=Measured(cuda_graph_bytes=GIB // 4, kv_cache_bytes=40 * GIB))
    # the log's 40 GiB pool: 40 GiB / 2 MiB = 20,480 blocks, 327,680 tokens, 40 users
    assert (r.kv_cache_bytes, r.cuda_graph_bytes, r.blocks, r.kv_cache_tokens) == (
        40 * GIB, GIB // 4, 20_480, 327_680)
    assert r.size.users_per_replica == 40
    by_label = {st.label: st for st in r.steps}
    assert (by_label["CUDA graph memory"].value, by_label["CUDA graph memory"].formula) == (
        GIB // 4, "measured (log)")
    assert (by_label["KV cache memory"].op, by_label["KV cache memory"].formula) == (
        "given", "measured (log)")
    assert r.assumptions[3] == ("CUDA graphs: estimate subtracted before sizing (vLLM 0.21-0.24 "
                                "gpu_worker.py)")
    assert len(r.assumptions) == 5  # a measured pool: no "KV range dominated by" note


def test_enforce_eager_and_a_stated_kv_cache_memory():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 8,192 positions x 128 x 2 B = 2,097,152 B, and leaves the pool; recomputed: 16,060,522,496 ->
    # 16,062,619,648, 45,954,117,632 -> 45,952,020,480
    r = vllm("llama-3-8b", "h100", 8192, "0.31.0", enforce_eager=True, kv_cache_memory_bytes=20 * GIB)
    # --kv-cache-memory-bytes 20 GiB: no subtraction; 20 GiB / 2 MiB = 10,240 blocks,
    # 163,840 tokens, 10,240 / 512 = 20 users using the whole pool. enforce_eager: no graphs.
    assert (r.kv_cache_bytes, r.cuda_graph_bytes, r.blocks, r.kv_cache_tokens,
            r.max_concurrency) == (20 * GIB, 0, 10_240, 163_840, 20)
    assert r.size.users_per_replica == 20
    # overhead 905,969,664 + 73,400,320 + Model Runner V2's persistent state (made whatever the
    # pool, 0.28 on) 576,630,784 = 1,556,000,768; unallocated 85,045,477,376 - 16,060,522,496
    #   - 20 GiB - 1,556,000,768 = 45,954,117,632
    assert r.size.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=16_062_619_648, kv_used_bytes=20 * GIB,
        kv_free_bytes=0, reserve_bytes=1_556_000_768, unallocated_bytes=45_952_020_480)
    by_label = {st.label: st for st in r.steps}
    assert "CUDA graph memory" not in by_label
    assert (by_label["KV cache memory"].op, by_label["KV cache memory"].formula) == (
        "given", "stated (--kv-cache-memory-bytes): no profiling subtraction")
    # 0.31's default utilization, 0.92 (config/cache.py:66 from 0.20.0), named though the pool
    # is stated
    assert r.assumptions == (
        "vLLM 0.31.0 (V1 engine), gpu_memory_utilization 0.92 of total memory",
        "profiled with max_num_batched_tokens 8,192 and max_num_seqs 1,024",
        "activation peak 0.84 GiB (range 0.72 GiB to 1.39 GiB)",
        "CUDA graphs: none (enforce_eager)",
        "fp16 cache in 16-token blocks; 1 KV cache group(s)",
    )
    assert r.log_lines[0] == "Available KV cache memory: 20.00 GiB"


def test_a_stated_budget_average_length_prefix_and_sequence_cap():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 8,192 positions x 128 x 2 B = 2,097,152 B, and leaves the pool; recomputed: 16,060,522,496 ->
    # 16,062,619,648
    r = vllm("llama-3-8b", "h100", 8192, "0.9.2", kv_budget_bytes=30 * GIB,
             avg_context_tokens=2000, shared_prefix_tokens=512, max_num_seqs=64,
             max_num_batched_tokens=4096, cap_max_num_seqs=True)
    # rows min(64, 4,096) = 64: sampler 64 x 128,256 x 16 = 131,334,144 < forward 4,096 x
    # 55,296 x 2 = 452,984,832 (low int(0.85 x) 385,037,107, high int(1.35 x) 611,529,523
    # + 0.25 GiB = 879,964,979). The stated 30 GiB pool: 15,360 blocks, 245,760 tokens, 30x.
    # a 2,000-token user holds ceil(2,000 / 16) = 125 blocks: 15,360 // 125 = 122, capped at
    # --max-num-seqs 64, using 64 x 125 x 2,097,152 = 16,777,216,000 B.
    assert (r.activation_bytes, r.activation_bytes_low, r.activation_bytes_high) == (
        452_984_832, 385_037_107, 879_964_979)
    assert (r.kv_cache_bytes, r.blocks, r.kv_cache_tokens, r.max_concurrency) == (
        30 * GIB, 15_360, 245_760, 30)
    assert r.size.users_per_replica == 64
    assert r.size.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=16_062_619_648, kv_used_bytes=16_777_216_000,
        kv_free_bytes=30 * GIB - 16_777_216_000, reserve_bytes=452_984_832 + 73_400_320,
        unallocated_bytes=85_045_477_376 - 16_062_619_648 - 30 * GIB - 526_385_152)
    by_label = {st.label: st for st in r.steps}
    assert (by_label["KV cache memory"].op, by_label["KV cache memory"].formula) == (
        "given", "stated (--kv-budget-gib, vLLM's --kv-cache-memory)")
    assert (by_label["blocks per user"].value, by_label["blocks per user"].formula) == (
        125, "one sequence holding 2,000 tokens, as the engine allocates it")
    assert by_label["activation peak"].formula == (
        "max(forward 4,096 tok x 55,296 el x 2 B, sampler 64 rows x vocab 128,256 x 16 B)")
    assert r.assumptions == (
        "vLLM 0.9.2 (V1 engine), gpu_memory_utilization 0.9 of total memory",
        "profiled with max_num_batched_tokens 4,096 and max_num_seqs 64",
        "activation peak 0.42 GiB (range 0.36 GiB to 0.82 GiB)",
        "CUDA graphs: captured after sizing (not subtracted)",
        "fp16 cache in 16-token blocks; 1 KV cache group(s)",
        "shared prefix not credited: users counted in whole blocks per sequence (prefix caching "
        "not modelled)",
        "users capped at --max-num-seqs 64",
    )


def test_the_sequence_cap_only_when_asked_and_only_above_it():
    kw = dict(kv_budget_bytes=30 * GIB, avg_context_tokens=2000, max_num_seqs=64)
    # without cap_max_num_seqs the 122 users stand (kvplan check applies the cap itself)
    assert vllm("llama-3-8b", "h100", 8192, **kw).size.users_per_replica == 122
    # a cap of exactly 122 changes nothing and adds no note
    r = vllm("llama-3-8b", "h100", 8192, kv_budget_bytes=30 * GIB, avg_context_tokens=2000,
             max_num_seqs=122, cap_max_num_seqs=True)
    assert r.size.users_per_replica == 122
    assert not any("capped" in a for a in r.assumptions)


def test_a_draft_model_and_cpu_offload():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 8,192 positions x 128 x 2 B = 2,097,152 B, and leaves the pool; recomputed: 14,237,184,000 ->
    # 14,239,281,152, 60,128,999,014 -> 60,126,901,862, 22,937 -> 22,936, 366,992 -> 366,976
    draft = load_model("llama-3.2-1b")
    r = vllm("llama-3-8b", "h100", 8192, "0.10.2", draft_model=draft,
             draft_params=draft.params_total, num_speculative_tokens=4,
             cpu_offload_bytes=4 * GIB, topk_topp_sampler="flashinfer")
    # weights 16,060,522,496 + draft 1,235,814,400 x 2 B = 2,471,628,800 - 4 GiB offloaded =
    # 14,237,184,000. The draft's block: 16 tokens x 8 heads x (64 + 64) x 2 B x 16 layers =
    # 524,288 B beside the target's 2,097,152: 2,621,440 B a block.
    # KV 76,540,929,638 - 14,237,184,000 - 2,101,346,304 - 73,400,320 = 60,128,999,014 ->
    # 22,937 blocks, 366,992 tokens, 44 users; low - 3,945,791,488 - 0.5 GiB =
    # 57,821,083,238 -> 22,056 blocks 352,896 tokens.
    assert (r.weights_bytes, r.kv_cache_bytes, r.blocks, r.kv_cache_tokens,
            r.kv_cache_tokens_low) == (14_239_281_152, 60_126_901_862, 22_936, 366_976, 352_896)
    assert r.size.users_per_replica == 44
    assert r.size.breakdown.kv_used_bytes == 44 * 512 * 2_621_440
    assert [(st.label, st.value, st.unit, st.op, st.args, st.formula)
            for st in r.steps[10:14]] == [
        ("layers per block", 32, "layers", "given", (), "layers sharing one block id"),
        ("target bytes per block", 2_097_152, "bytes", "mul",
         ("page size per layer", "layers per block"), "page size per layer x layers per block"),
        ("draft KV bytes per block", 524_288, "bytes", "given", (),
         "llama-3.2-1b: block size x its KV bytes per token, all its layers"),
        ("bytes per block", 2_621_440, "bytes", "sum", ("target bytes per block",
                                                        "draft KV bytes per block"),
         "target + draft (one block id covers both models' layers)"),
    ]
    assert r.steps[3].formula == (
        "8,030,261,248 params x 16 bits / 1 GPU(s)" + rotary_words("8,192 positions x 128 x 2 B")
        + " + draft model 1,235,814,400 params - 4.00 GiB offloaded to the CPU (--cpu-offload-gb)")
    assert r.assumptions[-1] == (
        "speculative decoding: draft llama-3.2-1b (4 tokens per step): its weights and KV layers "
        "are added; its proposal activations and lookahead slots are not modelled")


def test_a_vision_model_with_its_encoder_cache_on_031():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # MRoPE 4 x 128,000 positions x 128 x 2 B = 131,072,000 B, and leaves the pool; recomputed:
    # 16,584,333,312 -> 16,715,405,312, 57,441,345,126 -> 57,310,273,126, 62,606 -> 62,463,
    # 1,001,696 -> 999,408; then 0.31's default utilization, 0.92 (config/cache.py:66 from
    # 0.20.0), for the 0.9 kvplan had taken: 57,310,273,126 -> 59,011,182,673, 62,463 -> 64,317
    # blocks, 999,408 -> 1,029,072 tokens, 30 -> 31 users
    r = vllm("qwen2.5-vl-7b", "h100", 32768, "0.31.0", limit_mm_per_prompt=2)
    # forward 8,192 x (3 x 3,584 + 3 x 18,944) x 2 B = 1,107,296,256 > sampler 1,024 x
    # 152,064 x 2 = 311,427,072 (0.26 on: the bf16 logits untouched); the encoder cache: budget
    # max(8,192, 16,384) = 16,384 embeddings, 1 item, 16,384 x 3,584 x 2 B = 117,440,512 added
    # to best, low and high: 1,224,736,768; int(0.85 fwd) 941,201,817 + 117,440,512;
    # max(int(1.35 fwd) 1,494,849,945, 1,024 x 152,064 x 6 = 934,281,216) + 0.25 GiB
    # + 117,440,512 = 1,880,725,913.
    # Model Runner V2's persistent state (0.28 on): 1,024 x (152,064 + 2 x 4,752 + 4,481) x 4 B
    #   + 8,192 x 13 B = 680,243,200.
    # requested floor(85,045,477,376 x 92 / 100) = 78,241,839,185; weights 16,584,333,312 + the
    #   MRoPE cache 131,072,000 = 16,715,405,312.
    # KV 78,241,839,185 - 16,715,405,312 - 1,224,736,768 - 73,400,320 - 680,243,200
    #   - 536,870,912 = 59,011,182,673; block 16 x 4 heads x 256 x 2 B x 28 = 917,504: 64,317
    #   blocks, 1,029,072 tokens; a 32,768-token user 2,048 blocks: 64,317 // 2,048 = 31.
    assert (r.weights_bytes, r.activation_bytes, r.activation_bytes_low,
            r.activation_bytes_high, r.kv_cache_bytes, r.blocks, r.kv_cache_tokens) == (
        16_715_405_312, 1_224_736_768, 1_058_642_329, 1_880_725_913, 59_011_182_673, 64_317,
        1_029_072)
    assert (r.size.users_per_replica, r.max_model_len_that_starts) == (31, 128_000)
    assert r.steps[4].formula == (
        "max(forward 8,192 tok x 67,584 el x 2 B, sampler 1,024 rows x vocab 152,064 x 2 B); "
        "plus the encoder cache budget max(max_num_batched_tokens, 16,384 tokens an item) = "
        "16,384 tokens; 1 dummy item(s) x 16,384 x hidden x 2 B kept through the profile")
    assert r.assumptions[-3:] == (
        "encoder cache: 1 dummy item(s) of 16,384 embeddings kept through the profile, 0.11 GiB "
        "(in the activation peak)",
        "qwen2.5-vl-7b: the vision tower's activation while vLLM 0.31.0 profiles the encoder is "
        "not modelled (read in vLLM 0.11.0 and 0.19.0-0.23.0 only)",
        "limit_mm_per_prompt 2: the encoder's 676,550,144 parameters are in the weights; the "
        "items per prompt do not change the profiled encoder cache here")


def test_a_version_newer_than_the_newest_series_and_draft_weights_alone():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 8,192 positions x 128 x 2 B = 2,097,152 B, and leaves the pool; recomputed: 18,060,522,496 ->
    # 18,062,619,648, 55,454,827,110 -> 55,452,729,958, 26,442 -> 26,441, 423,072 -> 423,056
    r = vllm("llama-3-8b", "h100", 8192, "0.40.1", draft_params=1_000_000_000)
    # as 0.31 plus 1e9 draft params x 2 B (KV 58,387,535,462 - 2e9 = 56,387,535,462, 0.31's
    # figure with Model Runner V2's 576,630,784 B of persistent state), then the 0.33 series'
    # warm-up sampler: 1,024 x 128,256 x 14 B = 1,838,678,016 B replaces the 905,969,664 B
    # forward as the peak, 932,708,352 B less KV: 55,454,827,110 B -> 26,442 blocks of
    # 2,097,152 B, 423,072 tokens (55,452,729,958 B, 26,441 blocks, 423,056 tokens with the
    # rotary cache). Task h41v034: 0.40.1 is now modelled as the 0.34 series, utilization 1.0
    # and the budget capped at 85,045,477,376 - 293,601,280 (CUDA context) - int(0.75 x
    # 1,838,678,016) = 1,379,008,512 (margin) = 83,372,867,584: KV 83,372,867,584 -
    # 18,062,619,648 - 1,838,678,016 - 73,400,320 - 576,630,784 - 536,870,912 = 62,284,667,904
    # -> floor(/ 2,097,152) = 29,699 blocks, 475,184 tokens
    assert (r.weights_bytes, r.kv_cache_bytes, r.blocks, r.kv_cache_tokens) == (
        18_062_619_648, 62_284_667_904, 29_699, 475_184)
    assert r.steps[3].formula == (
        "8,030,261,248 params x 16 bits / 1 GPU(s)" + rotary_words("8,192 positions x 128 x 2 B")
        + " + draft model 1,000,000,000 params")
    assert ("vLLM 0.40.1 is newer than the newest modelled release (0.34.0): modelled as the "
            "0.34 series") in r.assumptions
    assert r.assumptions[-1] == (
        "speculative decoding: the draft model's weights are added; its KV layers (which share "
        "the block pool) are not modelled")


def test_v0_forced_on_a_v1_release():
    r = vllm("llama-3-8b", "h100", 8192, "0.8.5-v0")
    # V0: max(8,192, 2,048) batched tokens, 256 sequences, 40 B a logit: 1,313,341,440 >
    # forward 905,969,664; non-torch: the V0 worker from 0.6.5 books growth after start-up, V1's
    # 70 MiB (it was V0's 350 MiB with the CUDA context before issue #13's sixth round).
    # KV 76,540,929,638 - 16,060,522,496 - 1,313,341,440 - 73,400,320 = 59,093,665,382 ->
    # 28,178 blocks, 450,848 tokens, concurrency 450,848 / 8,192 = 55.03x. Task h39rope: weights
    # + the rotary cos/sin cache 8,192 x 128 x 2 B = 2,097,152: KV 59,091,568,230 // 2,097,152 =
    # 28,177 blocks, 450,832 tokens, 450,832 / 8,192 = 55.03x
    assert (r.engine_version, r.activation_bytes, r.non_torch_bytes, r.kv_cache_bytes,
            r.blocks, r.max_concurrency) == (
        "0.8.5-v0 (V0)", 1_313_341_440, 73_400_320, 59_091_568_230, 28_177,
        Fraction(450_832, 8192))
    assert r.assumptions[:2] == (
        "vLLM 0.8.5-v0 (V0 engine), gpu_memory_utilization 0.9 of total memory",
        "profiled with max_num_batched_tokens 8,192 and max_num_seqs 256")
    assert r.steps[5].formula == "growth after start-up (V0 from 0.6.5: start-up baseline)"
    assert r.log_lines == ("# GPU blocks: 28177",
                           "Maximum concurrency for 8192 tokens per request: 55.03x")


def test_the_cuda_graph_estimate_can_dominate_the_kv_range():
    # (pinned to 0.33.0 when task h41v034 made 0.34.0 the default, whose notes follow this one)
    r = vllm("llama-3-8b", "h100", 8192, "0.33.0", max_num_batched_tokens=256, max_num_seqs=16)
    # forward 256 x 55,296 x 2 B = 28,311,552 < 0.33's warm-up sampler 16 x 128,256 x 14 =
    # 28,729,344 (the best; the first, default pass is 16 x 128,256 x 2 = 4,104,192, the bf16
    # logits untouched, task h36samp); activation width:
    # max(int(1.35 x) 38,220,595, 24,625,152) + 0.25 GiB - int(0.85 x)
    # 24,064,819 = 282,591,232 (0.26 GiB); non-torch 0.5 GiB - 20 MiB (0.48 GiB); graphs
    # 1.1 GiB (GIB * 11 // 10, 1,181,116,006) - GIB // 5 = 966,367,642 (0.90 GiB): the widest
    assert (r.activation_bytes, r.activation_bytes_low, r.activation_bytes_high) == (
        28_729_344, 24_064_819, 306_656_051)
    assert r.assumptions[1] == "profiled with max_num_batched_tokens 256 and max_num_seqs 16"
    assert r.assumptions[-1] == "KV range dominated by the CUDA-graph estimate (0.90 GiB wide)"


def test_sampling_is_sharded_over_tp_from_029():
    # Gemma-3-1B at tp 2 on 0.31: ceil(1,024 / 2) = 512 rows x 262,144 vocab x (2, 2, 6) B (the
    # bf16 logits untouched, task h36samp) = 268,435,456 / 268,435,456 / 805,306,368 beat the
    # forward pass 8,192 x (3 x 1,152 + 3 x 3,456) x 2 B = 226,492,416 (low: int(0.85 x) =
    # 192,518,553; high: int(1.35 x) = 305,764,761), so best = low = 268,435,456 and high =
    # 805,306,368 + 0.25 GiB = 1,073,741,824
    r = vllm("gemma-3-1b", "h100", 8192, "0.31.0", tp=2)
    assert (r.activation_bytes, r.activation_bytes_low, r.activation_bytes_high) == (
        268_435_456, 268_435_456, 1_073_741_824)
    assert r.steps[4].formula == (
        "max(forward 8,192 tok x 13,824 el x 2 B, sampler 512 rows x vocab 262,144 x 2 B)")


def test_v0_samples_every_sequence_and_v1_at_most_the_batched_tokens():
    # V0: all 4,096 sequences x 128,256 x 40 B = 21,013,463,040
    v0 = vllm("llama-3-8b", "h100", 8192, "0.6.4", max_num_seqs=4096, max_num_batched_tokens=2048)
    assert v0.activation_bytes == 21_013_463_040
    # V1: min(1,024 sequences, 256 tokens) = 256 rows x 128,256 x 16 B = 525,336,576
    v1 = vllm("llama-3-8b", "h100", 8192, "0.10.2", max_num_seqs=1024, max_num_batched_tokens=256,
              topk_topp_sampler="flashinfer")
    assert v1.activation_bytes == 525_336_576
    assert v1.steps[4].formula == (
        "max(forward 256 tok x 55,296 el x 2 B, sampler 256 rows x vocab 128,256 x 16 B)")
    # 0.10 without FlashInfer (the pip wheel) sorts: 256 x 128,256 x 38 B = 1,247,674,368
    pip = vllm("llama-3-8b", "h100", 8192, "0.10.2", max_num_seqs=1024, max_num_batched_tokens=256)
    assert pip.activation_bytes == 1_247_674_368


def test_vllm_pages_a_request_asked_to_reserve():
    from kvplan.capacity.kv import Allocation
    # vLLM always pages: a 2,000-token average holds ceil(2,000 / 16) = 125 blocks, so the
    # default pool's 28,651 blocks (0.31's default utilization 0.92: the first test above) hold
    # 28,651 // 125 = 229 users (reserved would hold 8,192 tokens each: 55)
    r = vllm("llama-3-8b", "h100", 8192, "0.31.0", allocation=Allocation.reserved, avg_context_tokens=2000)
    assert (r.size.users_per_replica, r.size.request.allocation) == (229, Allocation.paged)


def test_measured_stages_beyond_pp_are_ignored_and_an_empty_stage_stops_it():
    from kvplan.engines import Measured
    # a third stage's figure beyond pp 2 is not read: 51,200 blocks as with two
    r = vllm("llama-3-8b", "h100", 8192, "0.10.2", pp=2,
             measured=Measured(stage_kv_bytes=(60 * GIB, 50 * GIB, GIB)))
    assert r.blocks == 51_200
    # a stage with no KV memory: no blocks, vLLM does not start
    r = vllm("llama-3-8b", "h100", 8192, "0.10.2", pp=2,
             measured=Measured(stage_kv_bytes=(60 * GIB, 0)))
    assert (r.blocks, r.kv_cache_tokens, r.starts, r.size.users_per_replica) == (0, 0, False, 0)
