"""Properties of the verdict and of the fix search, over generated deployments (hypothesis)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from kvplan.capacity import Allocation, SizeRequest
from kvplan.check.verdict import Setup, evaluate, fixes
from kvplan.specs import all_hardware, load_hardware, load_model
from kvplan.units import DType

H100 = load_hardware("h100")
CATALOG = all_hardware()[0]
MODELS = [load_model(n) for n in ("llama-3-8b", "llama-3.1-8b", "qwen2.5-7b", "mistral-7b-v0.1")]

setups = st.builds(
    lambda model, ctx, mean_frac, alloc, tp, replicas, seqs: Setup(
        gpus=replicas * tp,
        request=SizeRequest(
            model=model,
            gpu=H100,
            context_tokens=min(ctx, model.max_context_tokens),
            avg_context_tokens=max(1, min(ctx, model.max_context_tokens) * mean_frac // 100),
            kv_dtype=DType.fp16,
            allocation=alloc,
            tp=tp,
        ),
        max_num_seqs=seqs,
    ),
    st.sampled_from(MODELS),
    st.integers(256, 32_768),
    st.integers(1, 100),
    st.sampled_from(list(Allocation)),
    st.sampled_from([1, 2]),
    st.integers(1, 8),
    st.one_of(st.none(), st.integers(1, 512)),
)


@settings(max_examples=150, deadline=None)
@given(setups, st.integers(1, 8))
def test_more_gpus_never_hold_fewer_users(setup: Setup, extra: int) -> None:
    base = evaluate(setup, 1, None)
    more = evaluate(replace(setup, gpus=setup.gpus + extra * setup.request.tp), 1, None)
    assert more.users_held >= base.users_held


@settings(max_examples=150, deadline=None)
@given(setups, st.integers(1, 20_000))
def test_pass_means_enough_users_and_a_start(setup: Setup, required: int) -> None:
    n = evaluate(setup, required, None)
    assert n.passes == (n.would_start and n.users_held >= required)
    assert n.users_held == (n.replicas * n.users_per_replica if n.would_start else 0)
    if setup.max_num_seqs is not None:
        assert n.users_per_replica <= setup.max_num_seqs


@settings(max_examples=60, deadline=None)
@given(setups, st.integers(1, 5_000))
def test_every_fix_passes_and_more_gpus_is_the_fewest(setup: Setup, required: int) -> None:
    if evaluate(setup, required, None).passes:
        return
    for fix in fixes(setup, required, None, CATALOG):
        assert fix.numbers.passes
        assert fix.numbers.users_held >= required
        if fix.change == "more_gpus" and "tp" not in fix.new:
            one_fewer = replace(setup, gpus=fix.new["gpus"] - setup.request.gpus_per_replica)
            assert not evaluate(one_fewer, required, None).passes
