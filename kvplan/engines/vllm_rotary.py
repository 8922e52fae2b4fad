"""vLLM's rotary cos/sin cache, a GPU buffer built while the model loads (Llama 4).

Read in the vLLM 0.19.0 wheel:
- model_executor/models/llama4.py, Llama4DecoderLayer.__init__ passes
  `config.max_position_embeddings` to Llama4Attention, which builds
  `get_rope(self.head_dim, max_position=max_position_embeddings, ...)` on every RoPE layer
  (`if not self.nope`; the NoPE layers have none).
- model_executor/layers/rotary_embedding/__init__.py get_rope: `dtype` defaults to
  `torch.get_default_dtype()` (the served dtype while the model is built) and the instance is
  cached in `_ROPE_DICT` by (head size, rotary dim, max position, ..., dtype): one cache for all
  layers of a rank.
- rotary_embedding/base.py RotaryEmbeddingBase.__init__: `cache = self._compute_cos_sin_cache()`
  (`torch.cat((cos, sin), dim=-1)`: max_position_embeddings x rotary_dim), `cache.to(dtype)`,
  `register_buffer("cos_sin_cache", cache, persistent=False)`: not a checkpoint weight, but
  allocated on the GPU inside `load_model`'s DeviceMemoryProfiler (v1/worker/gpu_model_runner.py
  load_model), so "Model loading took N GiB" includes it, and it is subtracted from the pool
  with the weights. Llama 4's rope_type "llama3" (Llama3RotaryEmbedding) only rescales the
  frequencies; the cache has the same shape. partial_rotary_factor is absent: rotary_dim =
  head_dim.

Llama-4-Scout's config (text_config): max_position_embeddings 10,485,760, head_dim 128, bf16:
10,485,760 x 128 x 2 B = 2,684,354,560 B (2.5 GiB) on every GPU, whatever the TP size.

Booked for Llama 4 (model_type llama4) only: every other model registers such a cache too, but
at 4,096-262,144 positions it is 1-64 MiB (docs/engines.md, the weights table) and was not
booked when this was read (task h37llama4); other architectures' rope constructors were not
read here.
"""

from __future__ import annotations

from kvplan.engines.activation import ACT_BYTES
from kvplan.specs.schema import ModelSpec

ROTARY_CACHE_TYPES = frozenset({"llama4"})


def rotary_cache_bytes(model: ModelSpec) -> int:
    """The cos/sin cache a rank holds after loading: max positions x head_dim x 2 B (16-bit
    served dtype), or 0 where it is not booked (not Llama 4, or no head_dim / positions)."""
    if model.model_type not in ROTARY_CACHE_TYPES:
        return 0
    head_dim = model.attention.head_dim
    positions = model.max_context_tokens
    if not head_dim or not positions:
        return 0
    return positions * head_dim * ACT_BYTES


def rotary_cache_how(model: ModelSpec) -> str:
    """The explanation's words for the booked cache."""
    return (f" + the rotary cos/sin cache {model.max_context_tokens:,} positions x head_dim "
            f"{model.attention.head_dim} x {ACT_BYTES} B (a buffer built while loading: "
            "vLLM llama4.py get_rope over max_position_embeddings, one per rank)")
