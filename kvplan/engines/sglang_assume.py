"""The assumptions an SGLang plan prints (kvplan.engines.sglang.profile's words, apart from its
arithmetic): the release and fraction, the page size, a release outside the modelled range,
multimodal and speculative reservations, data-parallel attention, the attention backend picked,
the default fraction's tier and the flags that enter it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvplan.engines import sglang_dp
from kvplan.engines.interface import EngineSettings, parse_version
from kvplan.engines.sglang_backend import AITER_DERATE
from kvplan.engines.sglang_defaults import RESERVED_FORMULA_FROM, decode_graph_bs
from kvplan.engines.sglang_spec import assumptions as spec_assumptions

if TYPE_CHECKING:
    from kvplan.capacity.plan import SizeRequest
    from kvplan.engines.sglang import FractionChoice
    from kvplan.engines.sglang_dp import Layout
    from kvplan.engines.sglang_spec import Speculation


def profile_assumptions(req: SizeRequest, s: EngineSettings, version: str,
                        choice: FractionChoice, page: int, note: str | None, mm_why: str | None,
                        spec: Speculation | None, lay: Layout) -> list[str]:
    """What one SGLang plan assumed, in the order the plan prints it."""
    frac, picked, derated, tier = choice.fraction, choice.picked, choice.derated, choice.tier
    assumptions = [
        f"SGLang {version}: mem_fraction_static {float(frac):g} of the memory free at start-up",
        f"token pool ({page}-token pages), {req.kv_dtype.value} cache, every layer full-length",
    ]
    assumptions += [a for a in (note, mm_why) if a] + (spec_assumptions(spec, tier) if spec else [])
    assumptions += sglang_dp.assumptions(req, s, lay)
    if picked is not None:
        assumptions.append(f"attention backend {picked[0]} (unstated): {picked[1]}")
    if tier is not None:
        assumptions.append("default mem_fraction_static: "
                           + tier.describe(s.chunked_prefill_size, s.cuda_graph_max_bs))
    if tier is not None and s.memory_fraction is None:
        bs, capped = decode_graph_bs(version, tier, s.cuda_graph_max_bs, s.max_running_requests)
        if capped:
            assumptions.append(
                f"default mem_fraction_static: cuda_graph_max_bs {bs:,} (the tier's "
                f"{tier.cuda_graph_max_bs:,} capped at --max-running-requests, SGLang 0.5.22 on: "
                "arg_groups/memory_hook.py handle_gpu_memory_settings)")
    if choice.graphs_why and s.memory_fraction is None:
        assumptions.append(f"default mem_fraction_static: {choice.graphs_why}")
    if derated:
        assumptions.append(f"aiter attention backend at {req.context_tokens:,} tokens of context: "
                           f"SGLang uses mem_fraction_static {float(frac * AITER_DERATE):g} "
                           f"({float(frac):g} x 0.85)")
    if s.chunked_prefill_size or s.cuda_graph_max_bs:
        moves = s.memory_fraction is None and (parse_version(version) or ()) >= RESERVED_FORMULA_FROM
        assumptions.append(
            "--chunked-prefill-size / --cuda-graph-max-bs " + (
                "enter the default mem_fraction_static's reserved memory" if moves else
                "do not move the pool here (mem_fraction_static is stated, or SGLang before "
                "0.5.3 derives it from TP and the GPU only)"))
    return assumptions
