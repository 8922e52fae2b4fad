"""The check verdict (kvplan/check/verdict.py, numbers.py, fixes.py) by hand arithmetic: the
deciding numbers, each reason's sentence, and every fix with the value it proposes.

Facts used throughout (model_specs/llama-3-8b.yaml, hardware_specs/*.yaml):
- Llama-3-8B: 32 layers x 2 (K, V) x 8 KV heads x 128 x 2 B (fp16) = 131,072 B per token, so an
  8,192-token sequence is 512 blocks of 16 = 1 GiB; fp8 halves it (512 MiB); TP 2 holds 4 heads a
  rank (512 MiB a GPU), TP 8 one head (16,384 B per token, 128 MiB a GPU).
- its weights: 8,030,261,248 params x 2 B (bf16) = 16,060,522,496 B on one GPU.
- H100 SXM: 85,045,477,376 B, $3.78/h; usable at 0.9 = floor(76,540,929,638.4) = 76,540,929,638;
  pool = usable - weights - 2 GiB reserve = 76,540,929,638 - 16,060,522,496 - 2,147,483,648
  = 58,332,923,494 B -> 54 sequences of 1 GiB (54.33).
- H100 NVL: 99,861,594,112 B, no price; usable floor(89,875,434,700.8) = 89,875,434,700; pool
  89,875,434,700 - 16,060,522,496 - 2,147,483,648 = 71,667,428,556 -> 66 sequences (66.75).
- A100 80GB: 85,100,068,864 B, no fp8; usable 76,590,061,977; pool 58,382,055,833 -> 54.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from kvplan.capacity import SizeRequest
from kvplan.check import numbers as check_numbers
from kvplan.check import verdict as v
from kvplan.check.verdict import Setup, evaluate, fixes, judge
from kvplan.deploy import load_deployment
from kvplan.engines import Engine, EngineSettings
from kvplan.specs import load_hardware, load_model
from kvplan.traffic.lengths import Empirical
from kvplan.traffic.plan import Traffic
from kvplan.units import GIB, MIB, DType

LLAMA = load_model("llama-3-8b")
H100 = load_hardware("h100")
NVL = load_hardware("h100-nvl")
A100 = load_hardware("a100-80gb")
H200 = load_hardware("h200")
GB10 = load_hardware("gb10")
MI300X = load_hardware("mi300x")
SEQ = GIB  # one 8,192-token fp16 sequence of Llama-3-8B on one GPU
POOL_H100 = 58_332_923_494  # 54 sequences


def req(**kw: object) -> SizeRequest:
    base = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192)
    return replace(base, **kw)  # type: ignore[arg-type]


def setup(gpus: int = 1, **kw: object) -> Setup:
    extra = {k: kw.pop(k) for k in ("max_num_seqs", "engines_per_unit", "engine", "traffic")
             if k in kw}
    return Setup(gpus, req(**kw), **extra)  # type: ignore[arg-type]


# --- evaluate: the numbers


def test_a_passing_deployment_field_by_field():
    # a stated 2.5 GiB pool holds 2 sequences of 1 GiB; 3 GPUs at TP 1: 3 replicas x 2 = 6 >= 5
    n = evaluate(setup(3, kv_budget_bytes=5 * GIB // 2), 5, None)
    assert n.passes and n.reasons == ()
    assert (n.users_held, n.users_required, n.would_start) == (6, 5, True)
    assert (n.replicas, n.gpus, n.gpus_per_replica, n.idle_gpus) == (3, 3, 1, 0)
    assert (n.users_per_replica, n.kv_users_per_replica) == (2, 2)
    assert (n.kv_pool_bytes, n.max_sequence_bytes) == (5 * GIB // 2, SEQ)
    assert (n.limited_by, n.p95_tokens, n.max_model_len) == ("kv_cache", None, 8192)
    assert n.longest_context_tokens is None and n.traffic is None
    assert n.p95_beyond_model is False


def test_idle_gpus_and_replicas_at_tp_2():
    # 5 GPUs at TP 2: 2 replicas, 1 GPU idle; a replica's pool (2.5 GiB a GPU) holds 512 MiB
    # sequences: 5 of them; 2 x 5 = 10 held
    n = evaluate(setup(5, tp=2, kv_budget_bytes=5 * GIB // 2), 10, None)
    assert (n.replicas, n.idle_gpus, n.gpus_per_replica) == (2, 1, 2)
    assert (n.users_per_replica, n.users_held, n.max_sequence_bytes) == (5, 10, 512 * MIB)
    assert n.passes


def test_one_user_short_fails_with_the_count():
    n = evaluate(setup(3, kv_budget_bytes=5 * GIB // 2), 7, None)
    assert n.users_held == 6 and not n.passes
    assert n.reasons == ("holds 6 users, 7 required",)


def test_a_pool_smaller_than_one_sequence_would_not_start():
    # 512 MiB holds 4,096 tokens (256 blocks x 16 x 131,072 B = 512 MiB), not 8,192
    n = evaluate(setup(4, kv_budget_bytes=512 * MIB), 1, None)
    assert (n.would_start, n.users_held, n.users_per_replica) == (False, 0, 0)
    assert n.longest_context_tokens == 4096
    assert n.kv_pool_bytes == 512 * MIB and n.max_sequence_bytes == SEQ
    assert n.reasons == (
        "would not start: one 8,192-token sequence needs 1 GiB of KV cache per GPU, the pool "
        "is 512 MiB (longest that fits: 4,096 tokens)",
        "holds 0 users, 1 required",
    )


def test_weights_that_do_not_fit_are_the_limit():
    # Llama-3.1-70B bf16 on one H100: 141 GB of weights > 76.5 GB usable: no pool at all
    seventy = load_model("llama-3.1-70b")
    n = evaluate(Setup(1, req(model=seventy)), 1, None)
    assert (n.would_start, n.limited_by, n.kv_pool_bytes, n.users_held) == (False, "weights", 0, 0)
    assert n.reasons[0].startswith("would not start: weights need ")
    assert n.reasons[1] == "holds 0 users, 1 required"
    assert n.longest_context_tokens is None


def test_the_max_num_seqs_cap_binds_and_says_so():
    # the pool holds 2; max_num_seqs 1 caps a replica at 1: 3 GPUs hold 3 < 5
    n = evaluate(setup(3, kv_budget_bytes=5 * GIB // 2, max_num_seqs=1), 5, None)
    assert (n.users_per_replica, n.kv_users_per_replica, n.limited_by) == (1, 2, "max_num_seqs")
    assert n.reasons == ("holds 3 users, 5 required",
                         "max_num_seqs caps each replica at 1 sequences; its KV pool holds 2")


def test_a_cap_above_the_pool_does_not_bind():
    n = evaluate(setup(3, kv_budget_bytes=5 * GIB // 2, max_num_seqs=2), 6, None)
    assert (n.users_per_replica, n.limited_by, n.passes) == (2, "kv_cache", True)


def test_a_p95_longer_than_max_model_len():
    # max_model_len 4,096 (512 MiB a sequence: 5 in 2.5 GiB) passes on users, fails on the p95
    n = evaluate(setup(1, context_tokens=4096, kv_budget_bytes=5 * GIB // 2), 5, 6000)
    assert n.users_held == 5 and n.p95_tokens == 6000 and not n.p95_beyond_model
    assert n.reasons == ("p95 conversation (6,000 tokens) is longer than max_model_len (4,096)",)
    assert n.longest_context_tokens == 8192  # the model's own limit


def test_a_p95_beyond_the_model():
    n = evaluate(setup(1, kv_budget_bytes=5 * GIB // 2), 1, 9000)
    assert n.p95_beyond_model
    assert n.reasons == (
        "p95 conversation (9,000 tokens) is longer than max_model_len (8,192); it is beyond "
        "llama-3-8b's max_context_tokens (8,192), so no max_model_len can hold it: those "
        "conversations are cut, or a model with a longer context is needed",)


def test_a_p95_at_max_model_len_passes():
    n = evaluate(setup(1, kv_budget_bytes=5 * GIB // 2), 2, 8192)
    assert n.passes and not n.p95_beyond_model  # 8,192 is the model's own limit, not beyond it


def test_a_one_byte_pool():
    # a stated pool of 1 B: no sequence, the cache (not the weights) is the limit
    n = evaluate(setup(1, kv_budget_bytes=1), 1, None)
    assert (n.limited_by, n.kv_pool_bytes, n.longest_context_tokens) == ("kv_cache", 1, 0)
    assert n.reasons[0] == ("would not start: one 8,192-token sequence needs 1 GiB of KV cache "
                            "per GPU, the pool is 1 B (longest that fits: 0 tokens)")


def test_a_request_that_cannot_be_sized():
    # a stated 80 GiB pool and 16 GB of weights exceed the H100: sizing refuses it, so nothing
    # is held and no pool or sequence size is reported
    n = evaluate(setup(1, kv_budget_bytes=80 * GIB), 1, None)
    assert (n.would_start, n.users_held, n.kv_users_per_replica) == (False, 0, 0)
    assert (n.kv_pool_bytes, n.max_sequence_bytes) == (0, 0)
    assert n.reasons == ("holds 0 users, 1 required",)


def test_the_start_check_sizes_one_sequence_alone_with_one_token_blocks():
    # with one-token blocks the start check's lone sequence holds all 8,192 tokens itself:
    # 8,192 x 131,072 = 1 GiB (no token of it shared)
    n = evaluate(setup(1, kv_budget_bytes=5 * GIB // 2, block_size_tokens=1,
                       avg_context_tokens=2048), 1, None)
    assert n.max_sequence_bytes == SEQ


def test_the_start_check_goes_through_the_engine():
    # Llama-3.1-8B at 30,464 tokens (131,072 B each: 3,992,977,408 B, 1,904 blocks a sequence) on
    # an A10G: vLLM's pool (4,007,592,140 B, 1,910 blocks, with the default 0.33's 14 B warm-up
    # sampler and, since task h39rope, the 32 MiB rotary cos/sin cache with the weights; 30,720
    # tokens no longer fit) holds one, the plain arithmetic's (2 GiB reserve) none; with a
    # 4,096-token mean the start check is a second sizing, through the same engine
    model, gpu = load_model("llama-3.1-8b"), load_hardware("a10g")
    r = req(model=model, gpu=gpu, context_tokens=30464, avg_context_tokens=4096)
    vllm = evaluate(Setup(1, r, engine=EngineSettings(engine=Engine.vllm)), 1, None)
    plain = evaluate(Setup(1, r), 1, None)
    assert (vllm.would_start, plain.would_start) == (True, False)
    assert vllm.max_sequence_bytes == plain.max_sequence_bytes == 30464 * 131_072


def test_start_is_judged_at_max_model_len_not_at_the_mean():
    # paged at a 2,048-token mean: 128 blocks x 16 x 131,072 = 256 MiB a sequence; the 768 MiB
    # pool holds 3 of them, but one 8,192-token sequence (1 GiB) does not fit: no start
    n = evaluate(setup(1, kv_budget_bytes=768 * MIB, avg_context_tokens=2048), 1, None)
    assert n.kv_users_per_replica == 3
    assert (n.would_start, n.users_held, n.max_sequence_bytes) == (False, 0, SEQ)
    assert n.longest_context_tokens == 6144  # 768 MiB / 128 KiB
    # a 1.25 GiB pool starts one full sequence, and holds 5 at the mean
    n = evaluate(setup(1, kv_budget_bytes=5 * GIB // 4, avg_context_tokens=2048), 5, None)
    assert (n.would_start, n.users_held, n.max_sequence_bytes) == (True, 5, SEQ)


def test_a_shared_prefix_is_left_out_of_the_start_check():
    # 4,096 shared tokens (256 blocks, 512 MiB stored once) in a 1.25 GiB pool leave 768 MiB:
    # not one 1 GiB sequence; the start check takes a sequence alone (1 GiB <= 1.25 GiB)
    n = evaluate(setup(1, kv_budget_bytes=5 * GIB // 4, shared_prefix_tokens=4096), 1, None)
    assert n.would_start and n.max_sequence_bytes == SEQ
    assert n.kv_users_per_replica == 1  # (1.25 GiB - 512 MiB) // (1 GiB - 512 MiB) = 1


def test_derived_pool_on_an_h100():
    n = evaluate(Setup(2, req()), 100, None)
    assert (n.kv_pool_bytes, n.users_per_replica, n.users_held) == (POOL_H100, 54, 108)


# --- fixes, each with the value it proposes


def test_every_fix_ranked_config_first_then_hardware_by_cost():
    # 60 required on one H100 (54 held): fp8 halves a sequence (108 held); max_model_len: a
    # sequence <= 58,332,923,494 / 60 = 972,215,391 B = 7,417.4 tokens, paged in 16s: 7,408
    # (463 blocks = 970,981,376 B; 7,409 takes 464 blocks = 973,078,528 B > the share);
    # more GPUs: ceil(60 / 54) = 2 at $3.78 each (cost 2.0); a bigger GPU: the A100 holds 54
    # (no), the NVL 66 (yes), cost by memory 99,861,594,112 / 85,045,477,376 (no NVL price);
    # the MI300X is AMD and the GB10 unified memory: never offered
    found = fixes(Setup(1, req()), 60, None, [MI300X, GB10, A100, NVL])
    assert [f.change for f in found] == ["fp8_kv_cache", "max_model_len", "bigger_gpu",
                                        "more_gpus"]
    fp8, mml, bigger, more = found
    assert (fp8.old, fp8.new, fp8.cost) == ({"kv_cache_dtype": "fp16"}, {"kv_cache_dtype": "fp8"},
                                            (0, 0.0))
    assert fp8.numbers.users_held == 108 and fp8.numbers.passes
    assert (mml.old, mml.new, mml.cost) == ({"max_model_len": 8192}, {"max_model_len": 7408},
                                            (0, 1.0))
    assert mml.numbers.users_held == 60 and mml.numbers.max_model_len == 7408
    assert (bigger.old, bigger.new) == ({"gpu": "h100-sxm-80gb"}, {"gpu": "h100-nvl-94gb"})
    assert bigger.cost == (1, pytest.approx(99_861_594_112 / 85_045_477_376))
    assert bigger.numbers.users_held == 66
    assert (more.old, more.new, more.cost) == ({"gpus": 1}, {"gpus": 2}, (1, 2.0))
    assert more.numbers.users_held == 108 and more.numbers.replicas == 2


def test_a_bigger_gpu_priced_on_both_is_costed_by_price():
    # the H200 (150,109,880,320 B, $3.50/h) for the H100 ($3.78/h): 3.50 / 3.78; the GB10 is
    # skipped although bigger (unified memory), so the H200 is the one offered
    (bigger,) = [f for f in fixes(Setup(1, req()), 60, None, [GB10, H200])
                 if f.change == "bigger_gpu"]
    assert bigger.new == {"gpu": "h200-141gb"}
    assert bigger.cost == (1, pytest.approx(3.50 / 3.78))


def test_a_priced_gpu_comes_before_a_smaller_unpriced_one():
    # from a priced H100, an unpriced bigger GPU (costed by memory) is offered only when no
    # priced one passes: the H200 ($3.50/h) wins over a 100 GB part with no price, although the
    # latter is smaller (price and memory ratios do not rank against each other)
    unpriced = H200.model_copy(update={"name": "no-price-100gb", "memory_bytes": 100 * 10**9,
                                       "price_per_hour_usd": None})
    (bigger,) = [f for f in fixes(Setup(1, req()), 60, None, [unpriced, H200])
                 if f.change == "bigger_gpu"]
    assert bigger.new == {"gpu": "h200-141gb"} and bigger.cost == (1, pytest.approx(3.50 / 3.78))
    (alone,) = [f for f in fixes(Setup(1, req()), 60, None, [unpriced]) if f.change == "bigger_gpu"]
    assert alone.new == {"gpu": "no-price-100gb"}
    assert alone.cost == (1, pytest.approx(100 * 10**9 / 85_045_477_376))
    # from an unpriced GPU, memory alone orders them: the smaller passing one first
    base = req(gpu=H100.model_copy(update={"price_per_hour_usd": None}))
    (first,) = [f for f in fixes(Setup(1, base), 60, None, [H200, unpriced]) if f.change == "bigger_gpu"]
    assert first.new == {"gpu": "no-price-100gb"}


def test_a_unified_memory_part_may_replace_another():
    # a unified-memory part is refused only in place of a discrete one
    gb10_req = req(gpu=GB10)
    spark = GB10.model_copy(update={"name": "gb10-bigger", "memory_bytes": 2 * 130_602_405_888})
    # at a count the bigger part holds: GB10 pool 0.9 x 130,602,405,888 = 117,542,165,299 -
    # 16,060,522,496 - 2 GiB = 99,334,159,155 -> 92 sequences; twice the memory: 0.9 x
    # 261,204,811,776 = 235,084,330,598 - 18,208,006,144 = 216,876,324,454 -> 201
    (bigger,) = [f for f in fixes(Setup(1, gb10_req), 150, None, [spark]) if f.change == "bigger_gpu"]
    assert bigger.new == {"gpu": "gb10-bigger"} and bigger.numbers.users_held == 201


def test_no_fp8_fix_on_a_gpu_without_fp8_nor_on_an_fp8_cache():
    assert v._fp8_cache(Setup(1, req(gpu=A100)), 60, None) is None
    assert v._fp8_cache(Setup(1, req(kv_dtype=DType.fp8)), 200, None) is None
    # fp8 that still falls short is no fix: 108 < 200
    assert v._fp8_cache(Setup(1, req()), 200, None) is None


def test_more_gpus_keeps_tp_and_adds_replicas():
    # 2.5 GiB pools hold 2; 5 required: ceil(5 / 2) = 3 GPUs
    f = v._more_gpus(setup(1, kv_budget_bytes=5 * GIB // 2), 5, None)
    assert f is not None and (f.old, f.new) == ({"gpus": 1}, {"gpus": 3})
    assert f.numbers.users_held == 6 and f.cost == (1, 3.0)


def test_more_gpus_is_no_fix_when_the_count_already_suffices():
    # a p95 beyond max_model_len fails at any count: more GPUs is not what helps
    assert v._more_gpus(setup(4, kv_budget_bytes=5 * GIB // 2), 5, 9000) is None


def test_wider_tp_only_when_a_replica_cannot_start():
    # a 768 MiB pool cannot start a 1 GiB sequence at TP 1. TP 2 (512 MiB a GPU): 1 a replica,
    # 2 replicas = 4 GPUs for 2 users; TP 4 (256 MiB): 3 a replica, one replica = 4 GPUs (a tie,
    # the narrower kept); TP 8 (128 MiB): 6, one replica = 8 GPUs
    f = v._more_gpus(setup(1, kv_budget_bytes=768 * MIB), 2, None)
    assert f is not None
    assert (f.old, f.new) == ({"gpus": 1, "tp": 1}, {"gpus": 4, "tp": 2})
    assert f.numbers.users_held == 2 and f.cost == (1, 4.0)
    # 3 required: TP 2 needs 3 replicas (6 GPUs), TP 4 one (4 GPUs): TP 4 wins
    f = v._more_gpus(setup(1, kv_budget_bytes=768 * MIB), 3, None)
    assert f is not None and f.new == {"gpus": 4, "tp": 4}


def test_a_wider_tp_on_the_gpus_already_there():
    # 4 GPUs that cannot start at TP 1 (768 MiB pools) hold 2 users at TP 2 on the same 4
    f = v._more_gpus(setup(4, kv_budget_bytes=768 * MIB), 2, None)
    assert f is not None and (f.old, f.new) == ({"gpus": 4, "tp": 1}, {"gpus": 4, "tp": 2})


def test_no_count_of_gpus_meets_an_slo_no_batch_reaches():
    # 10,000 tokens/s a user: even one user's step (16 GB of weights at 3.35 TB/s) is too slow,
    # so a replica holds 0 conversations and no number of GPUs passes
    t = Traffic(peak_users=1, min_tokens_per_s_per_user=Fraction(10_000))
    s = Setup(1, req(), traffic=t)
    n = evaluate(s, 1, None)
    assert (n.would_start, n.users_per_replica, n.limited_by) == (True, 0, "slo")
    assert v._gpus_for(s, 1, None) is None and v._more_gpus(s, 1, None) is None


def test_data_parallel_units_are_added_whole():
    # engines of 2 pods go together: 5 required, 2 a GPU: 3 replicas -> 2 units of 2 = 4 GPUs
    f = v._more_gpus(setup(2, kv_budget_bytes=5 * GIB // 2, engines_per_unit=2), 5, None)
    assert f is not None and f.new == {"gpus": 4} and f.numbers.users_held == 8


def test_tp_options_are_the_powers_of_two_vllm_accepts():
    assert v._tp_options(Setup(1, req())) == [1, 2, 4, 8]
    assert v._tp_options(Setup(1, req(tp=2))) == [2, 4, 8]
    # phi-4: 40 heads, 10 KV heads: TP 1 and 2 (2 divides 10); 4 and 8 divide neither 40/10 way
    phi4 = load_model("phi-4")
    assert v._tp_options(Setup(1, req(model=phi4, context_tokens=4096))) == [1, 2]


def test_tp_options_fall_back_to_the_request():
    phi4 = load_model("phi-4")
    assert v._tp_options(Setup(1, req(model=phi4, context_tokens=4096, tp=16))) == [16]


def test_max_num_seqs_raised_to_the_smallest_that_passes():
    # pool 2.5 GiB holds 2; cap 1; 2 GPUs; 4 required: wanted min(ceil(4 / 2), 2) = 2
    f = v._max_num_seqs(setup(2, kv_budget_bytes=5 * GIB // 2, max_num_seqs=1), 4, None)
    assert f is not None and f.change == "max_num_seqs"
    assert (f.old, f.new, f.cost) == ({"max_num_seqs": 1}, {"max_num_seqs": 2}, (0, 0.5))
    assert f.numbers.users_held == 4
    # 3 required: ceil(3 / 2) = 2 as well (not 1: 2 x 1 < 3)
    f = v._max_num_seqs(setup(2, kv_budget_bytes=5 * GIB // 2, max_num_seqs=1), 3, None)
    assert f is not None and f.new == {"max_num_seqs": 2}


def test_max_num_seqs_is_no_fix_past_the_pool_or_without_a_binding_cap():
    # 5 required from 2 replicas of 2: the pool itself is short
    assert v._max_num_seqs(setup(2, kv_budget_bytes=5 * GIB // 2, max_num_seqs=1), 5, None) is None
    assert v._max_num_seqs(setup(2, kv_budget_bytes=5 * GIB // 2), 4, None) is None
    # a cap that does not bind (2 = the pool)
    assert v._max_num_seqs(setup(2, kv_budget_bytes=5 * GIB // 2, max_num_seqs=2), 5, None) is None
    # no replica at all: 1 GPU at TP 2
    assert v._max_num_seqs(setup(1, tp=2, kv_budget_bytes=5 * GIB // 2, max_num_seqs=1), 1,
                           None) is None
    # raising to what the pool holds still fails on a p95 beyond the model
    assert v._max_num_seqs(setup(2, kv_budget_bytes=5 * GIB // 2, max_num_seqs=1), 4,
                           9000) is None


def test_max_model_len_shortened_to_the_longest_that_passes():
    # 5 in a 2.5 GiB pool: <= 512 MiB a sequence = 4,096 tokens exactly (256 blocks)
    f = v._max_model_len(setup(1, kv_budget_bytes=5 * GIB // 2), 5, None)
    assert f is not None and f.new == {"max_model_len": 4096} and f.old == {"max_model_len": 8192}
    assert f.numbers.users_held == 5
    # not below the p95: a p95 of 5,000 tokens leaves no room (5,000 > 4,096)
    assert v._max_model_len(setup(1, kv_budget_bytes=5 * GIB // 2), 5, 5000) is None
    # at the p95 itself: 4 users of 5,008 tokens (313 blocks) fit 2.5 GiB
    f = v._max_model_len(setup(1, kv_budget_bytes=5 * GIB // 2), 4, 5000)
    assert f is not None and f.new == {"max_model_len": 5120}  # 320 blocks x 4 = 1,280 <= 1,280
    assert f.numbers.p95_tokens == 5000  # the fix's numbers are judged with the p95


def test_max_model_len_not_below_the_mean_nor_the_shared_prefix():
    # the mean 6,000 is a floor: 5 users need <= 4,096 tokens each: no fix
    assert v._max_model_len(setup(1, kv_budget_bytes=5 * GIB // 2, avg_context_tokens=6000), 5,
                            None) is None
    # 8,000 shared tokens (500 blocks, 1,048,576,000 B stored once) leave 1,635,778,560 B of
    # the 2.5 GiB pool; at 8,192 a sequence adds 12 blocks (25,165,824 B): 65 users. 780 users
    # need one block (2 MiB) each: 1,635,778,560 / 2,097,152 = 780 exactly, max_model_len
    # 8,016 (501 blocks); 781 would need a sequence of no block at all, below the floor of
    # prefix + 1 = 8,001 tokens: no fix
    prefix = setup(1, kv_budget_bytes=5 * GIB // 2, shared_prefix_tokens=8000)
    assert evaluate(prefix, 1, None).kv_users_per_replica == 65
    f = v._max_model_len(prefix, 780, None)
    assert f is not None and f.new == {"max_model_len": 8016} and f.numbers.users_held == 780
    assert v._max_model_len(prefix, 781, None) is None
    # 66 users: <= 1,635,778,560 / 66 = 24,784,523 B, 11 blocks past the prefix: 511 x 16 = 8,176
    f = v._max_model_len(prefix, 66, None)
    assert f is not None and f.new == {"max_model_len": 8176}


def test_max_model_len_down_to_just_past_the_prefix():
    # 7,999 shared tokens store 499 whole blocks (7,984 tokens, 1,046,478,848 B) once; the pool
    # keeps 2.5 GiB - that = 1,637,875,712 B = 781 x 2 MiB. max_model_len 8,000 leaves one
    # block (2 MiB) a sequence: 781 users; 8,001 needs two: 390. The floor is the prefix + 1
    f = v._max_model_len(setup(1, kv_budget_bytes=5 * GIB // 2, shared_prefix_tokens=7999), 781,
                         None)
    assert f is not None and f.new == {"max_model_len": 8000} and f.numbers.users_held == 781


def test_max_model_len_one_token_short():
    # one-token blocks, a pool of two 8,191-token sequences: 8,192 holds 1 (2 x 8,191 / 8,192),
    # 8,191 holds 2
    f = v._max_model_len(setup(1, kv_budget_bytes=2 * 8191 * 131_072, block_size_tokens=1), 2,
                         None)
    assert f is not None and f.new == {"max_model_len": 8191}


def test_max_model_len_down_to_one_token():
    # one-token blocks, a 1 MiB pool: 8 sequences of 1 token (131,072 B each), 4 of 2 tokens
    f = v._max_model_len(setup(1, kv_budget_bytes=MIB, block_size_tokens=1), 8, None)
    assert f is not None and f.new == {"max_model_len": 1} and f.numbers.users_held == 8


def test_no_max_num_seqs_fix_that_the_p95_still_fails():
    # raising the cap to the pool's 2 would hold 4, but the p95 beyond max_model_len still fails
    found = fixes(setup(2, kv_budget_bytes=5 * GIB // 2, max_num_seqs=1), 4, 9000, [])
    assert "max_num_seqs" not in [f.change for f in found]


def test_a_gpu_of_the_same_memory_is_no_bigger_gpu():
    # an H100 on 4-GPU nodes cannot run TP 8 without a node count (no size: 0 users); the same
    # memory on 8-GPU nodes would, but it is not a bigger GPU
    four = H100.model_copy(update={"gpus_per_node": 4})
    twin = H100.model_copy(update={"name": "h100-eight"})
    s = Setup(8, req(gpu=four, tp=8, kv_budget_bytes=5 * GIB // 2))
    assert not evaluate(s, 1, None).passes
    assert v._bigger_gpu(s, 1, None, [twin]) is None
    bigger = twin.model_copy(update={"name": "h100-bigger", "memory_bytes": H100.memory_bytes + 1})
    f = v._bigger_gpu(s, 1, None, [twin, bigger])
    assert f is not None and f.new == {"gpu": "h100-bigger"} and f.numbers.passes


def test_max_model_len_lengthened_to_the_p95():
    # max_model_len 4,096, p95 6,000: 6,000 tokens = 375 blocks = 750 MiB; 2.5 GiB holds 3
    f = v._max_model_len(setup(1, context_tokens=4096, kv_budget_bytes=5 * GIB // 2), 3, 6000)
    assert f is not None
    assert (f.old, f.new, f.cost) == ({"max_model_len": 4096}, {"max_model_len": 6000}, (0, 1.0))
    assert f.numbers.users_held == 3
    # 4 required: 3 < 4 at the p95, no fix
    assert v._max_model_len(setup(1, context_tokens=4096, kv_budget_bytes=5 * GIB // 2), 4,
                            6000) is None
    # a p95 beyond the model: no max_model_len holds it
    assert v._max_model_len(setup(1, context_tokens=4096, kv_budget_bytes=5 * GIB // 2), 1,
                            9000) is None


def test_fp8_and_wider_tp_combined_when_nothing_alone_passes():
    # a 100 MiB pool: fp16 needs 128 MiB a GPU even at TP 8 (one head a rank): never starts.
    # fp8 at TP 8: 64 MiB, 1 a replica; 2 required: 2 replicas = 16 GPUs. The p95 at 8,192
    # keeps max_model_len; the stated pool makes no GPU bigger
    found = fixes(setup(1, kv_budget_bytes=100 * MIB), 2, 8192, [H200])
    assert len(found) == 1
    (f,) = found
    assert f.change == "combined"
    assert f.old == {"gpus": 1, "tp": 1, "kv_cache_dtype": "fp16"}
    assert f.new == {"gpus": 16, "tp": 8, "kv_cache_dtype": "fp8"}
    assert f.cost == (1, 16.0) and f.numbers.users_held == 2


def test_no_combined_fix_without_fp8():
    assert fixes(setup(1, gpu=A100, kv_budget_bytes=100 * MIB), 2, 8192, [H200]) == ()


def test_relative_cost_falls_back_to_memory_when_a_price_is_missing():
    s = Setup(2, req())
    assert v._relative_cost(s, H100, 4) == pytest.approx(2.0)  # $3.78 x 4 / ($3.78 x 2)
    assert v._relative_cost(s, NVL, 2) == pytest.approx(99_861_594_112 / 85_045_477_376)
    nvl = Setup(2, req(gpu=NVL))
    assert v._relative_cost(nvl, H100, 2) == pytest.approx(85_045_477_376 / 99_861_594_112)
    assert v._hourly(H100, 3) == pytest.approx(11.34) and v._hourly(NVL, 3) is None


# --- the traffic basis: what `kvplan fleet` plans, computed here by hand


def test_traffic_without_spread_plans_the_mean():
    # every conversation at 8,192 tokens: a replica holds 54; risk is certain (point mass)
    t = Traffic(peak_users=100)
    n = evaluate(Setup(2, req(), traffic=t), 110, None)
    assert n.traffic is not None
    b = n.traffic
    assert (b.users_at_mean, b.users_at_risk, b.users_planned) == (54, 54, 54)
    assert (b.binding, b.users_slo, b.slo_tokens_per_s, b.risk) == ("overflow_risk", None, None,
                                                                    0.01)
    assert (n.users_per_replica, n.users_held, n.limited_by) == (54, 108, "overflow_risk")
    assert n.reasons == ("holds 108 users, 110 required",
                         "at 1.00% overflow risk a replica holds 54 conversations (54 if every "
                         "one had the mean length)")


def test_an_slo_caps_the_replica():
    # decode at 50 tokens/s a user on an H100 (3.35e12 B/s): a step may read 3.35e12 / 50 =
    # 67,000,000,000 B; the weights take 16,060,522,496, each sequence 1 GiB at 8,192 tokens:
    # floor(50,939,477,504 / 1,073,741,824) = 47 users (47.44) < 54 in memory
    t = Traffic(peak_users=100, min_tokens_per_s_per_user=Fraction(50))
    n = evaluate(Setup(2, req(), traffic=t), 100, None)
    b = n.traffic
    assert b is not None
    assert (b.users_slo, b.slo_tokens_per_s, b.binding, b.users_planned) == (47, 50.0, "slo", 47)
    assert b.users_at_risk == 54
    assert (n.users_per_replica, n.users_held, n.limited_by) == (47, 94, "slo")
    assert n.reasons == ("holds 94 users, 100 required",
                         "the 50 tokens/s per user SLO caps a replica at 47 conversations "
                         "(memory holds 54 at 1.00% risk)")


def test_a_spread_is_planned_at_its_risk_against_a_binomial():
    # half the conversations 4,096 tokens (512 MiB), half 8,192 (1 GiB); the mean 6,144.
    # pool 2.5 GiB = 5 x 512 MiB: n conversations of which k long need (n + k) x 512 MiB.
    # n = 3: overflow iff k = 3 (P 1/8); n = 2 never overflows (at most 2 GiB); so at 20% risk
    # a replica holds 3, at 10% holds 2. At the mean (768 MiB) the pool holds 3.
    lengths = Empirical((4096, 8192))
    for risk, users in ((0.2, 3), (0.1, 2)):
        t = Traffic(peak_users=10, lengths=lengths, risk=risk)
        n = evaluate(Setup(4, req(kv_budget_bytes=5 * GIB // 2), traffic=t), 10, None)
        b = n.traffic
        assert b is not None and (b.users_at_risk, b.users_at_mean, b.risk) == (users, 3, risk)
        assert b.risk_method == "exact" and b.users_planned == users
        assert n.users_held == 4 * users


def test_a_deployment_that_cannot_start_is_not_planned_by_traffic():
    n = evaluate(setup(1, kv_budget_bytes=512 * MIB, traffic=Traffic(peak_users=1)), 1, None)
    assert n.traffic is None and n.users_held == 0 and not n.would_start


def test_plans_are_cached_per_request_not_shared_across_them():
    # the same traffic for two pools in one process: each gets its own plan
    t = Traffic(peak_users=10, lengths=Empirical((4096, 8192)), risk=0.2)
    small = evaluate(Setup(1, req(kv_budget_bytes=5 * GIB // 2), traffic=t), 1, None)
    big = evaluate(Setup(1, req(kv_budget_bytes=5 * GIB), traffic=t), 1, None)
    # 5 GiB = 10 x 512 MiB: n + k <= 10; n = 7 overflows iff k >= 4 (P 35/128 = 27%), n = 6
    # iff k >= 5 (7/64 = 11%): 6 at 20% risk
    assert small.traffic is not None and big.traffic is not None
    assert (small.traffic.users_at_risk, big.traffic.users_at_risk) == (3, 6)
    # and asked again, the cached plan gives the same answer
    again = evaluate(Setup(1, req(kv_budget_bytes=5 * GIB // 2), traffic=t), 1, None)
    assert again.traffic == small.traffic


def test_lattices_are_not_shared_across_models():
    # the same traffic for two models: Llama-3-8B (131,072 B a token: 2,048 tokens = 256 MiB,
    # 4,096 = 512 MiB) and Llama-2-7B (524,288 B a token: 1 GiB and 2 GiB), max_model_len 4,096,
    # a 2.5 GiB pool, half the conversations of each length. Llama-3: n + k <= 10 (256 MiB
    # units, k long): 6 at 20% risk (as above). Llama-2: one always fits (2 GiB), two overflow
    # unless both short (P 3/4): 1
    t = Traffic(peak_users=10, lengths=Empirical((2048, 4096)), risk=0.2)
    three = evaluate(Setup(1, req(context_tokens=4096, kv_budget_bytes=5 * GIB // 2), traffic=t),
                     1, None)
    two = evaluate(Setup(1, req(model=load_model("llama-2-7b"), context_tokens=4096,
                                kv_budget_bytes=5 * GIB // 2), traffic=t), 1, None)
    assert three.traffic is not None and two.traffic is not None
    assert (three.traffic.users_at_risk, two.traffic.users_at_risk) == (6, 1)


def test_the_cache_of_plans_is_bounded():
    t = Traffic(peak_users=10, lengths=Empirical((4096, 8192)), risk=0.2)
    v._PLANS.clear()
    v._PLANS.update({("filler", i): None for i in range(4096)})
    evaluate(Setup(1, req(kv_budget_bytes=5 * GIB // 2), traffic=t), 1, None)
    assert len(v._PLANS) == 4097  # 4,096 is not past the bound
    evaluate(Setup(1, req(kv_budget_bytes=5 * GIB), traffic=t), 1, None)
    assert len(v._PLANS) == 1  # past it: cleared, then this plan
    v._PLANS.clear()


def test_a_traffic_plan_through_an_engine_uses_the_engine():
    # SGLang's static pool for Llama-3-8B on an H100 is smaller than the plain arithmetic's
    # (54,534,995,968 B against 58,332,923,494: 50 sequences of 1 GiB, not 54); the traffic plan
    # and the start check both size through the engine (its own arithmetic is tested in
    # tests/engines)
    from kvplan.engines import run_engine

    engine = EngineSettings(engine=Engine.sglang)
    assert run_engine(req(), engine).size.users_per_replica == 50
    t = Traffic(peak_users=100)
    n = evaluate(Setup(2, req(), engine=engine, traffic=t), 1, None)
    assert n.traffic is not None
    assert (n.traffic.users_at_mean, n.traffic.users_planned, n.kv_users_per_replica) == (50, 50, 50)
    assert n.users_held == 100
    # and without traffic
    n = evaluate(Setup(2, req(), engine=engine), 1, None)
    assert (n.kv_users_per_replica, n.users_held) == (50, 100)


def test_the_model_key_is_one_spec_s_json():
    v._MODEL_KEYS.clear()  # (a process may have keyed it already)
    key = v._model_key(LLAMA)
    assert key == LLAMA.model_dump_json()
    assert v._model_key(LLAMA) is key  # serialised once
    other = load_model("mistral-7b-v0.1")
    assert v._model_key(other) == other.model_dump_json() != key


def test_the_model_keys_are_bounded():
    v._MODEL_KEYS.clear()
    v._MODEL_KEYS.update({-i: (None, "") for i in range(1, 4097)})  # 4,096 other specs
    v._model_key(LLAMA)
    assert len(v._MODEL_KEYS) == 4097  # 4,096 is not past the bound
    v._model_key(load_model("mistral-7b-v0.1"))
    assert len(v._MODEL_KEYS) == 1  # past it: cleared, then this spec
    v._MODEL_KEYS.clear()


# --- judge: a deployment file end to end


def _deployment(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "dep.yaml"
    path.write_text("apiVersion: kvplan/v1\nname: judged\nmodel: llama-3-8b\n" + body)
    return path


def test_judge_a_pass_has_no_fixes(tmp_path: Path):
    planned = load_deployment(_deployment(
        tmp_path, "hardware:\n  gpu: h100\n  count: 2\nengine:\n  max_model_len: 8192\n"
        "  kv_cache_dtype: fp16\n  kv_budget_gib: 2.5\ntraffic:\n  peak_concurrent_users: 4\n"
        "  context_tokens:\n    mean: 8192\n"))
    verdict = judge(planned, 2, [H200])
    assert verdict.passes and verdict.fixes == ()
    assert (verdict.numbers.users_held, verdict.numbers.users_required) == (4, 4)


def test_judge_a_fail_lists_verified_fixes(tmp_path: Path):
    # 5 required (peak 5, no headroom) from 2 x 2: more GPUs (3), fp8 (2 x 5 = 10); no shorter
    # max_model_len (not below the 8,192-token mean), no max_num_seqs (none is set)
    planned = load_deployment(_deployment(
        tmp_path, "hardware:\n  gpu: h100\n  count: 2\nengine:\n  max_model_len: 8192\n"
        "  kv_cache_dtype: fp16\n  kv_budget_gib: 2.5\ntraffic:\n  peak_concurrent_users: 5\n"
        "  context_tokens:\n    mean: 8192\n"))
    verdict = judge(planned, 2, [H200])
    assert not verdict.passes and verdict.numbers.users_held == 4
    got = {f.change: f.new for f in verdict.fixes}
    assert got == {"fp8_kv_cache": {"kv_cache_dtype": "fp8"}, "more_gpus": {"gpus": 3}}
    assert [f.change for f in verdict.fixes] == ["fp8_kv_cache", "more_gpus"]


def test_judge_uses_the_p95_and_the_traffic(tmp_path: Path):
    # a p95 of 8,192 with a p50 of 4,096: judged by the traffic plan (a spread is stated)
    planned = load_deployment(_deployment(
        tmp_path, "hardware:\n  gpu: h100\n  count: 1\nengine:\n  max_model_len: 4096\n"
        "  kv_cache_dtype: fp16\n  kv_budget_gib: 2.5\ntraffic:\n  peak_concurrent_users: 1\n"
        "  context_tokens:\n    p50: 2048\n    p95: 8192\n"))
    verdict = judge(planned, 1, [H200])
    n = verdict.numbers
    assert n.p95_tokens == 8192 and n.traffic is not None
    assert "p95 conversation (8,192 tokens) is longer than max_model_len (4,096)" in n.reasons
    # the fix lengthens max_model_len to the p95 (8,192: 2 sequences of 1 GiB fit 2.5 GiB)
    assert {f.change: f.new for f in verdict.fixes}["max_model_len"] == {"max_model_len": 8192}


# --- evaluate: the reason a deployment would not start, said once


L4 = load_hardware("l4")
SEVENTY = load_model("llama-3.1-70b")


def test_weights_that_do_not_fit_say_would_not_start_once_with_the_plain_reason():
    # Llama-3.1-70B in bf16 on one L4: 70,553,706,496 x 2 B = 131.42 GiB of weights against
    # floor(23,570,219,008 x 0.9) = 19.76 GiB usable: the plain arithmetic's reason, prefixed once
    n = evaluate(setup(model=SEVENTY, gpu=L4), required=10, p95=None)
    assert not n.would_start
    assert n.reasons[0] == (
        "would not start: weights need 131.42 GiB per GPU and the reserve 2 GiB, but only "
        "19.76 GiB of l4's memory is usable at 0.9 utilization: 113.66 GiB short")


def test_an_engine_that_says_it_would_not_start_is_not_prefixed_again():
    # vLLM's own reason already names who would not start: no second "would not start: "
    n = evaluate(setup(model=SEVENTY, gpu=L4, engine=EngineSettings(engine=Engine.vllm)),
                 required=10, p95=None)
    assert n.reasons[0].startswith("vLLM would not start: no memory for the KV cache (")
    assert not any("would not start: vLLM" in r for r in n.reasons)


def test_a_pool_of_nothing_without_a_reason_says_no_memory_for_the_kv_cache(monkeypatch):
    # the default sentence when a profile reports an empty pool and no reason of its own
    real = check_numbers._size  # evaluate's own module: where it looks _size up

    def empty(r: SizeRequest, engine: EngineSettings | None = None):  # noqa: ANN202
        got = real(r, engine)
        return None if got is None else replace(got, kv_budget_bytes=0, users_per_replica=0,
                                                reason=None)

    monkeypatch.setattr(check_numbers, "_size", empty)
    n = evaluate(setup(), required=10, p95=None)
    assert n.reasons[0] == "would not start: no memory for the KV cache"
