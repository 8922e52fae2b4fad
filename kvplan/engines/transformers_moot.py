"""transformers' options that a plan may never read, refused with the reason (kvplan.plan.moot
calls `moot_refusals` through kvplan.engine_traits, as for vLLM's kvplan.engines.vllm_moot).

A shared prefix: transformers' cache (DynamicCache or StaticCache, kvplan.engines.transformers)
holds each sequence's own key and value tensors, with no block table to share a prefix's blocks
(no prefix caching), so --shared-prefix-tokens moves nothing (task h90review: it was passed over
in silence, shared_prefix_bytes 0)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def moot_refusals(dep: Any, req: Any, refuse: Callable[[str, str], None]) -> None:
    """Call `refuse(field, why)` for each setting of `dep` transformers cannot read."""
    if dep.traffic.shared_prefix_tokens:
        refuse("traffic.shared_prefix_tokens", "transformers' cache holds each sequence's own "
               "keys and values (no prefix caching), so a shared prefix saves nothing; add "
               "--engine vllm, sglang or trtllm, or drop the option")
