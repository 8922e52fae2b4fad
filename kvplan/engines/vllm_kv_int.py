"""vLLM's integer KV caches, `--kv-cache-dtype int8_per_token_head` and `int4_per_token_head`
(task h101kvint), read in the wheels on PyPI (pip download vllm==X --no-deps):

- int8_per_token_head first appears in 0.20.0 (vllm/config/cache.py:31, CacheDType; absent
  from 0.18.0, 0.19.0 and 0.19.1, whose CacheDType, :14-23 in 0.19.1, ends at fp8_ds_mla);
  int4_per_token_head first in 0.25.0 (config/cache.py:32; absent from 0.24.0, :19-35).
- What a token stores, per KV head, for K and for V: the values (int8: one byte each; int4:
  two to a byte, head_size // 2 bytes) and one float32 scale, carved from the same pool:
  AttentionSpec.page_size_bytes adds 2 x block_size x num_kv_heads x get_dtype_size(float32)
  to the real page (vllm/v1/kv_cache_interface.py:137-150 in 0.20.0, :172-185 in 0.25.0; int4's
  head_dim = head_size // 2 at :192-193), and the Triton backend pads each head's last dim by
  sizeof(float32) / sizeof(cache dtype) to hold it inline (triton_attn.py get_kv_cache_shape,
  :327-328 in 0.20.0); 0.34.0 says the same in TritonAttentionBackend.customize_spec
  (triton_attn.py:306-319: content = (hs_k + hs_v) x dtype size + 2 x 4 bytes, int4 halving
  hs_k and hs_v). int4's zero point hides in the scale's low mantissa bits
  (v1/attention/ops/int4_per_token_head.py:6 in 0.27.1), so nothing more is stored. No page
  padding beyond that: page_size_padded is unset for these specs.
- Only the Triton attention backend takes them (supported_kv_cache_dtypes, triton_attn.py:284-286
  in 0.27.1, :333-335 in 0.34.0; no MLA backend lists them in the 0.27.1 wheel).

kvplan's byte model (kvplan.capacity.kv.Precision) stores int8 as one byte a value with no
scale, never vLLM's head_size + 4 bytes: int8 is refused. Its int4 keeps one 16-bit scale per
kv_group_size values, which equals vLLM's head_size / 2 + 4 bytes exactly when every K and V
vector holds two groups (kv_group_size 64 for the usual head size 128): planned then, with a
note naming vLLM's value; refused otherwise, naming the group size that matches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvplan.capacity.kv import Precision, kv_heads_per_gpu, layer_bytes_per_token
from kvplan.engines.release import read_numbers
from kvplan.engines.vllm_kv_dtypes import kv_dtype_values
from kvplan.engines.vllm_series import DEFAULT_VERSION
from kvplan.specs.schema import LayerKind
from kvplan.units import DType

if TYPE_CHECKING:
    from kvplan.capacity.request import SizeRequest

# kvplan dtype -> (vLLM's value, first release offering it, where it first appears)
VALUES = {
    DType.int8: ("int8_per_token_head", (0, 20, 0), "vllm/config/cache.py:31 in the 0.20.0 wheel"),
    DType.int4: ("int4_per_token_head", (0, 25, 0), "vllm/config/cache.py:32 in the 0.25.0 wheel"),
}
SCALE_BYTES = 4  # one float32 per token, KV head and side (K or V)


def vllm_bytes_per_token(req: SizeRequest) -> int:
    """Bytes one layer of vLLM's int8/int4_per_token_head cache holds per token on one GPU:
    KV heads x (K and V values + 2 float32 scales)."""
    att = req.model.attention
    heads = kv_heads_per_gpu(att.num_kv_heads, req.tp)
    k, v = att.head_dim, att.value_head_dim
    if req.kv_dtype is DType.int4:
        k, v = k // 2, v // 2
    return heads * (k + v + 2 * SCALE_BYTES)


def int_cache_check(req: SizeRequest, version: str | None) -> tuple[str | None, str | None]:
    """(refusal, note) for the request's cache dtype in vLLM `version` (None: kvplan's default):
    both None for a float cache."""
    if req.kv_dtype not in VALUES:
        return None, None
    name, since, where = VALUES[req.kv_dtype]
    said = version or DEFAULT_VERSION
    ver = read_numbers(said) or ()
    ver = ver + (0,) * (3 - len(ver))
    first = ".".join(map(str, since))
    if ver < since:
        release, values, read_at, own = kv_dtype_values(said)
        takes = (f"its --kv-cache-dtype takes {', '.join(values)} ({read_at})" if own else
                 f"its --kv-cache-dtype values were not read (the newest read, {release}, "
                 f"lists {name})")
        return (f"vLLM {said} has no {req.kv_dtype.value} KV cache: {takes}; {name} first "
                f"appears in {first} ({where}): state --engine-version {first} or later, "
                "or plan --kv-dtype fp8"), None
    if req.model.attention.mla is not None:
        return (f"vLLM's {name} is not offered for {req.model.name}'s MLA cache: only the "
                "Triton attention backend takes it (triton_attn.py:333-335 in 0.34.0); plan "
                "--kv-dtype fp8"), None
    att = req.model.attention
    theirs = vllm_bytes_per_token(req)
    ours = layer_bytes_per_token(req.model, LayerKind.full,
                                 Precision(req.kv_dtype, req.kv_group_size), req.tp)
    if req.kv_dtype is DType.int8:
        return (f"kvplan does not model vLLM's {name}: it stores one float32 scale per token "
                f"and KV head beside each K and V vector ({theirs:,} B per token per layer on a "
                f"GPU here, vllm/v1/kv_cache_interface.py:137-150 in 0.20.0), and kvplan's int8 "
                f"cache has no scale ({ours:,} B); plan --kv-dtype fp8 (vLLM's fp8 keeps "
                "per-tensor scales) or --engine ideal for the plain arithmetic"), None
    if ours != theirs or att.head_dim != att.value_head_dim:
        half = att.head_dim // 2
        fix = (f"; --kv-group-size {half} matches it" if att.head_dim == att.value_head_dim
               and att.head_dim % 2 == 0 else "")
        return (f"kvplan's int4 cache at --kv-group-size {req.kv_group_size} ({ours:,} B per "
                f"token per layer on a GPU) is not vLLM's {name} ({theirs:,} B: head_size / 2 "
                "bytes and one float32 scale per token and KV head for K and for V, "
                f"vllm/v1/kv_cache_interface.py:172-193 in 0.25.0){fix}"), None
    return None, (f"int4 planned as vLLM's {name} ({first} on): head_size / 2 bytes and one "
                  f"float32 scale (its zero point in the low bits) per token and KV head for K "
                  f"and for V, {theirs:,} B per token per layer on a GPU, the bytes of kvplan's "
                  f"int4 at --kv-group-size {req.kv_group_size}; vLLM serves it with the Triton "
                  "attention backend only")
