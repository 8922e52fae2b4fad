"""vLLM's profile in full, continued: the MLA + MoE case at TP 2 (0.23) and the sliding-window
hybrid (0.10.2), every number of an EngineResult worked by hand in the comments, as
test_engines_vllm.py does for the dense cases (split from it, 413 lines in one module before).
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.engines.vllm_compile_cache import NOTE as COMPILE_NOTE
from tests.mutants.engine_runs import GIB, numbers, vllm


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
    # task h44graphbase, a first capture + later graphs: 102 graphs in 2 modes -> 100 later x 27
    # layers = 2,700 graph-layers x 89,653 B = 242,063,100: best 358,612,992 + 242,063,100 =
    # 600,676,092, low 170,917,888 + 242,063,100 = 412,980,988, high 813,694,976 + 2,700 x
    # 382,730 = 1,847,065,976: KV 57,918,272,014 + 649,748,466 - 600,676,092 = 57,967,344,388
    # -> 29,119 blocks (x 1,990,656 = 57,965,912,064), 1,863,616 tokens, 113.75x, 113 users;
    # low 55,406,333,593 + 1,183,988,664 - 1,847,065,976 = 54,743,256,281 -> 27,500 blocks,
    # 1,760,000 tokens; high 59,177,055,493 + 433,165,644 - 412,980,988 = 59,197,240,149 ->
    # 29,737 blocks, 1,903,168 tokens.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=78_241_839_185,
        weights_bytes=15_762_714_112, activation_bytes=1_677_721_600,
        activation_bytes_low=1_258_291_200, activation_bytes_high=3_204_448_256,
        non_torch_bytes=2_233_382_993, cuda_graph_bytes=600_676_092,
        kv_cache_bytes=57_967_344_388, kv_cache_bytes_low=54_743_256_281,
        kv_cache_bytes_high=59_197_240_149, kv_cache_tokens=1_863_616,
        kv_cache_tokens_low=1_760_000, kv_cache_tokens_high=1_903_168, blocks=29_119,
        block_size_tokens=64, max_model_len=16384, max_concurrency=Fraction(29_119, 256),
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
        "CUDA graphs: 342 MiB first capture + 100 later graphs (each mode's first left out) x "
        "27 layers x 0.0855 MiB; 102 graphs (PIECEWISE 51: 1, 2, 4 ... 512; FULL decode 51: 1, "
        "2, 4 ... 512) (capture sizes from max_num_seqs 1,024 and max_num_batched_tokens 8,192: "
        "kvplan.engines.vllm_capture); estimate subtracted before sizing (vLLM 0.21-0.24 "
        "gpu_worker.py)",
        "fp16 cache in 64-token blocks; 1 KV cache group(s)",
    )
    # task h44graphbase: 57,967,344,388 / 2^30 = 53.99 GiB; 29,119 / 256 = 113.75x (53.94 GiB
    # and 113.65x since task h43graphs)
    assert r.log_lines == ("Available KV cache memory: 53.99 GiB",
                           "GPU KV cache size: 1,863,616 tokens",
                           "Maximum concurrency for 16,384 tokens per request: 113.75x")
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
        COMPILE_NOTE,  # task h48cold: V1 compiles; the figure assumes a warm compile cache
        "KV range dominated by the activation peak (1.25 GiB wide)",
    )
    assert r.log_lines == ("Available KV cache memory: 37.11 GiB",
                           "GPU KV cache size: 1,389,600 tokens",
                           "Maximum concurrency for 32,768 tokens per request: 201.71x")
