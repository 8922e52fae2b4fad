"""vLLM's KV-cache groups and block arithmetic: how layers share block ids, the blocks one
request takes, the tokens a pool holds and the largest max_model_len that starts (split out of
kvplan.engines.vllm; vllm/v1/core/kv_cache_utils.py, the 1.5 x group-size rule from 0.10).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kvplan.engines.common import LayerShape
from kvplan.engines.vllm_hybrid import STATE_BLOCKS_PER_REQUEST, typed_groups
from kvplan.specs.schema import LayerKind, ModelSpec
from kvplan.units import ceil_div


@dataclass(frozen=True)
class Groups:
    """vLLM's KV-cache groups for one stage."""

    group_size: int  # layers sharing one block pool tensor set
    full_groups: int
    sliding_groups: int
    linear_groups: int = 0  # linear-attention (mamba-style) state groups (kvplan.engines.vllm_hybrid)

    @property
    def count(self) -> int:
        return self.full_groups + self.sliding_groups + self.linear_groups

    @property
    def padding_layers(self) -> int:
        return self.count * self.group_size


UNIFY_SINCE = (0, 9, 1)  # --disable-hybrid-kv-cache-manager (vllm/engine/arg_utils.py:856)


def unified(shape: LayerShape, disable_hybrid: bool | None, v1: bool) -> LayerShape:
    """The layers as vLLM V1 caches them with --disable-hybrid-kv-cache-manager: where a stage
    has full-attention layers and sliding-window ones, get_kv_cache_groups calls
    unify_hybrid_kv_cache_specs (v1/core/kv_cache_utils.py:942 in 0.9.1, :1235-1236 in 0.19.1),
    which turns every SlidingWindowSpec (and, from 0.10.0, ChunkedLocalAttentionSpec: Llama 4's
    chunked layers, which 0.9.x already specs as full) into a FullAttentionSpec (:879-925 in
    0.9.1, :1160-1210 in 0.19.1): one group of every layer, each holding the whole context. A
    stage of one kind is left as it is (is_kv_cache_spec_uniform returns first); a model with
    linear-attention state layers cannot be unified (vLLM raises; kvplan.engines.refusals)."""
    if not disable_hybrid or not v1 or not shape.full_layers or not shape.sliding_layers \
            or shape.linear_layers:
        return shape
    return replace(shape, full_layers=shape.cached_layers, sliding_layers=0, window=None)


def unify_refusal(model: ModelSpec) -> str | None:
    """Why vLLM does not start with --disable-hybrid-kv-cache-manager on `model`: linear-attention
    state layers beside attention layers cannot be unified (None: it starts)."""
    kinds = set(model.layer_kinds())
    if LayerKind.linear not in kinds or kinds == {LayerKind.linear}:
        return None
    return (f"vLLM refuses --disable-hybrid-kv-cache-manager for {model.name}: its "
            "linear-attention state layers and its attention layers cannot share one KV cache "
            "type (\"Hybrid KV cache manager is disabled but failed to convert the KV cache "
            "specs to one unified type.\", unify_hybrid_kv_cache_specs, "
            "v1/core/kv_cache_utils.py:1212-1219 in 0.19.1); drop it")


def kv_groups(shape: LayerShape, v1: bool, wide: bool = True) -> Groups:
    """Group layers as vLLM V1 does (V0 and uniform models: one group with every layer)."""
    full, sliding = shape.full_layers, shape.sliding_layers
    if v1 and shape.linear_layers and shape.cached_layers:
        return Groups(*typed_groups(full, sliding, shape.linear_layers, wide))
    if not v1 or full == 0 or sliding == 0:
        n = full + sliding
        return Groups(n, 1 if full or not sliding else 0, 1 if (sliding and not full) else 0)
    small, large = min(full, sliding), max(full, sliding)
    size = large if (wide and large < small * 1.5) else small
    return Groups(size, ceil_div(full, size), ceil_div(sliding, size))


def blocks_per_request(
    shape: LayerShape, groups: Groups, length: int, block: int, batched: int, v1: bool
) -> int:
    """Blocks one request of `length` tokens needs from the shared pool (summed over groups)."""
    full = ceil_div(length, block)
    states = groups.linear_groups * STATE_BLOCKS_PER_REQUEST if v1 else 0
    if not v1 or shape.window is None:
        return full * (groups.count - groups.linear_groups if v1 else 1) + states
    held = min(shape.window - 1 + batched, length)
    sliding = ceil_div(held, block) + 1
    return groups.full_groups * full + groups.sliding_groups * sliding + states


def in_flight_tokens(batched: int, pp: int, mrv2: bool, batches: bool) -> int:
    """Tokens a sliding-window group holds beyond window - 1: max_num_batched_tokens, or from
    0.26 (`batches`) VllmConfig.max_in_flight_tokens = max_concurrent_batches x batched, with
    async scheduling (on by default) 2 batches at PP 1, PP + 1 under Model Runner V2 (`mrv2`),
    else PP (config/vllm.py max_concurrent_batches: 0.26.0 :512-522, 0.30.0 :589-600)."""
    if not batches:
        return batched
    return batched * (2 if pp <= 1 else (pp + 1 if mrv2 else pp))


def printed_tokens(blocks: int, need: int, length: int, groups: Groups, block: int, v1: bool,
                   concurrency: bool) -> int:
    """The "GPU KV cache size" line: blocks // groups x block (0.9-0.20), or from 0.21
    (`concurrency`) int(num_blocks / blocks a max_model_len request needs x max_model_len),
    float arithmetic as kv_cache_utils.py get_kv_cache_capacity (0.30.0 :2373-2383)."""
    blocks = max(0, blocks)
    if v1 and concurrency and need > 0:
        return int(blocks / need * length)
    return blocks // (groups.count if v1 else 1) * block


def _tokens(kv: int, bytes_per_block: int, groups: Groups, block: int, v1: bool,
            need: int = 0, length: int = 0, concurrency: bool = False) -> int:
    blocks = max(0, kv // bytes_per_block)
    return printed_tokens(blocks, need, length, groups, block, v1, concurrency)


def _largest_len(shape: LayerShape, groups: Groups, block: int, batched: int, v1: bool,
                 kv: int, bytes_per_block: int, cap: int) -> int:
    """The largest max_model_len whose one request fits (binary search, as vLLM estimates it)."""
    blocks = max(0, kv // bytes_per_block) if bytes_per_block else 0
    lo, hi = 0, cap
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if blocks_per_request(shape, groups, mid, block, batched, v1) <= blocks:
            lo = mid
        else:
            hi = mid - 1
    return lo
