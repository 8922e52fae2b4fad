"""Monotonic behaviour, checked over many generated inputs (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kvplan.capacity import Allocation, SizeRequest, size
from kvplan.capacity.kv import Precision, stage_caches
from kvplan.specs import load_hardware, load_model
from kvplan.specs.schema import Attention, ModelSpec
from kvplan.units import GIB, DType

H100 = load_hardware("h100")
MODELS = [load_model(n) for n in ("llama-3-8b", "mistral-7b-v0.1", "deepseek-v3", "llama-2-7b")]

contexts = st.integers(min_value=1, max_value=8192)
budgets = st.integers(min_value=1, max_value=200 * GIB)


def request(model: ModelSpec, ctx: int, budget: int, **kw: object) -> SizeRequest:
    return SizeRequest(
        model=model, gpu=H100.model_copy(update={"memory_bytes": 10**15}),
        context_tokens=min(ctx, model.max_context_tokens), kv_budget_bytes=budget, **kw,  # type: ignore[arg-type]
    )


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(MODELS), contexts, budgets, st.integers(1, 50 * GIB))
def test_more_memory_never_fewer_users(model, ctx, budget, extra):
    small = size(request(model, ctx, budget)).users_per_replica
    big = size(request(model, ctx, budget + extra)).users_per_replica
    assert big >= small


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(MODELS), contexts, budgets, st.sampled_from(list(Allocation)))
def test_fp8_never_fewer_than_bf16(model, ctx, budget, alloc):
    bf16 = size(request(model, ctx, budget, kv_dtype=DType.bf16, allocation=alloc))
    fp8 = size(request(model, ctx, budget, kv_dtype=DType.fp8, allocation=alloc))
    int4 = size(request(model, ctx, budget, kv_dtype=DType.int4, allocation=alloc))
    assert fp8.users_per_replica >= bf16.users_per_replica
    assert int4.users_per_replica >= fp8.users_per_replica


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(MODELS), contexts, st.integers(1, 8192), budgets)
def test_paged_never_fewer_than_reserved(model, ctx, avg, budget):
    ctx = min(ctx, model.max_context_tokens)
    avg = min(avg, ctx)
    reserved = size(request(model, ctx, budget, allocation=Allocation.reserved))
    paged = size(request(model, ctx, budget, allocation=Allocation.paged, avg_context_tokens=avg))
    # paged rounds a sequence up to whole blocks; reserved holds the exact maximum
    if avg <= ctx - 16 or ctx % 16 == 0:
        assert paged.users_per_replica >= reserved.users_per_replica


def synthetic(layers: int, kv_heads: int, head_dim: int) -> ModelSpec:
    return ModelSpec(
        name="s", hf_id="none/s", source="generated for a property test", model_type="llama",
        params_total=1, num_layers=layers, hidden_size=4096, num_attention_heads=max(kv_heads, 1),
        vocab_size=1000, max_context_tokens=8192, weight_dtype=DType.bf16,
        attention=Attention(num_kv_heads=kv_heads, head_dim=head_dim),
    )


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 128), st.integers(1, 128), st.sampled_from([64, 80, 96, 128, 256]),
    st.integers(0, 16), st.integers(0, 16), st.sampled_from(list(DType)), st.integers(1, 16),
)
def test_per_token_bytes_never_fall_as_layers_or_heads_rise(layers, heads, dim, dl, dh, dt, tp):
    def bpt(m: ModelSpec) -> int:
        return stage_caches(m, Precision(dt), tp, 1)[0].bytes_per_token

    base = bpt(synthetic(layers, heads, dim))
    assert bpt(synthetic(layers + dl, heads, dim)) >= base
    assert bpt(synthetic(layers, heads + dh, dim)) >= base


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(MODELS), contexts, st.floats(0.05, 1.0), st.integers(1, 8))
def test_breakdown_always_adds_up(model, ctx, util, tp):
    from kvplan.units import exact

    req = SizeRequest(
        model=model, gpu=H100, context_tokens=min(ctx, model.max_context_tokens),
        memory_utilization=exact(round(util, 3)), tp=tp,
    )
    import pytest

    from kvplan.capacity.parallel import tp_problem
    from kvplan.errors import InputError

    if tp_problem(model, tp) is not None:  # a TP vLLM refuses (3 on 32 heads, ...) is refused
        with pytest.raises(InputError, match="valid --tp values"):
            size(req)
        return
    r = size(req)
    assert sum(r.breakdown.parts().values()) == H100.memory_bytes
    if r.kv_budget_bytes > 0:  # when the weights alone overflow, "unallocated" goes negative
        assert all(v >= 0 for v in r.breakdown.parts().values())
