"""The record's fields as `explain` lists them, with what the engine picks where the record is
silent and the pick moves the plan, each named as a default with its source.

Split from kvplan.plan.planner (which still exports `engine_defaults`, the function the CLI
calls): the planner sizes and plans records; this module only adds the engine's unstated
defaults to the field table a record prints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kvplan.engines import EngineResult

Field = tuple[str, Any, str]  # (record field, value, where it came from), as record_fields lists


def engine_defaults(fields: list[Field], result: EngineResult) -> list[Field]:
    """A record's fields (record_fields) plus what the engine picks where the record is silent
    and the pick moves the plan, named as a default with its source, after the other engine
    fields: SGLang's attention backend on ROCm, and its GPU-memory-tier defaults
    (mem_fraction_static; from 0.5.3 the chunked_prefill_size and decode CUDA-graph batch it
    is built from)."""
    fields = _release_field(fields, result)
    own = _DEFAULTS.get(result.engine.value)
    return own(fields, result) if own is not None else fields


def _release_field(fields: list[Field], result: EngineResult) -> list[Field]:
    """A serving engine's release where the record is silent: the one planned, named as the
    default (task h90review: the title said 'vllm 0.34.0' and the record had no row)."""
    from kvplan.engine_traits import traits

    if not traits(result.engine).serving or any(k == "engine.version" for k, _, _ in fields):
        return fields
    at = next((i + 1 for i, (k, _, _) in enumerate(fields) if k == "engine.name"), len(fields))
    row = ("engine.version", result.engine_version,
           "default: the newest release kvplan models (docs/engines.md)")
    return [*fields[:at], row, *fields[at:]]


def _vllm_defaults(fields: list[Field], result: EngineResult) -> list[Field]:
    """vLLM's entry point, sampler path and (0.34) memory utilization, where unstated."""
    from kvplan.engines.vllm_extensible import record_util

    return record_util(_vllm_sampler_field(_vllm_entrypoint_field(fields, result), result),
                       result)


def _sglang_defaults(fields: list[Field], result: EngineResult) -> list[Field]:
    """SGLang's GPU-memory-tier defaults, then its attention backend on ROCm."""
    from kvplan.engines.sglang_backend import default_backend

    fields = _sglang_tier_fields(fields, result)
    picked = None if any(k == "engine.attention_backend" for k, _, _ in fields) else (
        default_backend(result.size.request, result.engine_version))
    if picked is None:
        return fields
    return _after_engine_fields(
        fields, [("engine.attention_backend", picked[0], f"default: {picked[1]}")])


def _vllm_sampler_field(fields: list[Field], result: EngineResult) -> list[Field]:
    """vLLM 0.8-0.16's sampler path where the record is silent and the sort applies: native, as
    pip installs the release or, from 0.12, as it runs unless opted in
    (kvplan.engines.vllm_sort_sampler.unstated_default), named as a default."""
    from kvplan.engines.vllm_sort_sampler import UNSTATED_NOTE

    notes = [a for a in result.size.assumptions if a.startswith(UNSTATED_NOTE)]
    if any(k == "engine.topk_topp_sampler" for k, _, _ in fields) or not notes:
        return fields
    why = notes[0].removeprefix(f"{UNSTATED_NOTE}, ")  # PIP_DEFAULT or OPT_IN_DEFAULT
    return _after_engine_fields(fields, [("engine.topk_topp_sampler", "native", f"default: {why}")])


def _vllm_entrypoint_field(fields: list[Field], result: EngineResult) -> list[Field]:
    """serve, named as a default, where the offline LLM class would profile another batch."""
    from kvplan.engines.vllm_entrypoint import record_default

    if (row := record_default({k for k, _, _ in fields}, result)) is None:
        return fields
    return _after_engine_fields(fields, [row])


def _sglang_tier_fields(fields: list[Field], result: EngineResult) -> list[Field]:
    """SGLang's default mem_fraction_static in place of the record's unstated utilization, from
    its GPU-memory tier (kvplan.engines.sglang_defaults), and, where the tier's sizes enter it
    (0.5.3 on), the chunked_prefill_size and cuda_graph_max_bs the record does not state."""
    from kvplan.engines.interface import parse_version
    from kvplan.engines.sglang_defaults import RESERVED_FORMULA_FROM, decode_graph_bs, gpu_tier
    from kvplan.units import MIB

    step = next((s for s in result.steps if s.label == "mem_fraction_static"), None)
    if step is None or not step.formula.startswith("SGLang"):
        return fields  # stated
    req = result.size.request
    tier = gpu_tier(result.engine_version, req.gpu.nvidia_smi_mib or result.memory_bytes // MIB,
                    req.tp, req.gpu.vendor)
    if tier is None:
        return fields
    why = f"default: {tier.short()} ({tier.source})"
    used = float(f"{float(step.value):.4g}")
    out = [(k, used, why) if k == "engine.gpu_memory_utilization" and frm == "default"
           else (k, v, frm) for k, v, frm in fields]
    if (parse_version(result.engine_version) or ()) < RESERVED_FORMULA_FROM:
        return out
    have = {k: v for k, v, _ in out}
    running = have.get("engine.max_num_seqs")
    graph_bs, capped = decode_graph_bs(result.engine_version, tier, None,
                                       running if isinstance(running, int) else None)
    extra = [(k, v, why + (" capped at engine.max_num_seqs (SGLang 0.5.22 on)"
                           if capped and k == "engine.cuda_graph_max_bs" else ""))
             for k, v in (("engine.max_num_batched_tokens", tier.chunked_prefill_size),
                          ("engine.cuda_graph_max_bs", graph_bs or None))
             if k not in have and v is not None]
    return _after_engine_fields(out, extra)


def _after_engine_fields(fields: list[Field], rows: list[Field]) -> list[Field]:
    """`rows` inserted after the last engine.* field (at the end where there is none)."""
    at = max((i + 1 for i, (k, _, _) in enumerate(fields) if k.startswith("engine.")),
             default=len(fields))
    return [*fields[:at], *rows, *fields[at:]]


# engine -> the defaults it picks that a record names (task h49engines: these were
# `result.engine is Engine.X` branches)
_DEFAULTS = {"vllm": _vllm_defaults, "sglang": _sglang_defaults}
