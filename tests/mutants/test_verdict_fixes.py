"""The check verdict's fixes (kvplan/check/fixes.py) by hand arithmetic: every fix with the
value it proposes, ranked config first, then hardware by cost. The facts used throughout are in
verdict_setup.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from kvplan.check import verdict as v
from kvplan.check.verdict import Setup, evaluate, fixes
from kvplan.specs import load_model
from kvplan.traffic.plan import Traffic
from kvplan.units import GIB, MIB, DType
from tests.mutants.verdict_setup import A100, GB10, H100, H200, MI300X, NVL, req, setup

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
