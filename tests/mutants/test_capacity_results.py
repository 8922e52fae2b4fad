"""kvplan.capacity in full: every field of a result that does not fit, the stated-budget edge,
the notes, the advice, the bottleneck's ties and the longest context that fits.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/capacity.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from kvplan.capacity import SizeRequest, size
from kvplan.capacity.kv import Allocation, StageCache, sequences_bytes
from kvplan.capacity.plan import Breakdown, fleet
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB, DType

H100 = load_hardware("h100")
LLAMA = load_model("llama-3-8b")
PLAIN_NOTES = (
    "KV cache in fp16 (16 bits per value)",
    "weights in bf16, split over 1 GPU(s)",
    "paged: each sequence holds 8,192 tokens in blocks of 16 tokens (rounded up)",
    "KV budget = memory x 0.9 - weights - 2 GiB reserve for activations and the CUDA context",
)


def test_a_70b_on_one_h100_does_not_fit_in_every_field():
    # weights 70,553,706,496 x 2 B = 141,107,412,992 B; usable floor(0.9 x 85,045,477,376) =
    # 76,540,929,638 B: 64,566,483,354 B short before the 2 GiB reserve, 66,713,967,002 after
    # (62.13 GiB). KV: 80 layers x 2 x 8 x 128 x 2 B = 327,680 B/token; 8,192 tokens: 2,684,354,560
    r = size(SizeRequest(model=load_model("llama-3.1-70b"), gpu=H100, context_tokens=8192))
    assert (r.fits, r.users_per_replica, r.kv_budget_bytes, r.shared_prefix_bytes) == (False, 0, 0, 0)
    assert r.weights_bytes == 141_107_412_992 and r.usable_bytes == 76_540_929_638
    assert r.kv_bytes_per_token == r.kv_bytes_per_token_beyond_window == 327_680
    assert r.kv_bytes_per_sequence == 2_684_354_560
    assert r.kv_bytes_per_sequence_reserved == r.kv_bytes_per_sequence_paged == 2_684_354_560
    # the reserve is the 2 GiB the reason counts (task h101left; until then max(0, min(2 GiB,
    # usable - weights)) = 0); unallocated 85,045,477,376 - 141,107,412,992 - 2,147,483,648
    assert r.breakdown == Breakdown(total_bytes=85_045_477_376, weights_bytes=141_107_412_992,
                                    kv_used_bytes=0, kv_free_bytes=0, reserve_bytes=2_147_483_648,
                                    unallocated_bytes=-58_209_419_264)
    assert r.reason == ("weights need 131.42 GiB per GPU and the reserve 2 GiB, but only 71.28 GiB "
                        "of h100-sxm-80gb's memory is usable at 0.9 utilization: 62.13 GiB short")
    assert r.assumptions == PLAIN_NOTES
    assert r.max_context_that_fits is None


def test_breakdown_parts_are_named_as_the_json_keys():
    b = Breakdown(total_bytes=15, weights_bytes=1, kv_used_bytes=2, kv_free_bytes=3,
                  reserve_bytes=4, unallocated_bytes=5)
    assert b.parts() == {"weights_bytes": 1, "kv_used_bytes": 2, "kv_free_bytes": 3,
                         "reserve_bytes": 4, "unallocated_bytes": 5}


def test_a_pool_for_less_than_one_sequence():
    # 0.75 GiB = 805,306,368 B stated; one 8,192-token sequence needs 1 GiB; the longest that fits
    # is 805,306,368 / 131,072 = 6,144 tokens (384 whole blocks)
    r = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=3 * GIB // 4))
    assert (r.fits, r.users_per_replica, r.max_context_that_fits) == (False, 0, 6_144)
    assert r.reason == ("one sequence of 8,192 tokens needs 1 GiB of cache but the pool is 768 MiB; "
                        "the longest context that fits is 6,144 tokens")
    # stated budget: no reserve; unallocated = 85,045,477,376 - 16,060,522,496 - 805,306,368
    assert r.breakdown == Breakdown(total_bytes=85_045_477_376, weights_bytes=16_060_522_496,
                                    kv_used_bytes=0, kv_free_bytes=805_306_368, reserve_bytes=0,
                                    unallocated_bytes=68_179_648_512)


@pytest.mark.parametrize(("allocation", "longest"), [
    # 0.3 GiB = 322,122,547 B: 2,457.6 tokens of 131,072 B; paged: 153 whole blocks = 2,448
    (Allocation.paged, 2_448),
    (Allocation.reserved, 2_457),
])
def test_longest_context_that_fits(allocation: Allocation, longest: int):
    r = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, allocation=allocation,
                         kv_budget_bytes=int(GIB * 0.3)))
    assert r.max_context_that_fits == longest


def test_no_context_fits_under_one_block():
    # 0.001 GiB = 1,073,741 B < one 16-token block (2,097,152 B): nothing fits
    r = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=1_073_741))
    assert r.max_context_that_fits == 0 and r.users_per_replica == 0


def test_a_stated_budget_up_to_the_whole_gpu():
    # 85,045,477,376 - 16,060,522,496 = 68,984,954,880 B: everything after the weights
    whole = 68_984_954_880
    r = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=whole))
    assert r.breakdown.unallocated_bytes == 0 and r.breakdown.reserve_bytes == 0
    assert r.users_per_replica == 64  # 68,984,954,880 // 1,073,741,824 = 64.2
    with pytest.raises(InputError, match="exceeds h100-sxm-80gb's"):
        size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=whole + 1))


def test_notes_for_int4_reserved_prefix_and_replicated_heads():
    r = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_dtype=DType.int4,
                         allocation=Allocation.reserved, shared_prefix_tokens=100, tp=16,
                         nodes=2))
    assert r.assumptions == (
        "KV cache in int4 (4 bits per value)",
        "weights in bf16, split over 16 GPU(s)",
        "int4 cache carries one fp16 scale per 64 values",
        "reserved: every sequence sets aside its full 8,192 tokens",
        "KV budget = memory x 0.9 - weights - 2 GiB reserve for activations and the CUDA context",
        "shared prefix ignored: reserved allocation copies it per sequence",
        "tp exceeds the KV heads: each GPU holds one replicated KV head",
    )
    # reserved: the prefix is copied per sequence, so nothing is charged once
    assert r.shared_prefix_bytes == 0


def test_notes_for_a_stated_budget_shared_prefix_and_window():
    r = size(SizeRequest(model=load_model("mistral-7b-v0.1"), gpu=H100, context_tokens=8192,
                         avg_context_tokens=1000, shared_prefix_tokens=100, kv_budget_bytes=GIB))
    assert r.assumptions == (
        "KV cache in fp16 (16 bits per value)",
        "weights in bf16, split over 1 GPU(s)",
        "paged: each sequence holds 1,000 tokens in blocks of 16 tokens (rounded up)",
        "KV budget stated directly (--kv-budget-gib); reserve not applied",
        "shared prefix: whole blocks stored once per replica on full-attention layers",
        "sliding-window layers hold at most 4,096 tokens",
    )


def test_no_replicated_head_note_when_tp_equals_the_heads():
    r = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, tp=8))
    assert r.assumptions[-1] == PLAIN_NOTES[-1]
    # MLA keeps one latent per rank: no replicated-head note at TP 16 (two 8-GPU servers)
    mla = size(SizeRequest(model=load_model("deepseek-v2-lite"), gpu=H100, context_tokens=8192,
                           tp=16, nodes=2))
    assert not any("replicated" in note for note in mla.assumptions)


def test_paged_shared_prefix_is_charged_once():
    # llama-3-8b, 2,000 tokens each, 100-token prefix -> 96 tokens (6 whole blocks) shared:
    # prefix bytes 96 x 131,072 = 12,582,912; per sequence (2,000 - 96) x 131,072 = 249,561,088
    # users = (58,332,923,494 - 12,582,912) // 249,561,088 = 233 (233.69)
    r = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, avg_context_tokens=2000,
                         shared_prefix_tokens=100))
    assert r.shared_prefix_bytes == 12_582_912
    assert r.kv_bytes_per_sequence == 249_561_088
    assert r.users_per_replica == 233
    assert r.breakdown.kv_used_bytes == 233 * 249_561_088 + 12_582_912


def test_a_prefix_larger_than_the_pool_holds_nobody():
    # 8,000-token prefix (500 blocks): 1,048,576,000 B against a 0.5 GiB pool: room is negative
    r = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, shared_prefix_tokens=8000,
                         kv_budget_bytes=GIB // 2))
    assert r.users_per_replica == 0 and not r.fits
    assert r.shared_prefix_bytes == 1_048_576_000
    assert r.breakdown.kv_used_bytes == 0


def test_pipeline_stages_tied_on_users_report_the_fuller_one():
    # DeepSeek-V3 PP 2, bf16 latent 576 x 2 B = 1,152 B per layer; 4,096 tokens: stage 0 (31
    # layers) 146,276,352 B, stage 1 (30 layers) 141,557,760 B. A 0.2 GiB pool (214,748,364 B)
    # holds one sequence on either stage: the tie reports stage 0's bytes.
    r = size(SizeRequest(model=load_model("deepseek-v3"), gpu=load_hardware("h200"),
                         context_tokens=4096, tp=8, pp=2, kv_budget_bytes=int(GIB * 0.2)))
    assert r.users_per_replica == 1
    assert r.kv_bytes_per_sequence == 146_276_352


def test_sequences_bytes_defaults_to_no_shared_prefix():
    stage = StageCache(layers=2, full_layers=2, sliding_layers=0, linear_layers=0,
                       full_bytes_per_token=100, sliding_bytes_per_token=0,
                       state_bytes_per_sequence=7)
    # paged, 16-token blocks: 20 tokens -> 32 x 100 + 7; reserved: 20 x 100 + 7
    assert sequences_bytes(stage, LLAMA, [20], Allocation.paged, 16) == [3_207]
    assert sequences_bytes(stage, LLAMA, [20, 1], Allocation.reserved, 16) == [2_007, 107]


@pytest.mark.parametrize(("args", "tips"), [
    # 0.75 GiB stated: TP 2 halves the heads (4 x 256 x 2 B x 32 = 65,536 B/token x 8,192 =
    # 512 MiB: 1 user); an fp8 cache is 512 MiB too; 6,144 tokens fit (see above)
    (("llama-3-8b", "--gpu", "h100", "--context", "8192", "--kv-budget-gib", "0.75"),
     ["--tp 2: 1 users per replica of 2 GPUs", "--kv-dtype fp8: 1 users per replica of 1 GPU(s)",
      "--context 6144: fits one sequence"]),
    # 405B on H100, TP 16: weights 405,853,388,800 x 2 / 16 = 50,731,673,600; pool 76,540,929,638
    # - 50,731,673,600 - 2,147,483,648 = 23,661,772,390; 126 layers x 2 x 1 head x 256 B x 8,192
    # = 528,482,304 per sequence: 44 users (TP 8: 101.5 GB of weights per GPU, no room)
    (("llama-3.1-405b", "--gpu", "h100", "--context", "8192"),
     ["--tp 16 --nodes 2: 44 users per replica of 16 GPUs"]),
    # on H200, TP 8: 135,098,892,288 - 101,463,347,200 - 2,147,483,648 = 31,488,061,440 // 528,482,304
    (("llama-3.1-405b", "--gpu", "h200", "--context", "8192"),
     ["--tp 8: 59 users per replica of 8 GPUs"]),
    # 70B on an L40S (47,803,596,800 B): TP 4: 43,023,237,120 - 35,276,853,248 - 2 GiB =
    # 5,598,900,224 // (4,096 x 80 x 2 x 2 x 128 x 2 = 335,544,320) = 16
    (("llama-3.1-70b", "--gpu", "l40s", "--context", "4096"),
     ["--tp 4: 16 users per replica of 4 GPUs", "--gpu b200: 21 users per replica of 1 GPU(s)"]),
    # 70B on H100: TP 2: 76,540,929,638 - 70,553,706,496 - 2 GiB = 3,839,739,494 //
    # 1,342,177,280 = 2; fp8 weights: same pool // 2,684,354,560 = 1; B200: 172,362,616,012 -
    # 141,107,412,992 - 2 GiB = 29,107,719,372 // 2,684,354,560 = 10
    (("llama-3.1-70b", "--gpu", "h100", "--context", "8192"),
     ["--tp 2: 2 users per replica of 2 GPUs", "--weight-dtype fp8: 1 users per replica of 1 GPU(s)",
      "--gpu b200: 10 users per replica of 1 GPU(s)"]),
])
def test_advice_when_nothing_fits(cli, args: tuple[str, ...], tips: list[str]):
    assert cli("size", *args)["suggestions"] == tips


def test_fleet_needs_a_positive_peak_and_headroom():
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192)
    assert fleet(req, 1).required_users == 1
    with pytest.raises(InputError, match="peak users must be a positive integer, got 0"):
        fleet(req, 0)
    assert fleet(req, 10, Fraction(0)).required_users == 10
    with pytest.raises(InputError, match="headroom must not be negative"):
        fleet(req, 10, Fraction(-1, 10))
    # 54 users per H100 at 8,192 tokens: ceil(100 / 54) = 2 replicas of 1 GPU
    f = fleet(req, 100)
    assert (f.replicas, f.gpus_needed) == (2, 2)


def test_a_fitting_result_has_no_reason_and_both_allocations():
    # chatbot: 2,000 of 8,192 tokens. reserved 8,192 x 131,072 = 1,073,741,824;
    # paged 2,000 x 131,072 = 262,144,000; 58,332,923,494 // 262,144,000 = 222 users
    r = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, avg_context_tokens=2000))
    assert (r.reason, r.max_context_that_fits, r.fits, r.users_per_replica) == (None, None, True, 222)
    assert r.kv_bytes_per_sequence_reserved == 1_073_741_824
    assert r.kv_bytes_per_sequence_paged == r.kv_bytes_per_sequence == 262_144_000
    assert r.reserved_waste_bytes_per_sequence == 811_597_824
    assert r.breakdown.kv_used_bytes == 222 * 262_144_000
    assert r.breakdown.kv_free_bytes == 58_332_923_494 - 222 * 262_144_000


def test_a_result_that_does_not_fit_still_reports_both_allocations():
    # 70B on one H100, 2,000 of 8,192 tokens: reserved 8,192 x 327,680 = 2,684,354,560;
    # paged 2,000 x 327,680 = 655,360,000
    r = size(SizeRequest(model=load_model("llama-3.1-70b"), gpu=H100, context_tokens=8192,
                         avg_context_tokens=2000))
    assert r.kv_bytes_per_sequence_reserved == 2_684_354_560
    assert r.kv_bytes_per_sequence_paged == r.kv_bytes_per_sequence == 655_360_000


@pytest.mark.parametrize(("reserve_less", "budget", "why"), [
    # reserve = usable - weights = 76,540,929,638 - 16,060,522,496 = 60,480,407,142: pool 0 B,
    # so the weights and the reserve leave nothing
    (0, 0, "weights need 14.96 GiB per GPU"),
    # one byte less reserve: a 1 B pool, which holds no sequence
    (1, 1, "one sequence of 8,192 tokens needs 1 GiB of cache but the pool is 1 B"),
])
def test_pool_of_zero_and_one_byte(reserve_less: int, budget: int, why: str):
    r = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192,
                         reserve_bytes=60_480_407_142 - reserve_less))
    assert r.kv_budget_bytes == budget and r.users_per_replica == 0
    assert r.reason is not None and r.reason.startswith(why)


def test_the_reason_counts_the_prefix_once():
    # 8,000-token prefix (1,048,576,000 B) + 192 own tokens (12 blocks, 25,165,824 B) = 1 GiB
    # against 512 MiB; without a prefix 512 MiB holds 4,096 tokens
    r = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, shared_prefix_tokens=8000,
                         kv_budget_bytes=GIB // 2))
    assert r.reason == ("one sequence of 8,192 tokens needs 1 GiB of cache but the pool is 512 MiB; "
                        "the longest context that fits is 4,096 tokens")


def test_advice_survives_a_sizer_that_refuses():
    from kvplan.capacity.plan import advise

    def refuse(req: SizeRequest):  # noqa: ANN202
        raise InputError("no")

    r = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=3 * GIB // 4))
    # every variant is refused (0 users): only the longest context is left to suggest
    assert advise(r, [load_hardware("h200")], refuse).suggestions == (
        "--context 6144: fits one sequence",)


@pytest.mark.parametrize(("tokens", "window", "sliding", "allocation", "held"), [
    (5000, 4096, True, Allocation.paged, 4096),  # a sliding layer keeps the window (256 blocks)
    (5000, 4096, False, Allocation.paged, 5008),  # a full layer keeps all: ceil(5,000/16) x 16
    (5000, None, True, Allocation.reserved, 5000),  # no window: everything
    (100, 4096, True, Allocation.reserved, 100),  # under the window
    (4097, 4096, True, Allocation.reserved, 4096),
    (17, None, False, Allocation.paged, 32),  # two blocks
    (16, None, False, Allocation.paged, 16),
])
def test_held_tokens(tokens: int, window: int | None, sliding: bool, allocation: Allocation,
                     held: int):
    from kvplan.capacity.kv import held_tokens

    assert held_tokens(tokens, window, sliding, allocation, 16) == held


def test_longest_context_against_a_scan():
    # reserved Llama-3-8B: a budget of b bytes holds min(8,192, b // 131,072) tokens; the search
    # must land on exactly that for every budget, whatever path its bisection takes
    for k in range(0, 8192, 61):
        for extra in (0, 1, 131_071):
            budget = k * 131_072 + extra
            if budget == 0:
                continue
            r = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192,
                                 allocation=Allocation.reserved, kv_budget_bytes=budget))
            if r.users_per_replica == 0:
                assert r.max_context_that_fits == k, budget
