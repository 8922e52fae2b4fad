"""SGLang's profile in full: mem_fraction_static by release and GPU tier (its three generations of
server_args.py, worked by hand at each tier and boundary), and every number of an EngineResult
with its explain steps, notes and log lines for representative cases (dense TP 1 on 0.5, MoE TP 2
on 0.4.8, measured free memory, stated pages and caps, one that does not start).

The arithmetic follows sglang/srt/model_executor/model_runner.py profile_max_num_token as
kvplan.engines.sglang's docstring quotes it: rest = free after weights - free before weights x
(1 - mem_fraction_static); tokens = rest // cell, rounded down to whole pages.
These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/sglang.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from kvplan.capacity.plan import Breakdown
from kvplan.engines import Engine, EngineResult, Measured
from kvplan.engines.sglang import default_fraction
from tests.mutants.engine_runs import GIB, MIB, assert_weights_overflow, numbers, run


def sglang(model: str, gpu: str, ctx: int, version: str | None = None,
           **kw: object) -> EngineResult:
    return run(Engine.sglang, model, gpu, ctx, version, **kw)


@pytest.mark.parametrize(("version", "tp", "fraction"), [
    # before 0.4.7: by tensor parallelism only (the GPU is not read)
    ("0.4.6", 1, Fraction(88, 100)), ("0.4.6", 2, Fraction(87, 100)),
    ("0.4.6", 3, Fraction(87, 100)), ("0.4.6", 4, Fraction(85, 100)),
    ("0.4.6", 7, Fraction(85, 100)), ("0.4.6", 8, Fraction(81, 100)),
    ("0.4.6", 15, Fraction(81, 100)), ("0.4.6", 16, Fraction(79, 100)),
    ("0.3.0", 32, Fraction(79, 100)),
])
def test_default_fraction_before_047_by_tp(version: str, tp: int, fraction: Fraction):
    assert default_fraction(tp, version, 81559) == fraction


def test_default_fraction_without_a_gpu_size_falls_back_to_the_tp_table():
    assert default_fraction(4, "0.5.2", None) == Fraction(85, 100)
    assert default_fraction(1, None, None) == Fraction(88, 100)


@pytest.mark.parametrize(("gpu_mib", "tp", "pp", "fraction"), [
    # 0.4.8-0.5.2: reserved GiB (2.8 + tp*pp/10) < 35 GiB, (9.5 + tp*pp/2) < 90, (12 + tp*pp/2)
    # < 160, else 32; fraction = round((g - reserved x 1024) / g, 3)
    (24564, 1, 1, Fraction(879, 1000)),  # (24,564 - 2.9 x 1,024 = 2,969.6) / 24,564 = 0.8791
    (35839, 1, 1, Fraction(917, 1000)),  # (35,839 - 2,969.6) / 35,839 = 0.9171
    (35840, 1, 1, Fraction(714, 1000)),  # at 35 GiB: (35,840 - 10 x 1,024) / 35,840 = 0.7143
    (46068, 2, 1, Fraction(767, 1000)),  # (46,068 - 10.5 x 1,024 = 10,752) / 46,068 = 0.7666
    (81559, 2, 2, Fraction(856, 1000)),  # (81,559 - 11.5 x 1,024 = 11,776) / 81,559 = 0.8556
    (92159, 1, 1, Fraction(889, 1000)),  # (92,159 - 10,240) / 92,159 = 0.8889
    (92160, 1, 1, Fraction(861, 1000)),  # at 90 GiB: (92,160 - 12.5 x 1,024 = 12,800) -> 0.8611
    (143771, 8, 1, Fraction(886, 1000)),  # (143,771 - 16 x 1,024) / 143,771 = 0.8860
    (163839, 1, 1, Fraction(922, 1000)),  # (163,839 - 12,800) / 163,839 = 0.9219
    (163840, 1, 1, Fraction(800, 1000)),  # at 160 GiB: 32 GiB reserved: 0.8
    (183359, 1, 1, Fraction(821, 1000)),  # (183,359 - 32,768) / 183,359 = 0.8213
])
def test_default_fraction_047_to_0410(gpu_mib: int, tp: int, pp: int, fraction: Fraction):
    assert default_fraction(tp, "0.4.8", gpu_mib, pp) == fraction
    assert default_fraction(tp, "0.4.10", gpu_mib, pp) == fraction
    # the 0.5.0rc0 and 0.5.1 wheels keep this rule; sglang PR #10975 replaced it from 0.5.3
    assert default_fraction(tp, "0.5.1", gpu_mib, pp) == fraction
    assert default_fraction(tp, "0.5.2", gpu_mib, pp) == fraction


@pytest.mark.parametrize(("gpu_mib", "tp", "chunk", "graph_bs", "fraction"), [
    # 0.5.3 on: reserved MiB = 512 + 1.5 x max(chunk, 2,048) + 2 x graph_bs + tp/8 x 1,024, at least
    # 10 GiB above 60 GiB; chunk / graph_bs by the GPU's size unless stated.
    (15360, 1, None, None, Fraction(757, 1000)),  # < 20 GiB: 2,048 / 8: 512 + 3,072 + 16 + 128
    (20479, 1, None, None, Fraction(818, 1000)),  # = 3,728: (20,479 - 3,728) / 20,479 = 0.8180
    (20480, 1, None, None, Fraction(816, 1000)),  # 20 GiB: 2,048 / 24: 3,760 -> 0.8164
    (24564, 1, None, None, Fraction(847, 1000)),  # 2,048 / 24: 3,760 -> 0.8469
    (24564, 4, None, None, Fraction(827, 1000)),  # tp 4: 2,048 / 80: 512 + 3,072 + 160 + 512
    (35839, 3, None, None, Fraction(888, 1000)),  # 2,048 / 24 at tp 3: 512 + 3,072 + 48 + 384
    # = 4,016: (35,839 - 4,016) / 35,839 = 0.8879
    (35840, 3, None, None, Fraction(802, 1000)),  # 35 GiB: 4,096 / 32: 512 + 6,144 + 64 + 384
    (46068, 1, None, None, Fraction(851, 1000)),  # 4,096 / 32: 6,848 -> 0.8513
    (46068, 4, None, None, Fraction(837, 1000)),  # 4,096 / 160: 512 + 6,144 + 320 + 512 = 7,488
    (61439, 1, None, None, Fraction(889, 1000)),  # 4,096 / 32: 6,848 -> 0.8885 (not >= 10 GiB)
    (61440, 1, None, None, Fraction(781, 1000)),  # 60 GiB: 8,192 / 256: 13,440 -> 0.7813
    (81559, 1, None, None, Fraction(835, 1000)),  # 13,440 -> 0.8352
    (81559, 4, None, None, Fraction(824, 1000)),  # 8,192 / 512: 512 + 12,288 + 1,024 + 512
    (163839, 1, None, None, Fraction(918, 1000)),  # 13,440 -> 0.9180
    (163840, 1, None, None, Fraction(840, 1000)),  # 160 GiB: 16,384 / 512: 26,240 -> 0.8398
    (143771, 8, None, None, Fraction(897, 1000)),  # 8,192 / 512 at tp 8: 14,848 -> 0.8967
    # stated sizes: 1,024 counts as 2,048 in max(chunk, 2,048); 61,440 MiB is not "> 60 GiB",
    # so the 10 GiB floor does not apply there, and it does above
    (61440, 1, 1024, 8, Fraction(939, 1000)),  # 512 + 3,072 + 16 + 128 = 3,728 -> 0.9393
    (61441, 1, 1024, 8, Fraction(833, 1000)),  # floor 10,240: (61,441 - 10,240) / 61,441
    (81559, 1, 4096, None, Fraction(874, 1000)),  # 512 + 6,144 + 512 + 128 = 7,296 -> 10,240
    (46068, 1, 8192, 64, Fraction(717, 1000)),  # 512 + 12,288 + 128 + 128 = 13,056 -> 0.7166
])
def test_default_fraction_from_05(gpu_mib: int, tp: int, chunk: int | None,
                                  graph_bs: int | None, fraction: Fraction):
    # the 0.5.5-0.5.19 table (the 0.5.12 and 0.5.19 wheels); 0.5.3-0.5.4 and 0.5.20 on differ
    # from it only in the 20-35 GiB tier's own sizes (tests/engines/test_sglang_tiers.py)
    assert default_fraction(tp, "0.5.12", gpu_mib, 1, chunk, graph_bs) == fraction
    assert default_fraction(tp, "0.5.19", gpu_mib, 1, chunk, graph_bs) == fraction
    if chunk is not None or not 20 * 1024 <= gpu_mib < 35 * 1024:
        assert default_fraction(tp, "0.5.21", gpu_mib, 1, chunk, graph_bs) == fraction
        assert default_fraction(tp, "0.5.3", gpu_mib, 1, chunk, graph_bs) == fraction


def test_default_fraction_from_05_counts_pipeline_stages():
    # tp 1 x pp 4 = 4 ranks: 512 + 6,144 + 64 (graph_bs 32: tp < 4) + 4/8 x 1,024 = 7,232 on
    # 46,068 MiB: (46,068 - 7,232) / 46,068 = 0.8430
    assert default_fraction(1, "0.5.21", 46068, 4) == Fraction(843, 1000)
    # 0.4.8 adds tp*pp/2 GiB: (9.5 + 2) x 1,024 = 11,776 on 46,068: 0.7444
    assert default_fraction(1, "0.4.8", 46068, 4) == Fraction(744, 1000)


FORMULAS = [
    ("GPU memory", "device total"),
    ("start-up use", "CUDA context + torch.distributed"),
    ("free before weights", "GPU memory - start-up use"),
    ("weights", "8,030,261,248 params x 16 bits / 1 GPU(s) + 0.06 GiB of load-time buffers"),
    ("free after weights", "free before weights - weights"),
    ("mem_fraction_static", "SGLang 0.5.23 default for tp 1 on 81,559 MiB: 60-90 GiB (H100, A100) "
                            "tier of SGLang 0.5.20-0.5.23"),
    ("1 - mem_fraction_static", "1 - fraction"),
    ("held back", "floor(free before weights x (1 - mem_fraction_static))"),
    ("KV cache memory", "free after weights - held back"),
    ("KV bytes per token per layer", "K + V of one layer on this GPU"),
    ("cached layers", "every attention layer"),
    ("cell size", "bytes per token, all layers"),
    ("tokens (raw)", "floor(KV cache memory / cell size)"),
    ("tokens (>= 0)", "never below 0"),
    ("page size", "SGLang page size"),
    ("pages", "whole pages"),
    ("max_total_num_tokens", "pages x page size"),
    ("maximum concurrency", "tokens / max_model_len 8,192"),
    ("KV pool", "tokens x cell size (what is allocated)"),
    ("request slots (max_num_reqs)", "min(estimate 4,096 = max(min(int(tokens / context 8,192 x "
                                     "512), 4,096), 2,048), tokens 412,841 // 2)"),
    ("request-to-token rows", "max_num_reqs + 1 (a padding row, SGLang 0.5.11 on)"),
    ("request-to-token columns", "context_len + 4"),
    ("request-to-token map", "rows x columns x 4 B (sglang mem_cache/memory_pool.py ReqToTokenPool, "
                             "int32; allocated after the pool is sized, out of what "
                             "mem_fraction_static leaves)"),
    ("left after the KV pool", "free after weights - KV pool (the map, activations and CUDA "
                               "graphs share it)"),
    ("left after the map", "left after the KV pool - request-to-token map (below 0: SGLang "
                           "stops)"),
    ("KV bytes per sequence",
     "8,192 tokens, paged in 1-token blocks, every cached layer on this GPU"),
    ("users per replica", "floor(KV pool / KV bytes per sequence)"),
    ("GPUs per replica", "tp 1 x pp 1"),
    ("users per GPU", "users per replica / GPUs per replica"),
]


def test_llama3_8b_on_one_h100_with_the_default_0523_in_every_field():
    r = sglang("llama-3-8b", "h100", 8192)
    # the default 0.5.23 sizes this as 0.5.21 did (no --max-running-requests: no 0.5.22 cap)
    # mem_fraction_static 0.83 (81,559 MiB: the 13,440 MiB above + 58 prefill CUDA-graph sizes
    # up to 8,192 tokens x 8 MiB = 13,904 MiB; 67,655 / 81,559 = 0.8295). start-up 400 MiB: free
    # before weights 85,045,477,376 - 419,430,400 = 84,626,046,976; weights 16,060,522,496 +
    # 64 MiB of load-time buffers = 16,127,631,360; free after 68,498,415,616.
    # held back floor(84,626,046,976 x 0.17) = 14,386,427,985; KV memory 54,111,987,631;
    # cell 32 x 8 x 256 x 2 B = 131,072: 412,841 tokens (pages of 1), pool 412,841 x 131,072 =
    # 54,111,895,552; 8,192 tokens a user = 1 GiB: 50 users.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=85_045_477_376 - 14_386_427_985,
        weights_bytes=16_127_631_360, activation_bytes=0, activation_bytes_low=0,
        activation_bytes_high=0, non_torch_bytes=400 * MIB, cuda_graph_bytes=0,
        kv_cache_bytes=54_111_895_552, kv_cache_bytes_low=54_111_895_552,
        kv_cache_bytes_high=54_111_895_552, kv_cache_tokens=412_841,
        kv_cache_tokens_low=412_841, kv_cache_tokens_high=412_841, blocks=412_841,
        block_size_tokens=1, max_model_len=8192, max_concurrency=Fraction(412_841, 8192),
        starts=True, reason=None, max_model_len_that_starts=8192)
    assert r.engine is Engine.sglang and r.engine_version == "0.5.23"
    s = r.size
    assert (s.users_per_replica, s.fits, s.kv_budget_bytes, s.usable_bytes) == (
        50, True, 54_111_895_552, 70_659_049_391)
    # reserve = what SGLang holds back; unallocated = total - weights - pool - held back
    assert s.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=16_127_631_360, kv_used_bytes=50 * GIB,
        kv_free_bytes=54_111_895_552 - 50 * GIB, reserve_bytes=14_386_427_985,
        unallocated_bytes=85_045_477_376 - 16_127_631_360 - 54_111_895_552 - 14_386_427_985)
    assert (s.request.block_size_tokens, s.request.allocation.value) == (1, "paged")
    assert [(st.label, st.formula) for st in r.steps] == FORMULAS
    assert [(st.label, st.value, st.op, st.args) for st in r.steps] == [
        ("GPU memory", 85_045_477_376, "given", ()),
        ("start-up use", 400 * MIB, "given", ()),
        ("free before weights", 84_626_046_976, "sum", ("GPU memory", "-start-up use")),
        ("weights", 16_127_631_360, "given", ()),
        ("free after weights", 68_498_415_616, "sum", ("free before weights", "-weights")),
        ("mem_fraction_static", Fraction(83, 100), "given", ()),
        ("1 - mem_fraction_static", Fraction(17, 100), "sum", (1, "-mem_fraction_static")),
        ("held back", 14_386_427_985, "mul", ("free before weights", "1 - mem_fraction_static")),
        ("KV cache memory", 54_111_987_631, "sum", ("free after weights", "-held back")),
        ("KV bytes per token per layer", 4096, "given", ()),
        ("cached layers", 32, "given", ()),
        ("cell size", 131_072, "mul", ("KV bytes per token per layer", "cached layers")),
        ("tokens (raw)", 412_841, "div", ("KV cache memory", "cell size")),
        ("tokens (>= 0)", 412_841, "max", ("tokens (raw)", 0)),
        ("page size", 1, "given", ()),
        ("pages", 412_841, "div", ("tokens (>= 0)", "page size")),
        ("max_total_num_tokens", 412_841, "mul", ("pages", "page size")),
        ("maximum concurrency", Fraction(412_841, 8192), "ratio", ("max_total_num_tokens", 8192)),
        ("KV pool", 54_111_895_552, "mul", ("max_total_num_tokens", "cell size")),
        # the request-to-token map (task h61sglreq): int(412,841 / 8,192 x 512) = 25,802 -> 4,096
        # slots, + 1 padding row; 4,097 x (8,192 + 4) x 4 B = 134,316,048 B, out of the
        # 68,498,415,616 - 54,111,895,552 = 14,386,520,064 B the pool leaves
        ("request slots (max_num_reqs)", 4096, "given", ()),
        ("request-to-token rows", 4097, "sum", ("request slots (max_num_reqs)", 1)),
        ("request-to-token columns", 8196, "sum", (8192, 4)),
        ("request-to-token map", 134_316_048, "mul",
         ("request-to-token rows", "request-to-token columns", 4)),
        ("left after the KV pool", 14_386_520_064, "sum", ("free after weights", "-KV pool")),
        ("left after the map", 14_252_204_016, "sum",
         ("left after the KV pool", "-request-to-token map")),
        ("KV bytes per sequence", GIB, "given", ()),
        ("users per replica", 50, "div", ("KV pool", "KV bytes per sequence")),
        ("GPUs per replica", 1, "given", ()),
        ("users per GPU", 50, "ratio", ("users per replica", "GPUs per replica")),
    ]
    assert r.assumptions == (
        "SGLang 0.5.23: mem_fraction_static 0.83 of the memory free at start-up",
        "token pool (1-token pages), fp16 cache, every layer full-length",
        "default mem_fraction_static: 60-90 GiB (H100, A100) tier of SGLang 0.5.20-0.5.23: "
        "chunked_prefill_size 8,192, cuda_graph_max_bs 256 (0.5.20, 0.5.21, 0.5.22, 0.5.23 "
        "wheels, arg_groups/memory_hook.py handle_gpu_memory_settings; sglang PR #37898)",
        "default mem_fraction_static: prefill CUDA graphs: 8 MiB per captured size",
    )
    # K size = tokens x cell / 2 / 2^30 = 25.20 ("GB" in SGLang's log is GiB)
    assert r.log_lines == (
        "KV Cache is allocated. #tokens: 412841, K size: 25.20 GB, V size: 25.20 GB",
        "max_total_num_tokens=412841")


def test_qwen3_moe_tp2_on_l40s_with_048_in_every_field():
    r = sglang("qwen3-30b-a3b", "l40s", 32768, "0.4.8", tp=2)
    # fraction 0.767 (46,068 MiB at tp 2, above). start-up with TP 900 MiB: free before
    # 47,803,596,800 - 943,718,400 = 46,859,878,400; weights 30,532,122,624 x 2 B / 2 + 290 MiB
    # = 30,836,209,664; free after 16,023,668,736; held back floor(46,859,878,400 x 0.233) =
    # 10,918,351,667; KV 5,105,317,069; cell 48 layers x 2 heads x 256 x 2 B = 49,152:
    # 103,867 tokens, pool 5,105,270,784; a 32,768 user 1,610,612,736 B: 3 users.
    assert numbers(r) == dict(
        memory_bytes=47_803_596_800, requested_bytes=47_803_596_800 - 10_918_351_667,
        weights_bytes=30_836_209_664, activation_bytes=0, activation_bytes_low=0,
        activation_bytes_high=0, non_torch_bytes=900 * MIB, cuda_graph_bytes=0,
        kv_cache_bytes=5_105_270_784, kv_cache_bytes_low=5_105_270_784,
        kv_cache_bytes_high=5_105_270_784, kv_cache_tokens=103_867,
        kv_cache_tokens_low=103_867, kv_cache_tokens_high=103_867, blocks=103_867,
        block_size_tokens=1, max_model_len=32768, max_concurrency=Fraction(103_867, 32768),
        starts=True, reason=None, max_model_len_that_starts=40960)
    assert r.size.users_per_replica == 3
    by_label = {st.label: st for st in r.steps}
    assert by_label["weights"].formula == (
        "30,532,122,624 params x 16 bits / 2 GPU(s) + 0.28 GiB of load-time buffers")
    assert by_label["mem_fraction_static"].formula == (
        "SGLang 0.4.8 default for tp 2 on 46,068 MiB: 35-90 GiB (H100, A100) tier of SGLang "
        "0.4.8-0.5.2")
    assert (by_label["GPUs per replica"].formula, by_label["users per GPU"].value) == (
        "tp 2 x pp 1", Fraction(3, 2))
    assert r.assumptions[0] == (
        "SGLang 0.4.8: mem_fraction_static 0.767 of the memory free at start-up")
    assert r.log_lines[0] == (
        "KV Cache is allocated. #tokens: 103867, K size: 2.38 GB, V size: 2.38 GB")


def test_free_memory_before_the_weights_and_measured_weights_from_a_log():
    r = sglang("llama-3-8b", "h100", 8192, "0.4.3",
               measured=Measured(free_before_load_bytes=78 * GIB, weights_bytes=15 * GIB))
    # 0.4.3 at tp 1: 0.88. free before 78 GiB = 83,751,862,272 (start-up 85,045,477,376 - that
    # = 1,293,615,104); measured weights 15 GiB, no load-time buffers added: free after
    # 67,645,734,912; held back floor(83,751,862,272 x 0.12) = 10,050,223,472; KV
    # 57,595,511,440 -> 439,418 tokens, pool 57,595,396,096, 53 users.
    assert (r.non_torch_bytes, r.weights_bytes, r.kv_cache_tokens, r.kv_cache_bytes) == (
        1_293_615_104, 15 * GIB, 439_418, 57_595_396_096)
    assert (r.requested_bytes, r.size.users_per_replica) == (
        85_045_477_376 - 10_050_223_472, 53)
    assert [(st.label, st.value, st.formula) for st in r.steps[:3]] == [
        ("GPU memory", 85_045_477_376, "device total"),
        ("free before weights", 78 * GIB, "measured (log: Load weight begin. avail mem)"),
        ("weights", 15 * GIB, "measured (log)"),
    ]
    assert r.steps[4].formula == (
        "SGLang 0.4.3 default for tp 1 on 81,559 MiB: by TP alone (releases before 0.4.6)")


def test_free_memory_after_the_weights_from_a_log():
    r = sglang("llama-3-8b", "h100", 8192,
               measured=Measured(memory_bytes=80 * GIB, free_after_load_bytes=62 * GIB))
    # free before = the log's 62 GiB + modelled weights 16,127,631,360 = 82,699,624,448;
    # start-up 80 GiB - that = 3,199,721,472. held back floor(82,699,624,448 x 0.17) =
    # 14,058,936,156; KV 62 GiB - 14,058,936,156 = 52,513,056,932 -> 400,642 tokens, 48 users.
    assert (r.memory_bytes, r.non_torch_bytes, r.kv_cache_tokens, r.kv_cache_bytes) == (
        80 * GIB, 3_199_721_472, 400_642, 400_642 * 131_072)
    assert (r.requested_bytes, r.size.users_per_replica) == (80 * GIB - 14_058_936_156, 48)
    assert [(st.label, st.value, st.op, st.formula) for st in r.steps[:6]] == [
        ("GPU memory", 80 * GIB, "given", "device total"),
        ("free after weights (log)", 62 * GIB, "given",
         "measured (log: Load weight end. avail mem)"),
        ("weights (modelled)", 16_127_631_360, "given",
         "parameters x weight bytes / GPUs + load-time buffers"),
        ("free before weights", 82_699_624_448, "sum", "free after weights + weights"),
        ("weights", 16_127_631_360, "given",
         "8,030,261,248 params x 16 bits / 1 GPU(s) + 0.06 GiB of load-time buffers"),
        ("free after weights", 62 * GIB, "given", "measured (log: Load weight end. avail mem)"),
    ]
    assert {st.label: st.value for st in r.steps}["KV cache memory"] == 52_513_056_932


def test_pages_that_round_the_pool_down_and_a_stated_fraction():
    r = sglang("llama-3-8b", "h100", 8192, page_size_tokens=64,
               memory_fraction=Fraction(81, 100))
    # held back floor(84,626,046,976 x 0.19) = 16,078,948,925; KV 68,498,415,616 - that =
    # 52,419,466,691 -> 399,928 tokens -> 6,248 whole 64-token pages = 399,872 tokens;
    # pool 399,872 x 131,072 = 52,412,022,784; 48 users.
    assert (r.kv_cache_tokens, r.blocks, r.block_size_tokens, r.kv_cache_bytes) == (
        399_872, 6_248, 64, 52_412_022_784)
    assert r.size.users_per_replica == 48
    by_label = {st.label: st for st in r.steps}
    assert (by_label["tokens (raw)"].value, by_label["pages"].value) == (399_928, 6_248)
    assert (by_label["mem_fraction_static"].value, by_label["mem_fraction_static"].formula) == (
        Fraction(81, 100), "flag")
    assert by_label["KV bytes per sequence"].formula == (
        "8,192 tokens, paged in 64-token blocks, every cached layer on this GPU")
    assert r.assumptions == (
        "SGLang 0.5.23: mem_fraction_static 0.81 of the memory free at start-up",
        "token pool (64-token pages), fp16 cache, every layer full-length",
    )


def test_max_total_tokens_and_max_running_requests_cap_the_pool_and_the_users():
    r = sglang("llama-3-8b", "h100", 8192, max_tokens=300_000, max_running_requests=20,
               memory_fraction=Fraction(8, 10), chunked_prefill_size=4096)
    # held back floor(84,626,046,976 x 0.2) = 16,925,209,395; KV 51,573,206,221 -> 393,472
    # tokens, capped at --max-total-tokens 300,000: pool 300,000 x 131,072 = 39,321,600,000;
    # 36 users of 1 GiB, capped at --max-running-requests 20 (20 GiB used)
    assert (r.kv_cache_tokens, r.blocks, r.kv_cache_bytes, r.max_concurrency) == (
        300_000, 300_000, 39_321_600_000, Fraction(300_000, 8192))
    assert (r.size.users_per_replica, r.size.breakdown.kv_used_bytes) == (20, 20 * GIB)
    assert r.size.breakdown.kv_free_bytes == 39_321_600_000 - 20 * GIB
    by_label = {st.label: st for st in r.steps}
    capped = by_label["max_total_num_tokens (capped)"]
    assert (capped.value, capped.op, capped.args, capped.formula) == (
        300_000, "min", ("max_total_num_tokens", 300_000), "--max-total-tokens")
    assert by_label["maximum concurrency"].args == ("max_total_num_tokens (capped)", 8192)
    assert by_label["KV pool"].args == ("max_total_num_tokens (capped)", "cell size")
    assert r.assumptions[2:] == (
        "--chunked-prefill-size / --cuda-graph-max-bs do not move the pool here "
        "(mem_fraction_static is stated, or SGLang before 0.5.3 derives it from TP and the GPU "
        "only)",
        "users capped at --max-running-requests 20",
    )
    assert r.log_lines == (
        "KV Cache is allocated. #tokens: 300000, K size: 18.31 GB, V size: 18.31 GB",
        "max_total_num_tokens=300000")


def test_caps_above_the_pool_change_nothing():
    # 412,841 tokens and 50 users by default (above): caps at exactly those leave them (a
    # --max-total-tokens above the 8,192-token chunk leaves the prefill graph sizes as they are).
    # SGLang 0.5.21: from 0.5.22 a --max-running-requests below the tier's 256 also caps the
    # decode graph batch and moves the default fraction (tests/engines/test_sglang_0523.py)
    r = sglang("llama-3-8b", "h100", 8192, "0.5.21", max_tokens=412_841, max_running_requests=50)
    assert (r.kv_cache_tokens, r.size.users_per_replica) == (412_841, 50)
    assert "max_total_num_tokens (capped)" not in {st.label for st in r.steps}
    assert len(r.assumptions) == 4  # version, pool, the GPU tier, the prefill graphs


def test_before_05_a_stated_chunk_does_not_move_the_pool():
    r = sglang("llama-3-8b", "h100", 8192, "0.4.8", chunked_prefill_size=2048)
    # 0.4.8 on 81,559 MiB: (9.5 + 0.5) x 1,024 reserved: 0.874, whatever the chunk
    assert r.steps[5].value == Fraction(874, 1000)
    assert r.assumptions[-1].startswith("--chunked-prefill-size / --cuda-graph-max-bs do not move")


def test_a_70b_on_one_h100_does_not_start_on_a_newer_release():
    r = sglang("llama-3.1-70b", "h100", 8192, "0.6.0", cuda_graph_max_bs=64)
    # 0.6.0 modelled as 0.5.23 (a stated --cuda-graph-max-bs: no 0.5.22 cap):
    # 512 + 12,288 + 2 x 64 + 128 + 58 prefill graph sizes x 8 =
    # 13,520 MiB: (81,559 - 13,520) / 81,559 = 0.834. weights 141,107,412,992 + 64 MiB =
    # 141,174,521,856; free after 84,626,046,976 - that = -56,548,474,880; held back
    # floor(84,626,046,976 x 0.166) = 14,047,923,798; KV -70,596,398,678 (-65.75 GiB):
    # floor(KV / (80 x 4,096 = 327,680)) = -215,444 tokens, then 0.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=85_045_477_376 - 14_047_923_798,
        weights_bytes=141_174_521_856, activation_bytes=0, activation_bytes_low=0,
        activation_bytes_high=0, non_torch_bytes=400 * MIB, cuda_graph_bytes=0,
        kv_cache_bytes=0, kv_cache_bytes_low=0, kv_cache_bytes_high=0, kv_cache_tokens=0,
        kv_cache_tokens_low=0, kv_cache_tokens_high=0, blocks=0, block_size_tokens=1,
        max_model_len=8192, max_concurrency=Fraction(0), starts=False,
        reason="SGLang would not start: not enough memory for the KV cache (-65.75 GiB); raise "
               "--mem-fraction-static or add GPUs",
        max_model_len_that_starts=0)
    assert_weights_overflow(r, 85_045_477_376, 141_174_521_856)
    by_label = {st.label: st for st in r.steps}
    assert by_label["KV cache memory"].value == -70_596_398_678
    assert (by_label["tokens (raw)"].value, by_label["tokens (>= 0)"].value) == (-215_444, 0)
    assert by_label["users per replica"].formula == "the engine does not start"
    assert r.assumptions[2:] == (
        "SGLang 0.6.0 is newer than the newest modelled release (0.5.23): modelled as 0.5.23",
        "default mem_fraction_static: 60-90 GiB (H100, A100) tier of SGLang 0.5.20-0.5.23: "
        "chunked_prefill_size 8,192, cuda_graph_max_bs 64 stated (the tier's 256) (0.5.20, 0.5.21, "
        "0.5.22, 0.5.23 wheels, arg_groups/memory_hook.py handle_gpu_memory_settings; sglang PR "
        "#37898)",
        "default mem_fraction_static: prefill CUDA graphs: 8 MiB per captured size",
        "--chunked-prefill-size / --cuda-graph-max-bs enter the default mem_fraction_static's "
        "reserved memory",
    )
