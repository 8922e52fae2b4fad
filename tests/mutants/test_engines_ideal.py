"""The `ideal` profile in full: the plain arithmetic (usable = memory x utilization, KV = usable -
weights - reserve, whole blocks) with its explain steps, for the default, a stated fraction at
PP 2, a stated budget and a budget shorter than one sequence. Each number is worked by hand.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/ideal.py.
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.capacity import SizeRequest
from kvplan.capacity.plan import Breakdown
from kvplan.engines import Engine, EngineResult, EngineSettings, run_engine, verify_steps
from kvplan.specs import load_hardware, load_model
from tests.mutants.engine_runs import GIB, numbers

NOTES = ("KV cache in fp16 (16 bits per value)", "weights in bf16, split over 1 GPU(s)",
         "paged: each sequence holds 8,192 tokens in blocks of 16 tokens (rounded up)")


def ideal(ctx: int = 8192, fraction: Fraction | None = None, **kw: object) -> EngineResult:
    req = SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("h100"),
                      context_tokens=ctx, **kw)  # type: ignore[arg-type]
    r = run_engine(req, EngineSettings(engine=Engine.ideal, memory_fraction=fraction))
    assert verify_steps(r.steps) == []
    return r


def test_llama3_8b_on_one_h100_in_every_field():
    r = ideal()
    # usable floor(85,045,477,376 x 0.9) = 76,540,929,638; KV 76,540,929,638 - 16,060,522,496
    # - 2 GiB = 58,332,923,494; block 16 x 131,072 = 2,097,152: 27,815 blocks, 445,040 tokens;
    # 445,040 / 8,192 = 54.32x; users 58,332,923,494 // 1 GiB = 54.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=76_540_929_638,
        weights_bytes=16_060_522_496, activation_bytes=2 * GIB, activation_bytes_low=2 * GIB,
        activation_bytes_high=2 * GIB, non_torch_bytes=0, cuda_graph_bytes=0,
        kv_cache_bytes=58_332_923_494, kv_cache_bytes_low=58_332_923_494,
        kv_cache_bytes_high=58_332_923_494, kv_cache_tokens=445_040,
        kv_cache_tokens_low=445_040, kv_cache_tokens_high=445_040, blocks=27_815,
        block_size_tokens=16, max_model_len=8192, max_concurrency=Fraction(445_040, 8192),
        starts=True, reason=None, max_model_len_that_starts=8192)
    assert (r.engine, r.engine_version, r.log_lines) == (Engine.ideal, "-", ())
    assert r.size.users_per_replica == 54
    assert r.size.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=16_060_522_496, kv_used_bytes=54 * GIB,
        kv_free_bytes=58_332_923_494 - 54 * GIB, reserve_bytes=2 * GIB,
        unallocated_bytes=85_045_477_376 - 76_540_929_638)
    assert [(st.label, st.value, st.unit, st.op, st.args, st.formula) for st in r.steps] == [
        ("GPU memory", 85_045_477_376, "bytes", "given", (), "h100-sxm-80gb total memory"),
        ("memory utilization", Fraction(9, 10), "ratio", "given", (), "--memory-utilization"),
        ("usable memory", 76_540_929_638, "bytes", "mul", ("GPU memory", "memory utilization"),
         "floor(GPU memory x utilization)"),
        ("weights", 16_060_522_496, "bytes", "given", (),
         "8,030,261,248 params x 16 bits / 1 GPU(s)"),
        ("reserve", 2 * GIB, "bytes", "given", (), "activations + CUDA context (--reserve-gib)"),
        ("KV pool (raw)", 58_332_923_494, "bytes", "sum", ("usable memory", "-weights",
                                                          "-reserve"),
         "usable - weights - reserve"),
        ("KV pool", 58_332_923_494, "bytes", "max", ("KV pool (raw)", 0), "never below 0"),
        ("block size", 16, "tokens", "given", (), "--block-size"),
        ("KV bytes per token", 131_072, "bytes", "given", (), "every cached layer on this GPU"),
        ("bytes per block", 2_097_152, "bytes", "mul", ("block size", "KV bytes per token"),
         "block size x KV bytes per token"),
        ("blocks", 27_815, "blocks", "div", ("KV pool", "bytes per block"),
         "floor(KV pool / bytes per block)"),
        ("KV cache tokens", 445_040, "tokens", "mul", ("blocks", "block size"),
         "blocks x block size"),
        ("KV bytes per sequence", GIB, "bytes", "given", (),
         "8,192 tokens, paged in 16-token blocks, every cached layer on this GPU"),
        ("users per replica", 54, "users", "div", ("KV pool", "KV bytes per sequence"),
         "floor(KV pool / KV bytes per sequence)"),
        ("GPUs per replica", 1, "GPUs", "given", (), "tp 1 x pp 1"),
        ("users per GPU", 54, "users", "ratio", ("users per replica", "GPUs per replica"),
         "users per replica / GPUs per replica"),
    ]
    assert r.assumptions == (*NOTES, "KV budget = memory x 0.9 - weights - 2 GiB reserve for "
                             "activations and the CUDA context")


def test_a_stated_fraction_at_pp2():
    r = ideal(fraction=Fraction(1, 2), pp=2)
    # usable floor(85,045,477,376 / 2) = 42,522,738,688; weights 16,060,522,496 / 2; KV
    # 42,522,738,688 - 8,030,261,248 - 2 GiB = 32,344,993,792; a stage holds 16 layers:
    # 65,536 B a token, 1,048,576 a block: 30,846 blocks, 493,536 tokens; a user 8,192 x 65,536
    # = 536,870,912: 60 users on the tightest stage.
    assert (r.requested_bytes, r.weights_bytes, r.kv_cache_bytes, r.blocks,
            r.kv_cache_tokens) == (42_522_738_688, 8_030_261_248, 32_344_993_792, 30_846,
                                   493_536)
    assert r.size.users_per_replica == 60
    by_label = {st.label: st for st in r.steps}
    assert by_label["memory utilization"].value == Fraction(1, 2)
    assert by_label["weights"].formula == "8,030,261,248 params x 16 bits / 2 GPU(s)"
    assert (by_label["users per replica"].value, by_label["users per replica"].op,
            by_label["users per replica"].formula) == (60, "given", "the tightest pipeline stage")
    assert (by_label["GPUs per replica"].formula, by_label["users per GPU"].value) == (
        "tp 1 x pp 2", 30)


def test_a_stated_budget():
    r = ideal(kv_budget_bytes=10 * GIB)
    # 10 GiB: 5,120 blocks, 81,920 tokens, 10 users; no reserve
    assert (r.kv_cache_bytes, r.blocks, r.kv_cache_tokens, r.max_concurrency,
            r.activation_bytes) == (10 * GIB, 5120, 81_920, 10, 0)
    assert r.size.users_per_replica == 10
    assert [(st.label, st.value, st.formula) for st in r.steps[:2]] == [
        ("GPU memory", 85_045_477_376, "h100-sxm-80gb total memory"),
        ("KV pool", 10 * GIB, "stated (--kv-budget-gib)"),
    ]
    assert r.assumptions[-1] == "KV budget stated directly (--kv-budget-gib); reserve not applied"


def test_a_budget_shorter_than_one_sequence():
    r = ideal(kv_budget_bytes=GIB // 2)
    # 512 MiB: 256 blocks = 4,096 tokens: one 8,192-token sequence (1 GiB) does not fit
    assert (r.starts, r.blocks, r.kv_cache_tokens, r.max_concurrency,
            r.max_model_len_that_starts) == (False, 256, 4096, Fraction(1, 2), 4096)
    assert r.reason == ("one sequence of 8,192 tokens needs 1 GiB of cache but the pool is "
                        "512 MiB; the longest context that fits is 4,096 tokens")
    by_label = {st.label: st for st in r.steps}
    assert (by_label["users per replica"].value, by_label["users per replica"].formula) == (
        0, "the engine does not start")
