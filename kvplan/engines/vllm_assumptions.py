"""What a vLLM prediction assumes, one sentence each, in the order `kvplan explain` lists them
(kvplan.engines.vllm.profile), and how a layer's KV bytes per token are written."""

from __future__ import annotations

import math
from fractions import Fraction

from kvplan.capacity.kv import DEFAULT_BLOCK_TOKENS
from kvplan.capacity.plan import SizeRequest
from kvplan.engines.common import gib
from kvplan.engines.interface import EngineSettings
from kvplan.engines.vision_tower import tower_note
from kvplan.engines.vllm_compile_cache import note as compile_cache_note
from kvplan.engines.vllm_extensible import (
    BLOCK_64_NOTE,
    EXTENSIBLE_NOTE,
    KV_BYTES_NOTE,
    OFF_NOTE,
    from_034,
)
from kvplan.engines.vllm_flags import flag_notes
from kvplan.engines.vllm_memory import Budget
from kvplan.engines.vllm_series import Flavour


def assumptions(req: SizeRequest, s: EngineSettings, fl: Flavour, b: Budget, util: Fraction,
                 batched: int, seqs: int, block: int, asked_block: int,
                 state_page: int | None) -> list[str]:
    """What the prediction assumes, in the order `kvplan explain` lists it."""
    act, nt, graphs, groups, shape = b.act, b.nt, b.graphs, b.groups, b.shape
    assumptions = [
        f"vLLM {fl.version} ({'V1' if fl.v1 else 'V0'} engine), gpu_memory_utilization "
        f"{float(util):g} of total memory",
        f"profiled with max_num_batched_tokens {batched:,} and max_num_seqs {seqs:,}",
        f"activation peak {gib(act.best)} (range {gib(act.low)} to {gib(act.high)})",
        b.graphs_note,  # kvplan.engines.vllm_graphs: per release and model runner
        f"{req.kv_dtype.value} cache in {block}-token blocks; {groups.count if fl.v1 else 1} "
        "KV cache group(s)",
    ]
    if (cold := compile_cache_note(req, fl, s)) is not None:
        assumptions.append(cold)  # the compile-cache state: warm (task h48cold)
    widths = {"activation peak": act.high - act.low, "non-torch memory": nt.high - nt.low,
              "CUDA-graph estimate": graphs.high - graphs.low}
    if (b.kv == b.requested - b.weights - act.best - nt.best - graphs.best - b.state
            and max(widths.values())):
        top = max(widths, key=lambda k: widths[k])
        assumptions.append(f"KV range dominated by the {top} ({gib(widths[top])} wide)")
    if state_page is not None:
        assumptions.append(
            f"hybrid linear-attention model: fixed state per sequence {shape.linear_layers} "
            f"layer(s) x {state_page:,} B = {shape.linear_layers * state_page:,} B (each page "
            f"padded to {block * shape.bytes_per_token_per_layer:,} B in the pool); "
            f"{groups.linear_groups} state group(s) of "
            f"{groups.group_size} layers share the block pool, one block a request each (prefix "
            f"caching off; attention block {block} tokens"
            + (f", raised from {asked_block} as vLLM raises it so a page holds a layer's state)"
               if block != asked_block else ")"))
    if fl.note:
        assumptions.append(fl.note)
    if fl.extensible_kv:
        assumptions.append(EXTENSIBLE_NOTE)
    elif from_034(fl):
        assumptions.append(KV_BYTES_NOTE if s.kv_cache_memory_bytes is not None else OFF_NOTE)
    if from_034(fl) and block == DEFAULT_BLOCK_TOKENS and not req.model.attention.mla \
            and not state_page:
        assumptions.append(BLOCK_64_NOTE.format(block=block))
    if b.enc is not None:
        tower, why = b.enc.tower, tower_note(req.model, fl.version)
        assumptions.append(b.enc.assumption)
        assumptions += [tower.assumption(b.enc.items)] if tower else [why] if why else []
    assumptions += flag_notes(req, s)
    if req.shared_prefix_tokens:
        assumptions.append("shared prefix not credited: users counted in whole blocks per "
                           "sequence (prefix caching not modelled)")
    return assumptions


def per_layer_formula(req: SizeRequest) -> str:
    att = req.model.attention
    b = req.kv_dtype.bits / 8
    if att.mla is not None:
        return (f"MLA latent ({att.mla.kv_lora_rank} + {att.mla.qk_rope_head_dim}) x {b:g} B, "
                "not split by TP")
    heads = max(1, math.ceil(att.num_kv_heads / req.tp))
    return f"{heads} KV heads/rank x ({att.head_dim} + {att.value_head_dim}) x {b:g} B"
