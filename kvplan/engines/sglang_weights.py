"""SGLang's weights beyond the even split: a 16-bit MoE router whole on every TP rank from
0.5.21, and DeepSeek-style MLA's latent down-projections and router held whole on every rank
(moved from kvplan.engines.sglang, unchanged; its module docstring gives the sources)."""

from __future__ import annotations

from kvplan.capacity.plan import SizeRequest
from kvplan.engines.common import router_params, router_whole
from kvplan.engines.interface import parse_version
from kvplan.engines.mla_replicated import attention_bits, projection_params
from kvplan.engines.sglang_defaults import DEFAULT_VERSION

# The 16-bit MoE router whole on every TP rank (common.ROUTER_BYTES, task h38router), from the
# oldest wheel read; before it the even split, except MLA models' router (`replicated_bytes`).
ROUTER_WHOLE_16_FROM = (0, 5, 21)


def router_whole_16(version: str | None) -> bool:
    """Whether this release holds a 16-bit MoE router whole on every TP rank (ROUTER_WHOLE_16_FROM)."""
    return (parse_version(version or DEFAULT_VERSION) or ())[:3] >= ROUTER_WHOLE_16_FROM


def replicated_bytes(req: SizeRequest, whole16: bool = False) -> int:
    """What each TP rank holds beyond the even split of the weights (MLA models; module docstring).

    Per pipeline stage: (q_lora_rank + kv_lora_rank + qk_rope_head_dim) x hidden per layer at the
    non-expert weight width, and experts x hidden per MoE layer in bf16 (the router), less the
    1/(tp x pp) share of them the even split already booked.
    """
    m, tp, pp = req.model, req.tp, req.pp
    proj = projection_params(m)  # the same down-projections vLLM holds whole (mla_replicated)
    if tp <= 1 or proj == 0:
        return 0
    bits = attention_bits(req)
    # below 16 bits, and in 16 bits from ROUTER_WHOLE_16_FROM, `weights_bytes` already holds the
    # router whole on every rank (router_whole)
    router = router_params(m) if not router_whole(req, whole16) else 0
    held = (proj * bits // 8 + router * 2) // pp
    booked = (proj + router) * bits // 8 // (tp * pp)
    return max(held - booked, 0)
