"""The lines SGLang prints when it allocates the KV pool, as kvplan predicts them.

MHATokenToKVPool logs a (K, V) pair, "KV Cache is allocated. #tokens: N, K size: X GB, V size:
Y GB"; MLATokenToKVPool (DeepSeek-V2/V3, Kimi-K2: one kv_lora_rank + qk_rope_head_dim latent per
token) logs one size, "#tokens: N, KV size: X GB": its get_kv_size_bytes returns one int
(mem_cache/memory_pool.py:4876 in 0.5.23, class at :4754), so _finalize_allocation_log (:2073)
takes its second branch (:2096-2098; the two f-strings at :744 and :750 in 0.5.12).
SGLang's "GB" is 2^30 bytes. From 0.5.13 the line also names the pool's torch dtype after
"is allocated." (memory_pool.py:819 in 0.5.13), which kvplan does not print: the cache's
torch dtype follows the checkpoint's where the record says 16 bits.
"""

from __future__ import annotations

from kvplan.specs import ModelSpec
from kvplan.units import GIB


def pool_lines(model: ModelSpec, tokens: int, cell: int) -> tuple[str, str]:
    """SGLang's allocation line and its max_total_num_tokens line for a pool of `tokens`."""
    if model.attention.mla is not None:
        size = f"KV size: {tokens * cell / GIB:.2f} GB"
    else:
        half = f"{tokens * cell / 2 / GIB:.2f}"
        size = f"K size: {half} GB, V size: {half} GB"
    return (f"KV Cache is allocated. #tokens: {tokens}, {size}",
            f"max_total_num_tokens={tokens}")
