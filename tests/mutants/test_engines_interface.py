"""The engines' shared interface: engine names and versions, settings checks, the explain
steps' arithmetic and its re-check, finish_size's plain result and the users steps. Each expected
value is worked by hand in the comments.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/interface.py
(and steps.py, split from it), common.py's users steps and __init__.py; the modelled weights, the
activation peak and the float32 serving are in test_engines_common.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from kvplan.capacity import SizeRequest
from kvplan.capacity.plan import Breakdown
from kvplan.engines import Engine, EngineSettings
from kvplan.engines.common import gib, users_steps
from kvplan.engines.interface import (
    Interval,
    Measured,
    Step,
    Steps,
    evaluate,
    finish_size,
    parse_engine,
    parse_version,
    verify_steps,
)
from kvplan.errors import InputError
from kvplan.specs import load_model
from kvplan.units import GIB
from tests.mutants.engine_runs import H100, LLAMA


@pytest.mark.parametrize(("text", "engine"), [
    ("vllm", Engine.vllm), (" SGLang ", Engine.sglang), ("TensorRT-LLM", Engine.trtllm),
    ("tensorrt_llm", Engine.trtllm), ("trt-llm", Engine.trtllm), ("trtllm", Engine.trtllm),
    ("HF", Engine.transformers), ("huggingface", Engine.transformers), ("ideal", Engine.ideal)])
def test_engine_names_and_aliases(text: str, engine: Engine):
    assert parse_engine(text) is engine


def test_an_unknown_engine_names_the_choices():
    with pytest.raises(InputError) as err:
        parse_engine("tgi")
    assert str(err.value) == "unknown engine 'tgi'; use one of ideal, vllm, sglang, trtllm, transformers"


@pytest.mark.parametrize(("text", "parts"), [
    (None, None), ("0.10.2", (0, 10, 2)), ("v0.8.5.dev169+g1234", (0, 8, 5)), ("V1.2", (1, 2)),
    ("1.0rc1", (1, 0)), (" 0.6.4 ", (0, 6, 4)), ("0.x.1", (0,)), ("12", (12,)),
    ("0.6.4.post1", (0, 6, 4))])
def test_versions_are_read_up_to_the_first_non_digit(text: str | None,
                                                     parts: tuple[int, ...] | None):
    assert parse_version(text) == parts


@pytest.mark.parametrize("text", ["latest", "", "v", "x0.1"])
def test_an_unreadable_version(text: str):
    with pytest.raises(InputError) as err:
        parse_version(text)
    assert str(err.value) == f"cannot read engine version {text!r}; write it like 0.10.2"


@pytest.mark.parametrize(("kw", "message"), [
    ({"max_num_batched_tokens": 0}, "max_num_batched_tokens must be a positive integer, got 0"),
    ({"max_num_seqs": -1}, "max_num_seqs must be a positive integer, got -1"),
    ({"engine": Engine.sglang, "page_size_tokens": 0}, "page size must be a positive integer, got 0"),
    ({"engine": Engine.sglang, "max_tokens": 0}, "max_tokens must be a positive integer, got 0"),
    ({"engine": Engine.vllm, "kv_cache_memory_bytes": 0},
     "kv_cache_memory_bytes must be a positive integer, got 0"),
    ({"engine": Engine.vllm, "draft_params": 0}, "draft_params must be a positive integer, got 0"),
    ({"engine": Engine.sglang, "chunked_prefill_size": 0},
     "chunked_prefill_size must be a positive integer, got 0"),
    ({"engine": Engine.sglang, "cuda_graph_max_bs": 0},
     "cuda_graph_max_bs must be a positive integer, got 0"),
    ({"engine": Engine.sglang, "max_running_requests": 0},
     "max_running_requests must be a positive integer, got 0"),
    ({"engine": Engine.trtllm, "max_batch_size": 0}, "max_batch_size must be a positive integer, got 0"),
    ({"engine": Engine.vllm, "num_speculative_tokens": 0},
     "num_speculative_tokens must be a positive integer, got 0"),
    ({"engine": Engine.vllm, "cpu_offload_bytes": -1}, "cpu_offload_bytes must be 0 or more, got -1"),
    ({"engine": Engine.vllm, "limit_mm_per_prompt": -1},
     "limit_mm_per_prompt must be 0 or more, got -1"),
    ({"memory_fraction": Fraction(0)}, "memory fraction must be in (0, 1], got 0"),
    ({"memory_fraction": Fraction(3, 2)}, "memory fraction must be in (0, 1], got 1.5"),
    ({"engine": Engine.vllm, "max_tokens": 10},
     "max_tokens applies only to sglang and trtllm, not vllm; drop it or choose that engine"),
    ({"engine": Engine.sglang, "draft_params": 10},
     "draft_params applies only to vllm, not sglang; drop it or choose that engine"),
])
def test_settings_checks(kw: dict[str, object], message: str):
    with pytest.raises(InputError) as err:
        EngineSettings(**kw).check()  # type: ignore[arg-type]
    assert str(err.value) == message


def test_settings_at_their_limits_pass():
    EngineSettings(engine=Engine.vllm, cpu_offload_bytes=0, limit_mm_per_prompt=0,
                   memory_fraction=Fraction(1), max_num_seqs=1, kv_cache_memory_bytes=1).check()
    EngineSettings(engine=Engine.trtllm, max_tokens=1, page_size_tokens=1, max_batch_size=1).check()


def test_each_step_operation():
    v = {"a": Fraction(7), "b": Fraction(2), "c": Fraction(-7)}
    s = lambda op, args, unit="bytes": evaluate(Step("x", 0, unit, "", op, args), v)  # noqa: E731
    assert s("sum", ("a", "-b", 3)) == 8
    assert s("sum", ()) == 0
    assert s("mul", ("a", Fraction(1, 2))) == 3  # floored: 3.5 bytes -> 3
    assert s("mul", ("c", Fraction(1, 2))) == -4  # floor, not truncation
    assert s("mul", ("a", Fraction(1, 2)), "ratio") == Fraction(7, 2)
    assert s("mul", ()) == 1
    assert s("div", ("a", "b")) == 3
    assert s("div", ("c", "b")) == -4
    assert s("ceildiv", ("a", "b")) == 4
    assert s("ceildiv", ("c", "b")) == -3
    assert s("min", ("a", "b", 5)) == 2
    assert s("max", ("a", "b", 9)) == 9
    assert s("ratio", ("a", "b")) == Fraction(7, 2)
    with pytest.raises(ValueError) as err:
        s("pow", ("a", "b"))
    assert str(err.value) == "unknown op 'pow'"
    with pytest.raises(KeyError) as key:
        s("sum", ("a", "-d"))
    assert key.value.args == ("step refers to unknown or later step 'd'",)


def test_verify_steps_names_every_problem():
    steps = [
        Step("a", 5, "bytes", "", "given"),
        Step("b", 2, "bytes", "", "given"),
        Step("c", 7, "bytes", "", "sum", ("a", "b")),
        Step("d", 4, "bytes", "", "sum", ("a", "-b")),  # 3, not 4
        Step("e", 1, "bytes", "", "sum", ("z",)),
        Step("f", 1, "bytes", "", "div", ("a", 0)),
        Step("g", 0, "bytes", "", "pow", ("a",)),
        Step("a", 5, "bytes", "", "given"),
    ]
    problems = verify_steps(steps)
    # (the division by zero's text is Python's own)
    assert problems[2].startswith("f: ") and "ZeroDivision" not in problems[2]
    assert problems[:2] + problems[3:] == [
        "d: claims 4 but sum('a', '-b') = 3",
        'e: "step refers to unknown or later step \'z\'"',
        "g: unknown op 'pow'",
        "duplicate step 'a'",
    ]
    assert verify_steps(steps[:3]) == []


def test_steps_keep_exact_fractions_and_floor_on_int():
    st = Steps()
    assert st.given("n", 7, "bytes", "") == 7
    third = st.op("third", "ratio", ["n", 3], "ratio", "")
    assert third == Fraction(7, 3) and st.items[-1].value == Fraction(7, 3)
    assert st.int("third") == 2
    whole = st.op("double", "mul", ["n", 2], "bytes", "")
    assert whole == 14 and type(st.items[-1].value) is int
    assert st.values == {"n": 7, "third": Fraction(7, 3), "double": 14}


def test_interval_exact_and_gib():
    assert Interval.exact(5) == Interval(5, 5, 5)
    assert (gib(GIB * 3 // 2), gib(0), gib(-GIB)) == ("1.50 GiB", "0.00 GiB", "-1.00 GiB")


def test_finish_size_with_an_engine_pool():
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192)
    # a 10 GiB pool holds 10 users of 1 GiB; overhead 3 GiB; usable given as 70 GiB
    r = finish_size(req, 10 * GIB, 3 * GIB, 70 * GIB, True, None, 8192, ["note"])
    assert (r.users_per_replica, r.fits, r.reason, r.max_context_that_fits) == (10, True, None,
                                                                                 None)
    assert (r.weights_bytes, r.usable_bytes, r.kv_budget_bytes, r.assumptions,
            r.suggestions) == (16_060_522_496, 70 * GIB, 10 * GIB, ("note",), ())
    assert r.request is req
    assert r.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=16_060_522_496, kv_used_bytes=10 * GIB,
        kv_free_bytes=0, reserve_bytes=3 * GIB,
        unallocated_bytes=85_045_477_376 - 16_060_522_496 - 13 * GIB)
    # a pool whose breakdown crowds out the overhead: clamped to what is left beside it
    big = finish_size(req, 68 * GIB, 3 * GIB, 70 * GIB, True, None, 8192, [],
                      weights_bytes=10 * GIB)
    assert big.breakdown.reserve_bytes == 85_045_477_376 - 78 * GIB
    assert big.breakdown.unallocated_bytes == 0 and big.users_per_replica == 68
    # one byte of pool: users 0, the plain result's reason, the length it was given
    tiny = finish_size(req, 1, 0, 70 * GIB, True, None, 5, [])
    assert (tiny.users_per_replica, tiny.fits, tiny.kv_budget_bytes,
            tiny.max_context_that_fits) == (0, False, 1, 5)
    assert tiny.reason is not None and tiny.reason.startswith("one sequence of 8,192 tokens needs")


def test_finish_size_when_the_engine_does_not_start():
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192)
    r = finish_size(req, 10 * GIB, GIB, 70 * GIB, False, "it would not start", 77, [],
                    users_override=(5, 5 * GIB))
    # not started: nobody, nothing used, whatever the override says; the engine's reason stands
    assert (r.users_per_replica, r.fits, r.reason, r.max_context_that_fits) == (
        0, False, "it would not start", 77)
    assert (r.breakdown.kv_used_bytes, r.breakdown.kv_free_bytes) == (0, 10 * GIB)
    # no pool at all (a negative one counts as none)
    r = finish_size(req, -GIB, GIB, 70 * GIB, False, "none", 0, [])
    assert (r.kv_budget_bytes, r.breakdown.kv_free_bytes, r.breakdown.reserve_bytes) == (0, 0, GIB)
    assert r.breakdown.unallocated_bytes == 85_045_477_376 - 16_060_522_496 - GIB


def test_finish_size_takes_the_engines_own_user_count():
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192)
    r = finish_size(req, 10 * GIB, 0, 70 * GIB, True, None, 8192, [], users_override=(3, 3 * GIB))
    assert (r.users_per_replica, r.breakdown.kv_used_bytes, r.breakdown.kv_free_bytes) == (
        3, 3 * GIB, 7 * GIB)
    # an override of 0 users: no fit, the plain reason is not taken (the engine said none)
    r = finish_size(req, 10 * GIB, 0, 70 * GIB, True, None, 8192, [], users_override=(0, 0))
    assert (r.users_per_replica, r.fits, r.max_context_that_fits) == (0, False, 8192)


def test_users_steps_with_a_shared_prefix_count_users_from_the_plain_result():
    from kvplan.capacity import size
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, shared_prefix_tokens=1024)
    sized = size(req)
    st = Steps()
    st.given("KV pool", sized.kv_budget_bytes, "bytes", "")
    users_steps(st, sized, "KV pool", True)
    assert [(s.label, s.value, s.unit, s.op, s.formula) for s in st.items[1:]] == [
        ("KV bytes per sequence", sized.kv_bytes_per_sequence, "bytes", "given",
         "8,192 tokens, paged in 16-token blocks, every cached layer on this GPU"),
        ("users per replica", sized.users_per_replica, "users", "given",
         "the tightest pipeline stage"),
        ("GPUs per replica", 1, "GPUs", "given", "tp 1 x pp 1"),
        ("users per GPU", sized.users_per_replica, "users", "ratio",
         "users per replica / GPUs per replica"),
    ]


def test_users_steps_in_engine_blocks_when_not_started():
    from kvplan.capacity import size
    sized = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, tp=2))
    st = Steps()
    st.given("GPU blocks", 0, "blocks", "")
    users_steps(st, sized, "GPU blocks", False, per_user_blocks=512)
    assert [(s.label, s.value, s.unit, s.op, s.args, s.formula) for s in st.items[1:]] == [
        ("blocks per user", 512, "blocks", "given", (),
         "one sequence holding 8,192 tokens, as the engine allocates it"),
        ("users per replica", 0, "users", "given", (), "the engine does not start"),
        ("GPUs per replica", 2, "GPUs", "given", (), "tp 2 x pp 1"),
        ("users per GPU", 0, "users", "ratio", ("users per replica", "GPUs per replica"),
         "users per replica / GPUs per replica"),
    ]


def test_measured_defaults_are_all_unset():
    assert Measured() == Measured(None, None, None, None, None, None, None, None, None)


def test_finish_size_lifts_the_stated_budget_check_for_the_engines_own_pool():
    # a 70 GiB engine pool beside the catalog's 15 GiB of weights exceeds the H100's 79.2 GiB
    # (the engine's own weights were smaller, or measured): still 70 users of 1 GiB
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192)
    r = finish_size(req, 70 * GIB, 0, 70 * GIB, True, None, 8192, [], weights_bytes=GIB)
    assert (r.users_per_replica, r.breakdown.kv_used_bytes, r.breakdown.weights_bytes) == (
        70, 70 * GIB, GIB)
    # a request that states its own large budget is sized without it for the weights
    stated = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=70 * GIB)
    assert finish_size(stated, 10 * GIB, 0, 0, True, None, 8192, []).weights_bytes == (
        16_060_522_496)


def test_finish_size_without_a_pool_takes_the_plain_reason_without_a_reserve():
    # no pool, the engine's reason unset: the plain arithmetic's reason, sized with no reserve
    req = SizeRequest(model=load_model("llama-3.1-70b"), gpu=H100, context_tokens=8192)
    r = finish_size(req, 0, 0, 0, True, None, 0, [])
    assert r.reason == ("weights need 131.42 GiB per GPU and the reserve 0 B, but only 71.28 GiB "
                        "of h100-sxm-80gb's memory is usable at 0.9 utilization: 60.13 GiB short")
    assert (r.users_per_replica, r.fits, r.kv_budget_bytes) == (0, False, 0)
