"""vLLM with pipeline parallelism: each stage's weights and layers, and the stage whose block
count the engine keeps (split out of kvplan.engines.vllm).
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.capacity.kv import Precision, pipeline_stages
from kvplan.capacity.plan import SizeRequest
from kvplan.engines.activation import activation_peak, serving_act_bytes
from kvplan.engines.common import LayerShape, quantized, stage_shapes
from kvplan.engines.encoder_cache import with_encoder_cache
from kvplan.engines.interface import EngineSettings, Interval
from kvplan.engines.vllm_groups import Groups, kv_groups, unified
from kvplan.engines.vllm_hybrid_off import manager_off
from kvplan.engines.vllm_moe_workspace import modular_moe
from kvplan.engines.vllm_mrv2_state import booked
from kvplan.engines.vllm_nontorch import fp8_at_load, non_torch, nvlink_module
from kvplan.engines.vllm_series import Flavour
from kvplan.engines.vllm_tp_workspaces import nvswitch_generation
from kvplan.engines.vllm_v0_mla import v0_mla_shape
from kvplan.specs.schema import LayerKind


def stage_weights(req: SizeRequest, weights: int, every: int = 0) -> list[int]:
    """Weights on one GPU of each pipeline stage, from the per-GPU average: every stage holds its
    layers' share of the body; the first stage also holds the token embeddings and the last the
    LM head (vllm/model_executor/models: embed_tokens on the first rank, lm_head on the last;
    untied, as `weights_bytes` assumes), each split over tensor parallelism. `every`: bytes in
    `weights` that every stage holds whole rather than by its layers (the vision tower vLLM
    builds on every stage, kvplan.engines.vision_replicated), 0 where none."""
    model = req.model
    stages = pipeline_stages(model.num_layers, req.pp)
    bits = req.effective_weight_dtype.bits
    embed = -(-model.vocab_size * model.hidden_size * max(bits, 16) // 8 // req.tp)
    body = max(0, (weights - every) * req.pp - 2 * embed)
    out = []
    for i, r in enumerate(stages):
        w = body * len(r) // model.num_layers
        w += embed if i == 0 else 0
        w += embed if i == len(stages) - 1 else 0
        out.append(w + every)
    return out


# Every pipeline stage after the first keeps a persistent buffer for the hidden states it
# receives, max_num_batched_tokens x hidden_size in the model dtype for each key of the model's
# IntermediateTensors ("hidden_states" and "residual": make_empty_intermediate_tensors_factory in
# models/llama.py, qwen2.py (Qwen3Model is a Qwen2Model), deepseek_v2.py; torch.zeros in
# models/utils.py). The old V1 runner makes it in the profile run's first _dummy_run
# (gpu_model_runner.py:1483 in 0.8.5, :3111 in 0.11.0, :5440 in 0.19.0, :6121 in 0.27.1), so
# every V1 release books it (torch's peak increase, from 0.27 the memory consumed); Model Runner
# V2 makes it in load_model after the weights are measured (gpu/model_runner.py:390-399 in 0.27.0
# and 0.27.1, :445 in 0.28.0), before 0.27's peak reset (booked nowhere) and, from 0.27, inside
# `total_consumed` (kvplan.engines.vllm_mrv2_state.BOOKED_FROM). Read in source, not fitted.
PP_INTERMEDIATE_KEYS = 2


def intermediate_bytes(req: SizeRequest, v1: bool, version: str, lean: bool,
                       batched: int) -> int:
    """The received-hidden-states buffer on one GPU of a pipeline stage after the first, where
    the release books it (0 with one stage, on V0, or on Model Runner V2 before 0.27)."""
    if req.pp == 1 or not v1 or (lean and not booked(version, v1, lean)):
        return 0
    return batched * req.model.hidden_size * PP_INTERMEDIATE_KEYS * serving_act_bytes(
        req.effective_weight_dtype)


def limiting_stage(req: SizeRequest, s: EngineSettings, fl: Flavour, memory: int,
                    util: Fraction, weights: int, act: Interval, batched: int, block: int,
                    sampler_bytes: tuple[int, int, int], state: tuple[int, int] = (0, 0),
                    graph_estimate: int = 0, intermediate: int = 0, every: int = 0
                    ) -> tuple[int, Interval, LayerShape, Groups, str, bool, bool] | None:
    """The pipeline stage whose block count vLLM keeps, and its weights, activation and layers.

    Each worker sizes its own pool for its own layers and the engine keeps the smallest block
    count over workers (V1: kv_cache_utils unify_kv_cache_configs / get_kv_cache_configs, the
    minimum num_blocks; V0: the executor's min over workers' determine_num_available_blocks).
    Only the last stage samples (get_pp_group().is_last_rank), so the other stages profile the
    forward pass alone. `state`: Model Runner V2's persistent state on a GPU of the last stage and
    of another (kvplan.engines.vllm_mrv2_state), 0 where the release does not book it; the last
    value returned says whether the stage is the last. `graph_estimate`: the CUDA-graph bytes
    the release and runner subtract (kvplan.engines.vllm_graphs), 0 where none; a logged
    figure replaces it. `intermediate`: the received-hidden-states buffer every stage after the
    first holds (intermediate_bytes); the last value returned says whether the stage is the
    first. `every`: weights every stage holds whole (stage_weights)."""
    off = manager_off(req.model, fl.version, fl.v1, s.disable_hybrid_kv_cache_manager,
                      s.chunked_local_hybrid)  # kvplan.engines.vllm_hybrid_off
    shapes = [unified(v0_mla_shape(sh, req, fl.version, fl.v1), off, fl.v1) for sh in stage_shapes(
        req.model, Precision(req.kv_dtype, req.kv_group_size), req.tp, req.pp)]
    ws = stage_weights(req, weights, every)
    fwd = activation_peak(req.model, req.tp, batched, 0, quantized(req), sampler_bytes,
                          modular_moe(fl.version, fl.v1, req.model,
                                      req.effective_weight_dtype),
                          act_bytes=serving_act_bytes(req.effective_weight_dtype)).peak
    fwd, _ = with_encoder_cache(fwd, req.model, batched, s.limit_mm_per_prompt, fl.v1)
    nt, _ = non_torch(fl, req.tp, weights, quantized(req),
                      nvlink_module(req.gpu.label, req.gpu.device_names), req.gpu.unified_memory,
                      s.tp_transport, not s.disable_custom_all_reduce,
                      nvswitch_generation(req.gpu.label, req.gpu.device_names),
                      fp8_at_load(req.effective_weight_dtype.bits, req.model.weight_dtype.bits,
                                  req.model.weight_quant is not None))
    graphs = graph_estimate if s.measured.cuda_graph_bytes is None or not graph_estimate else (
        s.measured.cuda_graph_bytes)
    requested = int(memory * util)
    best: tuple[int, int] | None = None  # (blocks, stage)
    for i, (shape, w) in enumerate(zip(shapes, ws, strict=True)):
        if shape.cached_layers == 0:
            continue
        a = act if i == len(shapes) - 1 else fwd
        kv = (requested - w - a.best - nt.best - graphs - state[i != len(shapes) - 1]
              - (intermediate if i else 0))
        per_block = block * shape.bytes_per_token_per_layer * kv_groups(
            shape, fl.v1, fl.wide_groups).group_size
        blocks = max(0, kv // per_block)
        if best is None or blocks < best[0]:
            best = (blocks, i)
    if best is None:
        return None
    i = best[1]
    shape = shapes[i]
    a = act if i == len(shapes) - 1 else fwd
    role = ("first, with the token embeddings" if i == 0 else
            "last, with the LM head and the sampler" if i == len(shapes) - 1 else "middle")
    how = (f"; pipeline stage {i + 1} of {req.pp} ({role}; {shape.cached_layers} cached layers): "
           f"its share, since vLLM keeps the smallest block count over stages")
    return (ws[i], a, shape, kv_groups(shape, fl.v1, fl.wide_groups), how, i == len(shapes) - 1,
            i == 0)


def stage_layers(req: SizeRequest) -> list[int]:
    """Cached layers on each pipeline stage, as vLLM splits them."""
    kinds = req.model.layer_kinds()
    return [sum(1 for i in r if kinds[i] is not LayerKind.linear)
            for r in pipeline_stages(req.model.num_layers, req.pp)]
