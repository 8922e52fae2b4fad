"""SGLang's attention-backend and prefill-graph choices that move mem_fraction_static.

Split out of kvplan/engines/sglang.py (the module passed ~400 lines): which backend SGLang picks
on ROCm when none is stated (aiter or triton), aiter's long-context derate of the fraction, and
whether a release captures prefill CUDA graphs by default (the 8 MiB-a-size or 1.5 GiB MLA reserve
in the default fraction). Each rule's source is in the comment above its constant.
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.capacity.plan import SizeRequest
from kvplan.engines.interface import parse_version
from kvplan.engines.sglang_defaults import DEFAULT_VERSION, PREFILL_GRAPHS_FROM

# The aiter backend's long-context derate (see the module docstring): source-read, not fitted.
AITER_DERATE = Fraction(85, 100)
AITER_DERATE_ABOVE = 8192
AITER_DERATE_FROM = (0, 4, 7)
# aiter is SGLang's ROCm default in the 0.4.7, 0.5.17, 0.5.21, 0.5.22 and 0.5.23 wheels (module
# docstring; model_override_base.py get_default_attn_backend :268 in 0.5.22, :277 in 0.5.23);
# older releases were not read, and the default moves no pool before the derate exists.
AITER_DEFAULT_FROM = AITER_DERATE_FROM
# The MLA KV-head counts per rank aiter takes (get_default_attn_backend: "current aiter only
# support head number 16 or 128"); other counts fall back to triton.
AITER_MLA_HEADS = (16, 128)
# The prefill CUDA-graph reserve in the default mem_fraction_static (server_args.py
# reserve_for_graph_mb, read in the 0.5.16 and 0.5.17 wheels; arg_groups/memory_hook.py in
# 0.5.21): on CUDA the prefill graphs are "breakable" by default (cuda_graph_config.py
# default_prefill_backend; on HIP the tc_piecewise default is switched off), and each captured
# size costs 8 MiB, sizes from generate_prefill_cuda_graph_batch_sizes up to the prefill max_bs
# (chunked_prefill_size, capped at --max-total-tokens); an MLA model reserves 1.5 GiB instead.
# 0.5.16 and 0.5.17 switch breakable graphs off for MLA models, 0.5.21 keeps them (and switches
# them off with pipeline parallelism, which 0.5.17 does not). 0.5.16 is the oldest wheel read:
# releases before it keep the formula without this term (not read, so not changed).
# 0.5.22 drops tc_piecewise: off CUDA the prefill default is DISABLED outright
# (cuda_graph_config.py:119-123 default_prefill_backend in the 0.5.22 and 0.5.23 wheels), the same
# outcome as 0.5.21's tc_piecewise switched off on HIP (:122-131; cuda_graph_hook.py's
# non-CUDA rule). 0.5.23 raises an MLA model's prefill max_bs from 2,048 to min(8,192, chunk)
# (memory_hook.py:238; :231 in 0.5.21), which moves no reserve: MLA reserves a flat 1.5 GiB
# (:389). The PP and multimodal switch-offs hold (cuda_graph_hook.py :118 and :194 in 0.5.22,
# :150 and :231 in 0.5.23).
PREFILL_GRAPHS_OFF_CUDA_DISABLED_FROM = (0, 5, 22)
PREFILL_GRAPHS_MLA_FROM = (0, 5, 21)
PREFILL_GRAPHS_NO_PP_FROM = (0, 5, 21)
def prefill_graphs(req: SizeRequest, version: str | None) -> tuple[str | None, str]:
    """Whether that release captures prefill CUDA graphs by default for this request: ("tokens",
    why), ("mla", why), or (None, why not; "" before the term existed)."""
    ver = parse_version(version or DEFAULT_VERSION) or ()
    if ver < PREFILL_GRAPHS_FROM:
        return None, ""
    if req.gpu.vendor.lower() != "nvidia":
        return None, ("no prefill CUDA graphs off CUDA (prefill graphs are opt-in there)"
                      if ver >= PREFILL_GRAPHS_OFF_CUDA_DISABLED_FROM else
                      "no prefill CUDA graphs off CUDA (tc_piecewise is switched off on ROCm)")
    if req.model.params_encoder:
        return None, ("prefill CUDA graphs taken as off for a multimodal model (SGLang switches "
                      "breakable graphs off unless the architecture is allowlisted: not modelled)")
    if req.pp > 1 and ver >= PREFILL_GRAPHS_NO_PP_FROM:
        return None, "no prefill CUDA graphs with pipeline parallelism (off by default)"
    if req.model.attention.mla is not None:
        if ver < PREFILL_GRAPHS_MLA_FROM:
            return None, "no prefill CUDA graphs for an MLA model (breakable graphs off for MLA)"
        return "mla", "prefill CUDA graphs of an MLA model: 1.5 GiB reserved"
    return "tokens", "prefill CUDA graphs: 8 MiB per captured size"


def aiter_derated(backend: str | None, context_tokens: int, version: str | None) -> bool:
    """Whether SGLang scales mem_fraction_static by 0.85 (aiter backend, context > 8,192)."""
    return (backend == "aiter" and context_tokens > AITER_DERATE_ABOVE
            and (parse_version(version or DEFAULT_VERSION) or ()) >= AITER_DERATE_FROM)


def default_backend(req: SizeRequest, version: str | None) -> tuple[str, str] | None:
    """The attention backend SGLang picks when none is stated, as (backend, why), where kvplan
    models it: AMD GPUs from 0.4.7 (module docstring); None elsewhere."""
    if (req.gpu.vendor.lower() != "amd"
            or (parse_version(version or DEFAULT_VERSION) or ()) < AITER_DEFAULT_FROM):
        return None
    src = "SGLang's ROCm default (get_default_attn_backend, read in 0.4.7, 0.5.17, 0.5.21-0.5.23)"
    if req.model.attention.mla is None:
        return "aiter", f"{src}: a model without MLA"
    heads = max(1, req.model.attention.num_kv_heads // req.tp)
    if heads in AITER_MLA_HEADS:
        return "aiter", f"{src}: MLA with {heads} KV heads per rank (aiter takes 16 or 128)"
    return "triton", f"{src}: MLA with {heads} KV heads per rank (aiter takes only 16 or 128)"
