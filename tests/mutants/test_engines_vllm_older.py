"""vLLM's profile in full, continued from test_engines_vllm.py (its docstring says how the
numbers are worked): every field of a V0 release (0.6.4 on an int4 checkpoint) and of 0.8.5, and
the pools that hold nothing or cannot hold max_model_len (V1 and V0 refusals).

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/vllm.py.
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.capacity.plan import Breakdown
from kvplan.engines.vllm_compile_cache import NOTE as COMPILE_NOTE
from kvplan.units import DType
from tests.mutants.engine_runs import GIB, assert_weights_overflow, numbers, rotary_words, vllm


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
    # the embeddings and LM head stay 16-bit (2 x 128,256 x 4,096 = 1,050,673,152 params); int4
    # adds a 16-bit scale and a 4-bit zero point per 128 weights
    assert by_label["weights"].formula == ("8,030,261,248 params x 4 bits / 1 GPU(s), the "
                                           "embeddings and LM head (1,050,673,152 params) in 16 "
                                           "bits, + 20 bits of scale and zero point per 128 weights"
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
        # 0.6.4 books the whole device: others' memory comes off the pool; room = KV
        # 30,103,283,740 - one 4,096-token request 256 x 2,097,152 = 29,566,412,828 B = 27.54 GiB
        "nothing else on the GPU: vLLM 0.6.4.post1 counts memory any other process holds there "
        "against its budget (V0 0.6.4 books total - free after the profile run less torch's "
        "allocated bytes, PR #9352, worker.py:209-213 of 0.6.4.post1), so it comes off this pool; "
        "it starts while they hold under 27.54 GiB (the pool less one 4,096-token request)",
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
    assert r.assumptions[4:7] == (
        "fp16 cache in 16-token blocks; 2 KV cache group(s)",
        COMPILE_NOTE,  # task h48cold: V1 (0.8.5) compiles; the figure assumes a warm cache
        "KV range dominated by the activation peak (7.09 GiB wide)",
    )
    assert r.assumptions[7].startswith("topk_topp_sampler unstated: native, as pip installs a "
                                       "0.8-0.11 release")
    # V1 before 0.9.1 books the whole device; room = KV 47,773,982,105 - one request 1,025 x
    # 2,752,512 = 2,821,324,800 -> 44,952,657,305 B = 41.87 GiB
    assert r.assumptions[8].endswith("it starts while they hold under 41.87 GiB (the pool less "
                                     "one 8,192-token request)")
    assert r.assumptions[9] == (
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
    # task h43graphs, the graph term by the capture sizes: 1,024 sequences -> 102 graphs x 80
    #   layers = 8,160 graph-layers x (235,929, 157,286, 429,916) B = 1,925,180,640 (low
    #   1,283,453,760, high 3,508,114,560) for 536,870,912 (GiB // 5 - 1.1 GiB): KV
    #   -65,924,708,271 + 536,870,912 - 1,925,180,640 = -67,313,017,999 (-62.69 GiB; raw blocks
    #   floor(/ 5,242,880) = -12,839); low -67,908,299,489 + 1,181,116,006 - 3,508,114,560 =
    #   -70,235,298,043; high -65,251,627,335 + 214,748,364 - 1,283,453,760 = -66,320,332,731.
    # task h44graphbase, a first capture + later graphs: 102 graphs in 2 modes -> 100 later x 80
    #   layers = 8,000 graph-layers x 89,653 B = 717,224,000: best 358,612,992 + 717,224,000 =
    #   1,075,836,992, low 170,917,888 + 717,224,000 = 888,141,888, high 813,694,976 + 8,000 x
    #   382,730 = 3,875,534,976: KV -67,313,017,999 + 1,925,180,640 - 1,075,836,992 =
    #   -66,463,674,351 (-61.90 GiB; raw blocks floor(/ 5,242,880) = -12,677); low
    #   -70,235,298,043 + 3,508,114,560 - 3,875,534,976 = -70,602,718,459; high -66,320,332,731 +
    #   1,283,453,760 - 888,141,888 = -65,925,020,859.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=78_241_839_185,
        weights_bytes=141_140_967_424, activation_bytes=1_838_678_016,
        activation_bytes_low=1_540_148_428, activation_bytes_high=2_714_553_548,
        non_torch_bytes=73_400_320, cuda_graph_bytes=1_075_836_992,
        kv_cache_bytes=-66_463_674_351, kv_cache_bytes_low=-70_602_718_459,
        kv_cache_bytes_high=-65_925_020_859, kv_cache_tokens=0, kv_cache_tokens_low=0,
        kv_cache_tokens_high=0, blocks=0, block_size_tokens=16, max_model_len=8192,
        max_concurrency=Fraction(0), starts=False,
        reason="vLLM would not start: no memory for the KV cache (-61.90 GiB after weights "
               "131.45 GiB, activations 1.71 GiB and other overheads); raise "
               "gpu_memory_utilization, add GPUs or lower max_num_batched_tokens",
        max_model_len_that_starts=0)
    # no pool, and the weights alone exceed memory: no overhead fits, the rest is negative
    assert_weights_overflow(r, 85_045_477_376, 141_140_967_424)
    by_label = {st.label: st for st in r.steps}
    assert by_label["blocks (raw)"].value == -12_677
    assert (by_label["users per replica"].value, by_label["users per replica"].op,
            by_label["users per replica"].formula) == (0, "given", "the engine does not start")
    assert r.log_lines == ("Available KV cache memory: -61.90 GiB",
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
    # task h43graphs, the graph term by the capture sizes: 1,024 sequences -> 102 graphs x 80
    #   layers x (235,929, 157,286, 429,916) B = 1,925,180,640 (low 1,283,453,760, high
    #   3,508,114,560) for 536,870,912: KV 3,200,397,312 + 536,870,912 - 1,925,180,640 =
    #   1,812,087,584 (1.69 GiB) -> 691 blocks, 11,056 tokens (the longest that starts); low
    #   1,449,191,506 + 1,181,116,006 - 3,508,114,560 = -877,807,048 -> 0 tokens; high
    #   4,311,384,556 + 214,748,364 - 1,283,453,760 = 3,242,679,160 -> 1,236 blocks, 19,776.
    # task h44graphbase, a first capture + later graphs (as the 0.33 case above): 1,075,836,992
    #   (low 888,141,888, high 3,875,534,976): KV 1,812,087,584 + 1,925,180,640 - 1,075,836,992
    #   = 2,661,431,232 (2.48 GiB) -> 1,015 blocks (x 2,621,440 = 2,660,761,600), 16,240 tokens
    #   (the longest that starts); low -877,807,048 + 3,508,114,560 - 3,875,534,976 =
    #   -1,245,227,464 -> 0 tokens; high 3,242,679,160 + 1,283,453,760 - 888,141,888 =
    #   3,637,991,032 -> 1,387 blocks, 22,192.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=78_241_839_185,
        weights_bytes=70_587_260_928, activation_bytes=1_107_296_256,
        activation_bytes_low=941_201_817, activation_bytes_high=1_763_285_401,
        non_torch_bytes=2_233_382_993, cuda_graph_bytes=1_075_836_992,
        kv_cache_bytes=2_661_431_232, kv_cache_bytes_low=-1_245_227_464,
        kv_cache_bytes_high=3_637_991_032, kv_cache_tokens=16_240, kv_cache_tokens_low=0,
        kv_cache_tokens_high=22_192, blocks=1_015, block_size_tokens=16, max_model_len=131_072,
        max_concurrency=Fraction(1_015, 8192), starts=False,
        reason="vLLM would not start: one request of max_model_len 131,072 needs 20.00 GiB of "
               "KV cache but 2.48 GiB is available; the estimated maximum model length is "
               "16,240",
        max_model_len_that_starts=16_240)
    s = r.size
    assert (s.users_per_replica, s.fits, s.kv_budget_bytes, s.max_context_that_fits) == (
        0, False, 2_661_431_232, 16_240)
    # the pool is allocated but holds nobody; overhead 1,107,296,256 + 2,233,382,993
    #   + 576,630,784 + 1,075,836,992 = 4,993,147,025 (1,925,180,640 of graphs, 5,842,490,673
    #   in all, before task h44graphbase; 0.5 GiB, 4,454,180,945, before task h43graphs)
    assert s.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=70_587_260_928, kv_used_bytes=0,
        kv_free_bytes=2_661_431_232, reserve_bytes=4_993_147_025,
        unallocated_bytes=85_045_477_376 - 78_241_839_185)
    # widths: activation 822,083,584 (0.77 GiB), non-torch 1 GiB, graphs 3,875,534,976 -
    # 888,141,888 = 2,987,393,088 (2.78 GiB; 2.07 GiB before task h44graphbase, 0.8 GiB before
    # task h43graphs)
    assert r.assumptions[-1] == "KV range dominated by the CUDA-graph estimate (2.78 GiB wide)"
    assert r.assumptions[2] == "activation peak 1.03 GiB (range 0.88 GiB to 1.64 GiB)"
    # 1,015 / 8,192 = 0.124
    assert r.log_lines[2] == "Maximum concurrency for 131,072 tokens per request: 0.12x"


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
