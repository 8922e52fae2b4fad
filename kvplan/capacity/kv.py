"""Per-token and per-sequence KV-cache bytes: pure, exact integer arithmetic.

Bytes per token of one layer (on one GPU):
  full / sliding attention: kv_heads_on_this_gpu x (head_dim + v_head_dim) x bytes_per_value
  MLA: (kv_lora_rank + qk_rope_head_dim) x bytes_per_value, the same latent on every TP rank
  linear attention / state space: 0 per token, a fixed state per sequence instead
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from kvplan.specs.schema import LayerKind, LinearState, ModelSpec
from kvplan.units import DType, ceil_div

DEFAULT_BLOCK_TOKENS = 16  # vLLM's default block size
DEFAULT_INT4_GROUP = 64  # values per fp16 scale; transformers' QuantizedCacheConfig default
SCALE_BITS = 16  # one fp16 scale per group


class Allocation(str, Enum):
    """How a sequence's cache is allocated."""

    reserved = "reserved"  # the maximum context is set aside for every sequence up front
    paged = "paged"  # fixed-size blocks for the tokens a sequence actually holds (PagedAttention)


@dataclass(frozen=True)
class Precision:
    """A cache precision, with the scale overhead 4-bit storage needs."""

    dtype: DType
    group_size: int = DEFAULT_INT4_GROUP

    def vector_bits(self, values: int) -> int:
        """Bits to store one vector of `values` cache values (scales included)."""
        bits = values * self.dtype.bits
        if self.dtype is DType.int4:
            bits += ceil_div(values, self.group_size) * SCALE_BITS
        return bits


def kv_heads_per_gpu(num_kv_heads: int, tp: int) -> int:
    """KV heads one tensor-parallel rank holds; replicated (one each) when tp exceeds them."""
    return max(1, ceil_div(num_kv_heads, tp))


def layer_bytes_per_token(model: ModelSpec, kind: LayerKind, precision: Precision, tp: int) -> int:
    """Cache bytes one layer stores per token on one GPU."""
    if kind is LayerKind.linear:
        return 0
    att = model.attention
    if att.mla is not None:
        return ceil_div(precision.vector_bits(att.mla.kv_lora_rank + att.mla.qk_rope_head_dim), 8)
    heads = kv_heads_per_gpu(att.num_kv_heads, tp)
    bits = heads * (precision.vector_bits(att.head_dim) + precision.vector_bits(att.value_head_dim))
    return ceil_div(bits, 8)


def mamba2_groups_per_gpu(n_groups: int, tp: int) -> int:
    """B/C groups one rank holds: vLLM's mamba2_state_shape adds extra_groups_for_head_shards
    (0 when tp divides n_groups, else tp - n_groups) and splits the result over tp ranks."""
    groups = n_groups if n_groups % tp == 0 else tp
    return ceil_div(groups, tp)


def state_elements_per_gpu(linear: LinearState, tp: int) -> int:
    """Values of one linear layer's per-sequence state on one tensor-parallel rank.

    Mamba2 (vllm/model_executor/layers/mamba/mamba_utils.py,
    MambaStateShapeCalculator.mamba2_state_shape): conv state (conv_kernel - 1) x
    (n_heads x head_dim + 2 x n_groups x d_state) / tp, the groups replicated as
    mamba2_groups_per_gpu says; SSM state n_heads / tp x head_dim x d_state. Any other
    state (Gated DeltaNet: every term is split by heads) is elements / tp, rounded up.
    """
    m = linear.mamba2
    if m is None:
        return ceil_div(linear.state_elements_per_layer, tp)
    conv = (m.conv_kernel - 1) * (
        ceil_div(m.n_heads * m.head_dim, tp) + 2 * mamba2_groups_per_gpu(m.n_groups, tp) * m.d_state
    )
    return conv + ceil_div(m.n_heads, tp) * m.head_dim * m.d_state


def state_bytes_per_layer(model: ModelSpec, tp: int) -> int:
    """Fixed per-sequence state of one linear layer on one GPU, stored in the weight dtype.

    The state is split over tensor-parallel ranks like the heads it belongs to (rounded up);
    a Mamba2 state as state_elements_per_gpu splits it.
    """
    linear = model.attention.linear
    if linear is None:
        return 0
    if linear.mamba2 is not None:
        return ceil_div(state_elements_per_gpu(linear, tp) * model.weight_dtype.bits, 8)
    bits = linear.state_elements_per_layer * model.weight_dtype.bits
    return ceil_div(ceil_div(bits, 8), tp)


def pipeline_stages(num_layers: int, pp: int) -> list[range]:
    """Layer ranges per pipeline stage, as vLLM's get_pp_indices splits them.

    Each stage gets num_layers // pp layers; the remainder goes one each to the stages
    before the last (the last stage also holds the LM head).
    """
    sizes = [num_layers // pp] * pp
    for i in range(2, num_layers % pp + 2):
        sizes[-i] += 1
    out, start = [], 0
    for size in sizes:
        out.append(range(start, start + size))
        start += size
    return out


@dataclass(frozen=True)
class StageCache:
    """What one GPU of one pipeline stage stores per token and per sequence."""

    layers: int
    full_layers: int  # full attention and MLA layers: grow with the whole context
    sliding_layers: int  # grow up to the window
    linear_layers: int  # fixed state
    full_bytes_per_token: int  # all full layers of the stage together
    sliding_bytes_per_token: int  # all sliding layers of the stage together
    state_bytes_per_sequence: int

    @property
    def bytes_per_token(self) -> int:
        """Per-token bytes while the context is inside the window (every cached layer)."""
        return self.full_bytes_per_token + self.sliding_bytes_per_token


def stage_caches(model: ModelSpec, precision: Precision, tp: int, pp: int) -> list[StageCache]:
    """Per-GPU cache shape of each pipeline stage."""
    kinds = model.layer_kinds()
    per_layer = {k: layer_bytes_per_token(model, k, precision, tp) for k in LayerKind}
    state = state_bytes_per_layer(model, tp)
    stages = []
    for layers in pipeline_stages(model.num_layers, pp):
        stage_kinds = [kinds[i] for i in layers]
        full = stage_kinds.count(LayerKind.full)
        sliding = stage_kinds.count(LayerKind.sliding)
        linear = stage_kinds.count(LayerKind.linear)
        stages.append(
            StageCache(
                layers=len(stage_kinds),
                full_layers=full,
                sliding_layers=sliding,
                linear_layers=linear,
                full_bytes_per_token=full * per_layer[LayerKind.full],
                sliding_bytes_per_token=sliding * per_layer[LayerKind.sliding],
                state_bytes_per_sequence=linear * state,
            )
        )
    return stages


def round_to_blocks(tokens: int, block_tokens: int) -> int:
    """Tokens actually allocated when memory comes in blocks (an allocator rounds up)."""
    return ceil_div(tokens, block_tokens) * block_tokens


def held_tokens(
    tokens: int, window: int | None, sliding: bool, allocation: Allocation, block_tokens: int
) -> int:
    """Tokens one layer holds for one sequence of `tokens` tokens."""
    held = min(tokens, window) if (sliding and window is not None) else tokens
    return round_to_blocks(held, block_tokens) if allocation is Allocation.paged else held


def sequence_bytes(
    stage: StageCache,
    model: ModelSpec,
    tokens: int,
    allocation: Allocation,
    block_tokens: int,
    shared_tokens: int = 0,
) -> int:
    """Cache bytes one sequence of `tokens` tokens holds on one GPU of a stage.

    `shared_tokens` (whole blocks of a shared prefix, paged only) are stored once per replica
    and so are left out here; the caller charges them once.
    """
    return sequences_bytes(stage, model, [tokens], allocation, block_tokens, shared_tokens)[0]


def sequences_bytes(
    stage: StageCache,
    model: ModelSpec,
    tokens: Sequence[int],
    allocation: Allocation,
    block_tokens: int,
    shared_tokens: int = 0,
) -> list[int]:
    """`sequence_bytes` for many lengths at once (a length distribution's every block count)."""
    window = model.attention.sliding_window_tokens
    full, sliding = stage.full_bytes_per_token, stage.sliding_bytes_per_token
    base = stage.state_bytes_per_sequence - shared_tokens * full
    held = [min(t, window) for t in tokens] if window is not None else list(tokens)
    if allocation is Allocation.paged:  # whole blocks, as held_tokens rounds them
        b = block_tokens
        return [round_to_blocks(t, b) * full + round_to_blocks(h, b) * sliding + base
                for t, h in zip(tokens, held, strict=True)]
    return [t * full + h * sliding + base for t, h in zip(tokens, held, strict=True)]
