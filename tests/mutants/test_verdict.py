"""The check verdict (kvplan/check/verdict.py, numbers.py) by hand arithmetic: the deciding
numbers, each reason's sentence, a deployment file judged end to end. Every fix with the value it
proposes is in test_verdict_fixes.py, the traffic basis in test_verdict_traffic.py (split by task
h42hygiene from one 697-line module); the facts used throughout are in verdict_setup.py.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kvplan.capacity import SizeRequest
from kvplan.check import numbers as check_numbers
from kvplan.check.verdict import Setup, evaluate, judge
from kvplan.deploy import load_deployment
from kvplan.engines import Engine, EngineSettings
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB, MIB
from tests.mutants.verdict_setup import H200, POOL_H100, SEQ, req, setup

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
