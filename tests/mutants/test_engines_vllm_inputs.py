"""vLLM's profile with measured terms (a log's numbers in place of the model's) and stated
settings: pipeline stages, a measured pool and CUDA graphs, enforce_eager, a stated KV memory or
budget, the sequence cap, draft models, CPU offload, the encoder cache, V0 forced, sampling over
TP, reserved allocation. Continued from test_engines_vllm.py (its docstring says how the numbers
are worked).

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/vllm.py.
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.capacity.plan import Breakdown
from kvplan.specs import load_model
from tests.mutants.engine_runs import GIB, rotary_words, vllm


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
    # 0.15.0, the first release since 0.10.0 that runs a draft model (0.10.0-0.14.1 raise
    # NotImplementedError, task vllmleft; tests/engines/test_vllm_draft_releases.py): every term
    # below is the same as the 0.10.2 these numbers were first derived at
    draft = load_model("llama-3.2-1b")
    r = vllm("llama-3-8b", "h100", 8192, "0.15.0", draft_model=draft,
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
    # task h43graphs, the graph term by the capture sizes: 1,024 sequences -> 102 graphs x 28
    #   layers x 235,929 B = 673,813,224 for 536,870,912: KV 59,011,182,673 + 536,870,912 -
    #   673,813,224 = 58,874,240,361 -> 64,167 blocks, 1,026,672 tokens, 64,167 // 2,048 = 31.
    # task h44graphbase, a first capture + later graphs: 102 graphs in 2 modes -> 100 later x 28
    #   layers x 89,653 B = 251,028,400 + 358,612,992 = 609,641,392: KV 58,874,240,361 +
    #   673,813,224 - 609,641,392 = 58,938,412,193 -> 64,237 blocks (x 917,504 =
    #   58,937,704,448), 1,027,792 tokens, 64,237 // 2,048 = 31.
    assert r.cuda_graph_bytes == 358_612_992 + 100 * 28 * 89_653 == 609_641_392
    assert (r.weights_bytes, r.activation_bytes, r.activation_bytes_low,
            r.activation_bytes_high, r.kv_cache_bytes, r.blocks, r.kv_cache_tokens) == (
        16_715_405_312, 1_224_736_768, 1_058_642_329, 1_880_725_913, 58_938_412_193, 64_237,
        1_027_792)
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
    # -> floor(/ 2,097,152) = 29,699 blocks, 475,184 tokens. Task h43graphs, the graph term by
    # the capture sizes: 1,024 sequences on an H100 -> 102 graphs x 32 layers x 235,929 B =
    # 770,072,256 for 536,870,912: KV 62,051,466,560 -> 29,588 blocks, 473,408 tokens. Task
    # h44graphbase, a first capture + later graphs: 358,612,992 + 100 later x 32 x 89,653 =
    # 645,502,592: KV 62,051,466,560 + 770,072,256 - 645,502,592 = 62,176,036,224 -> 29,647
    # blocks (x 2,097,152 = 62,174,265,344), 474,352 tokens
    assert (r.weights_bytes, r.kv_cache_bytes, r.blocks, r.kv_cache_tokens) == (
        18_062_619_648, 62_176_036_224, 29_647, 474_352)
    assert r.steps[3].formula == (
        "8,030,261,248 params x 16 bits / 1 GPU(s)" + rotary_words("8,192 positions x 128 x 2 B")
        + " + draft model 1,000,000,000 params (its torch blocks not booked: not laid out "
        "tensor by tensor)")  # 0.34 loads under max_split_size_mb 20; the draft is a count
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


def test_few_sequences_capture_few_graphs_and_the_first_capture_sets_the_kv_range():
    # (pinned to 0.33.0 when task h41v034 made 0.34.0 the default, whose notes follow this one)
    r = vllm("llama-3-8b", "h100", 8192, "0.33.0", max_num_batched_tokens=256, max_num_seqs=16)
    # forward 256 x 55,296 x 2 B = 28,311,552 < 0.33's warm-up sampler 16 x 128,256 x 14 =
    # 28,729,344 (the best; the first, default pass is 16 x 128,256 x 2 = 4,104,192, the bf16
    # logits untouched, task h36samp); activation width:
    # max(int(1.35 x) 38,220,595, 24,625,152) + 0.25 GiB - int(0.85 x)
    # 24,064,819 = 282,591,232 (0.26 GiB); non-torch 0.5 GiB - 20 MiB (0.48 GiB): the widest;
    # graphs (task h43graphs; until then the flat 1.1 - 0.2 GiB = 0.90 GiB was the widest): 16
    # sequences, 256 tokens -> sizes up to min(32, 512, 256) = 32: 1, 2, 4, 8, 16, 24, 32 (7)
    # PIECEWISE + 5 FULL (<= 16) = 12 graphs x 32 layers x (429,916 - 157,286) B = 104,689,920
    # (0.10 GiB). Task h44graphbase, a first capture + later graphs: 12 graphs in 2 modes -> 10
    # later x 32 layers = 320 graph-layers: best 358,612,992 + 320 x 89,653 = 387,301,952, low
    # 170,917,888 + 28,688,960 = 199,606,848, high 813,694,976 + 320 x 382,730 = 936,168,576:
    # 736,561,728 B (0.69 GiB) wide, the widest again (the first capture's 163-776 MiB)
    assert (r.activation_bytes, r.activation_bytes_low, r.activation_bytes_high) == (
        28_729_344, 24_064_819, 306_656_051)
    assert r.assumptions[1] == "profiled with max_num_batched_tokens 256 and max_num_seqs 16"
    assert r.cuda_graph_bytes == 358_612_992 + 10 * 32 * 89_653 == 387_301_952
    assert r.assumptions[-1] == "KV range dominated by the CUDA-graph estimate (0.69 GiB wide)"


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
    # default pool's 28,540 blocks (0.31's default utilization 0.92 and, since task h43graphs,
    # 102 captured graphs: the first test above) hold 28,540 // 125 = 228 users (reserved would
    # hold 8,192 tokens each: 55)
    r = vllm("llama-3-8b", "h100", 8192, "0.31.0", allocation=Allocation.reserved, avg_context_tokens=2000)
    assert (r.size.users_per_replica, r.size.request.allocation) == (228, Allocation.paged)


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
