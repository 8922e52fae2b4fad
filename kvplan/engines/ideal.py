"""`ideal`: the plain arithmetic of kvplan.capacity.size, wrapped as an engine profile.

Assumptions: memory x utilization - weights - a flat reserve (2 GiB unless --reserve-gib) is the
KV pool; no engine-specific rounding beyond whole blocks; the engine always starts when one
sequence fits.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from kvplan.capacity.plan import SizeRequest, size
from kvplan.engines.common import users_steps
from kvplan.engines.interface import Engine, EngineResult, EngineSettings, Steps


def profile(req: SizeRequest, s: EngineSettings) -> EngineResult:
    """The foundation's arithmetic, with its steps spelled out."""
    s.check()
    if s.memory_fraction is not None:
        req = replace(req, memory_utilization=s.memory_fraction)
    r = size(req)
    q = r.request
    st = Steps()
    st.given("GPU memory", q.gpu.memory_bytes, "bytes", f"{q.gpu.name} total memory")
    if q.kv_budget_bytes is not None:
        st.given("KV pool", r.kv_budget_bytes, "bytes", "stated (--kv-budget-gib)")
    else:
        st.given("memory utilization", q.memory_utilization, "ratio", "--memory-utilization")
        st.op("usable memory", "mul", ["GPU memory", "memory utilization"], "bytes",
              "floor(GPU memory x utilization)")
        st.given("weights", r.weights_bytes, "bytes",
                 f"{q.model.params_total:,} params x {q.effective_weight_dtype.bits} bits / "
                 f"{q.gpus_per_replica} GPU(s)")
        st.given("reserve", q.reserve_bytes, "bytes", "activations + CUDA context (--reserve-gib)")
        st.op("KV pool (raw)", "sum", ["usable memory", "-weights", "-reserve"], "bytes",
              "usable - weights - reserve")
        st.op("KV pool", "max", ["KV pool (raw)", 0], "bytes", "never below 0")
    per_token = r.kv_bytes_per_token
    st.given("block size", q.block_size_tokens, "tokens", "--block-size")
    st.given("KV bytes per token", per_token, "bytes", "every cached layer on this GPU")
    st.op("bytes per block", "mul", ["block size", "KV bytes per token"], "bytes",
          "block size x KV bytes per token")
    blocks = int(st.op("blocks", "div", ["KV pool", "bytes per block"], "blocks",
                       "floor(KV pool / bytes per block)"))
    tokens = int(st.op("KV cache tokens", "mul", ["blocks", "block size"], "tokens",
                       "blocks x block size"))
    conc = Fraction(tokens, q.context_tokens)
    users_steps(st, r, "KV pool", r.fits)
    max_len = r.max_context_that_fits if r.max_context_that_fits is not None else q.context_tokens
    return EngineResult(
        engine=Engine.ideal,
        engine_version="-",
        size=r,
        memory_bytes=q.gpu.memory_bytes,
        requested_bytes=r.usable_bytes,
        weights_bytes=r.weights_bytes,
        activation_bytes=r.breakdown.reserve_bytes,
        activation_bytes_low=r.breakdown.reserve_bytes,
        activation_bytes_high=r.breakdown.reserve_bytes,
        non_torch_bytes=0,
        cuda_graph_bytes=0,
        kv_cache_bytes=r.kv_budget_bytes,
        kv_cache_bytes_low=r.kv_budget_bytes,
        kv_cache_bytes_high=r.kv_budget_bytes,
        kv_cache_tokens=tokens,
        kv_cache_tokens_low=tokens,
        kv_cache_tokens_high=tokens,
        blocks=blocks,
        block_size_tokens=q.block_size_tokens,
        max_model_len=q.context_tokens,
        max_concurrency=conc,
        starts=r.fits,
        reason=r.reason,
        max_model_len_that_starts=max_len,
        steps=tuple(st.items),
        assumptions=r.assumptions,
        log_lines=(),
    )
