"""vLLM's memory budget: what `determine_available_memory` subtracts from total x
gpu_memory_utilization before the rest becomes KV cache (the first steps of
kvplan.engines.vllm.profile): weights, the profiled activation peak (with the encoder cache of
a multimodal model, Qwen2.5-VL's vision tower and vLLM 0.2.5's record_stream hold), non-torch
memory and, where the version subtracts it, the CUDA-graph estimate. A stated pool (--kv-cache-memory-bytes,
--kv-budget-gib) or a logged one replaces the subtraction."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from kvplan.capacity.plan import SizeRequest
from kvplan.engines.activation import (
    ACT_BYTES,
    LEAN_SAMPLER_BYTES_PER_LOGIT,
    SAMPLER_BYTES_PER_LOGIT,
    UNTOUCHED_SAMPLER_BYTES_PER_LOGIT,
    WARMUP_SAMPLER_BYTES_PER_LOGIT,
    activation_peak,
    model_dtype_logits,
    serving_act_bytes,
)
from kvplan.engines.common import LayerShape, gib, quantized
from kvplan.engines.encoder_cache import EncoderCacheProfile, with_encoder_cache
from kvplan.engines.interface import EngineSettings, Interval, Steps
from kvplan.engines.mla_replicated import replicated_extra_bytes
from kvplan.engines.vision_replicated import tower_extra_bytes
from kvplan.engines.vision_tower import tower_profile
from kvplan.engines.vllm_capture import Capture, Stated
from kvplan.engines.vllm_capture import booked as booked_graphs
from kvplan.engines.vllm_extensible import (
    CONTEXT,
    MARGIN_FRACTION,
    headroom,
    margin,
    util_why,
)
from kvplan.engines.vllm_flags import weights_for
from kvplan.engines.vllm_graphs import note as graphs_note
from kvplan.engines.vllm_graphs import subtracted as graphs_subtracted
from kvplan.engines.vllm_groups import Groups
from kvplan.engines.vllm_moe_workspace import modular_moe
from kvplan.engines.vllm_mrv2_state import booked, state_bytes
from kvplan.engines.vllm_nontorch import fp8_at_load, non_torch, nvlink_module
from kvplan.engines.vllm_series import Flavour
from kvplan.engines.vllm_sort_sampler import v1_sampler_bytes
from kvplan.engines.vllm_stages import PP_INTERMEDIATE_KEYS, intermediate_bytes, limiting_stage
from kvplan.engines.vllm_tp_setup import tp_setup
from kvplan.engines.vllm_tp_workspaces import nvswitch_generation
from kvplan.engines.vllm_v0_early import record_stream_hold
from kvplan.engines.vllm_v0_mla import absorbed_bytes
from kvplan.engines.vllm_v0_reserved import early_activation
from kvplan.engines.vllm_v0_tp import allreduce_out
from kvplan.specs.schema import ModelSpec


@dataclass(frozen=True)
class Budget:
    """The terms of one GPU's budget (bytes), and the layers of the rank that sets the pool."""

    requested: int
    weights: int
    act: Interval
    nt: Interval
    graphs: Interval
    kv: int
    enc: EncoderCacheProfile | None
    shape: LayerShape
    groups: Groups
    capture: Capture  # the CUDA graphs the graph term is computed from (vllm_capture)
    state: int = 0  # Model Runner V2's persistent state, where the release books it (0.28 on)
    graphs_note: str = ""  # whether the CUDA-graph estimate is subtracted, and why (explain)
    # the budget's ends where it carries its own range (0.34's cap with the TP set-up's);
    # None: the budget itself at both ends
    requested_low: int | None = None
    requested_high: int | None = None


def sampler_bytes(fl: Flavour, lean: bool, rows: int, model: ModelSpec,
                  s: EngineSettings, act_bytes: int = ACT_BYTES) -> tuple[int, int, int]:
    """Bytes per logit of the profiling sampler (low, best, high) for this version series (the
    V1 sampler before Model Runner V2: kvplan.engines.vllm_sort_sampler, the 0.10 sort; Model
    Runner V2: its fp32 copy through 0.25, the bf16 logits alone 0.26-0.32, the warm-up pass
    from 0.33, kvplan.engines.activation). Model Runner V2's logits are `act_bytes` wide
    (model_dtype_logits: 4 B for a model served in fp32)."""
    if lean and fl.sampler_warmup:
        return model_dtype_logits(WARMUP_SAMPLER_BYTES_PER_LOGIT, act_bytes)
    if lean and fl.untouched_logits:  # 0.26-0.32: the bf16 logits only
        return model_dtype_logits(UNTOUCHED_SAMPLER_BYTES_PER_LOGIT, act_bytes)
    if lean:  # 0.22-0.25: the bf16 logits and their fp32 copy
        return model_dtype_logits(LEAN_SAMPLER_BYTES_PER_LOGIT, act_bytes)
    return v1_sampler_bytes(fl.version, rows, model, s) if fl.v1 else SAMPLER_BYTES_PER_LOGIT


def budget_steps(st: Steps, req: SizeRequest, s: EngineSettings, fl: Flavour, memory: int,
                 util: Fraction, batched: int, rows: int, lean: bool, block: int,
                 shape: LayerShape, groups: Groups, seqs: int = 0) -> Budget:
    """Record the budget's steps, from the GPU's memory to the KV cache memory, in `st`."""
    m = s.measured
    # A logged non-torch figure (0.28's "consumed memory" is read as weights, non-torch 0)
    # already holds the state, so it is booked only where kvplan models non-torch memory.
    mrv2 = (state_bytes(seqs, req.model.vocab_size, batched, s.num_speculative_tokens or 0)
            if booked(fl.version, fl.v1, lean) and m.non_torch_bytes is None else None)
    st.given("GPU memory", memory, "bytes",
             "total memory the log printed" if m.memory_bytes else f"{req.gpu.name} total memory")
    st.given("gpu_memory_utilization", util, "ratio",
             "flag" if s.memory_fraction is not None else util_why(fl))
    st.op("requested memory", "mul", ["GPU memory", "gpu_memory_utilization"], "bytes",
          "floor(GPU memory x gpu_memory_utilization)")
    weights, weights_how = weights_for(req, s)
    absorbed = absorbed_bytes(req, fl.version, fl.v1) if m.weights_bytes is None else 0
    if absorbed:  # V0 0.7.1-0.7.3 MLA: the absorbed decode matrices (kvplan.engines.vllm_v0_mla)
        weights += absorbed
        weights_how += (f" + {gib(absorbed)} of V0's absorbed MLA matrices (W_QR, kv_b_proj "
                        "dequantized, W_Q_UK, W_UV_O; attention/backends/mla/utils.py)")
    whole = replicated_extra_bytes(req, fl.version) if m.weights_bytes is None else 0
    if whole:  # MLA down-projections unsharded (kvplan.engines.mla_replicated)
        weights += whole
        weights_how += (f" + {gib(whole)} of MLA down-projections (q_a_proj, kv_a_proj_with_mqa) "
                        "held whole on every TP rank")
    tower = tower_extra_bytes(req, fl.version) if m.weights_bytes is None else 0
    if tower:  # the vision tower's unsharded parts (kvplan.engines.vision_replicated)
        weights += tower
        weights_how += (f" + {gib(tower)} of the vision tower held whole on every TP rank "
                        "(patch/position embeddings, norms, row-parallel biases, projector)")
    width = serving_act_bytes(req.effective_weight_dtype)
    per_logit = sampler_bytes(fl, lean, rows, req.model, s, width)
    act_model = activation_peak(req.model, req.tp, batched, rows, quantized(req), per_logit,
                                modular_moe(fl.version, fl.v1, req.model,
                                            req.effective_weight_dtype), act_bytes=width)
    act = Interval.exact(m.activation_bytes) if m.activation_bytes is not None else act_model.peak
    act, enc = with_encoder_cache(act, req.model, batched, s.limit_mm_per_prompt,
                                  fl.v1 and m.activation_bytes is None,
                                  tower_profile(req.model, fl.version, req.context_tokens,
                                                s.enforce_eager, req.tp) if fl.v1 else None)
    hold = record_stream_hold(fl.version, fl.v1, req.model, req.tp, batched)
    early = early_activation(fl.version, fl.v1, req.model, req.tp, batched, rows, quantized(req))
    if early is not None and m.activation_bytes is None:  # 0.2.5-0.5.4: allocator reserved
        act, hold, act_model = early.peak, None, replace(act_model, formula=early.formula)
    if hold is not None and m.activation_bytes is None:  # vLLM 0.2.5 with TP
        act = Interval(act.best + hold.best, act.low + hold.low, act.high + hold.high)
    out = allreduce_out(fl.version, fl.v1, req.model, req.tp, batched) if (
        early is None and m.activation_bytes is None) else None
    if out is not None:  # V0 from 0.7 with TP: the out-of-place all-reduce output
        act = Interval(act.best + out.best, act.low + out.low, act.high + out.high)
    estimate = graphs_subtracted(fl, lean, s.enforce_eager)  # kvplan.engines.vllm_graphs
    # the estimate by the capture sizes (kvplan.engines.vllm_capture), a rank's layers
    graph_term, graph_how, cap = booked_graphs(fl.version, seqs, batched,
                                               -(-req.model.num_layers // req.pp),
                                               s.num_speculative_tokens or 0, req.gpu.name,
                                               Stated(s.cudagraph_capture_sizes,
                                                      s.max_cudagraph_capture_size,
                                                      s.cudagraph_mode))
    pp_buffer = 0  # the received hidden states of a stage after the first (vllm_stages)
    if (req.pp > 1 and m.weights_bytes is None and m.activation_bytes is None
            and m.kv_cache_bytes is None and not m.stage_kv_bytes
            and s.kv_cache_memory_bytes is None and req.kv_budget_bytes is None):
        stage = limiting_stage(req, s, fl, memory, util, weights, act, batched, block, per_logit,
                               (mrv2.last_stage, mrv2.other_stage) if mrv2 else (0, 0),
                               graph_term.best if estimate else 0,
                               intermediate_bytes(req, fl.v1, fl.version, lean, batched),
                               tower)
        if stage is not None:
            weights, act, shape, groups, how, last, first = stage
            weights_how += how
            pp_buffer = 0 if first else intermediate_bytes(req, fl.v1, fl.version, lean, batched)
            if mrv2 is not None and not last:
                mrv2 = replace(mrv2, last_stage=mrv2.other_stage,
                               formula=f"input buffers {batched:,} tokens x 13 B (a stage "
                                       "before the last holds no sampler state)")
    st.given("weights", weights, "bytes", weights_how)
    st.given("activation peak", act.best, "bytes",
             "measured (log)" if m.activation_bytes is not None else
             act_model.formula + (f"; plus the {enc.formula}" if enc is not None else "")
             + (f"; plus {2 * req.model.num_layers + 1} all-reduce inputs of {batched:,} x "
                f"{req.model.hidden_size:,} x 2 B held by record_stream (vLLM 0.2.5)"
                if hold is not None and m.activation_bytes is None else "")
             + (f"; plus the all-reduce output of {batched:,} x {req.model.hidden_size:,} x 2 B "
                "(V0 from 0.7: out of place)" if out is not None else ""))
    if m.non_torch_bytes is not None:
        nt, nt_how = Interval.exact(m.non_torch_bytes), "measured (log)"
    else:
        nt, nt_how = non_torch(fl, req.tp, weights, quantized(req),
                               nvlink_module(req.gpu.label, req.gpu.device_names),
                               req.gpu.unified_memory, s.tp_transport,
                               not s.disable_custom_all_reduce,
                               nvswitch_generation(req.gpu.label, req.gpu.device_names),
                               fp8_at_load(req.effective_weight_dtype.bits,
                                           req.model.weight_dtype.bits,
                                           req.model.weight_quant is not None))
    st.given("non-torch memory", nt.best, "bytes", nt_how)
    terms = ["requested memory", "-weights", "-activation peak", "-non-torch memory"]
    if mrv2 is not None:
        st.given("Model Runner V2 state", mrv2.last_stage, "bytes", mrv2.formula)
        terms.append("-Model Runner V2 state")
    if pp_buffer:
        st.given("pipeline intermediate buffer", pp_buffer, "bytes",
                 f"{batched:,} tok x hidden {req.model.hidden_size:,} x {PP_INTERMEDIATE_KEYS} "
                 "(hidden states, residual) x 2 B: the received hidden states a stage after the "
                 "first keeps (make_empty_intermediate_tensors; booked by every V1 release's old "
                 "runner, by Model Runner V2 from 0.27)")
        terms.append("-pipeline intermediate buffer")
    graphs = Interval.exact(0)
    why = graphs_note(fl, lean, s.enforce_eager)
    if estimate and m.cuda_graph_bytes is None:  # the capture sizes used (explain's line)
        why = f"CUDA graphs: {graph_how}; {why.removeprefix('CUDA graphs: ')}"
    if estimate:
        graphs = (Interval.exact(m.cuda_graph_bytes) if m.cuda_graph_bytes is not None
                  else graph_term)
        st.given("CUDA graph memory", graphs.best, "bytes",
                 "measured (log)" if m.cuda_graph_bytes is not None else
                 why.removeprefix("CUDA graphs: "))
        terms.append("-CUDA graph memory")
    elif fl.graphs_subtracted and not s.enforce_eager:  # Model Runner V2, 0.25-0.28: 0
        st.given("CUDA graph memory", 0, "bytes", why.removeprefix("CUDA graphs: "))
    stated = (m.kv_cache_bytes is not None or s.kv_cache_memory_bytes is not None
              or req.kv_budget_bytes is not None)
    budget_range: tuple[int, int] | None = None
    if fl.extensible_kv and not stated:  # 0.34: sized after warm-up (vllm_extensible)
        terms[0], budget_range = _headroom_steps(st, req, s, memory, act.best)
    if m.kv_cache_bytes is not None:
        kv = int(st.given("KV cache memory", m.kv_cache_bytes, "bytes", "measured (log)"))
    elif s.kv_cache_memory_bytes is not None:
        kv = int(st.given("KV cache memory", s.kv_cache_memory_bytes, "bytes",
                          "stated (--kv-cache-memory-bytes): no profiling subtraction"))
    elif req.kv_budget_bytes is not None:
        kv = int(st.given("KV cache memory", req.kv_budget_bytes, "bytes",
                          "stated (--kv-budget-gib, vLLM's --kv-cache-memory)"))
    else:
        kv = int(st.op("KV cache memory", "sum", terms, "bytes",
                       " - ".join(t.lstrip("-") for t in terms)))
    return Budget(requested=st.int(terms[0]), weights=weights, act=act, nt=nt,
                  graphs=graphs, kv=kv, enc=enc, shape=shape, groups=groups, capture=cap,
                  state=mrv2.last_stage if mrv2 is not None else 0,
                  graphs_note=why,
                  requested_low=budget_range[0] if budget_range else None,
                  requested_high=budget_range[1] if budget_range else None)


def _headroom_steps(st: Steps, req: SizeRequest, s: EngineSettings, memory: int,
                    transient: int) -> tuple[str, tuple[int, int]]:
    """vLLM 0.34's cap on the budget (kvplan.engines.vllm_extensible): the memory free at
    start-up (less the CUDA context and, with TP, what the TP set-up holds before the snapshot,
    kvplan.engines.vllm_tp_setup) less the margin measure_kv_cache_bytes keeps; returns the
    label of the budget the non-KV terms come out of, min(requested memory, device headroom),
    and that budget's low and high ends (the TP set-up's range; the margin at its best)."""
    rocm = req.gpu.vendor.lower() == "amd"
    st.given("CUDA context", CONTEXT, "bytes",
             "in use before the start-up snapshot (kvplan's V1 context term)")
    terms = ["GPU memory", "-CUDA context"]
    setup = Interval.exact(0)
    if req.tp > 1:
        setup, how = tp_setup(req.tp, nvlink_module(req.gpu.label, req.gpu.device_names),
                              s.tp_transport, not s.disable_custom_all_reduce,
                              nvswitch_generation(req.gpu.label, req.gpu.device_names))
        st.given("TP set-up before the snapshot", setup.best, "bytes", how)
        terms.append("-TP set-up before the snapshot")
    st.given("warm-up margin", margin(transient, rocm), "bytes",
             f"max({3 if rocm else 1} GiB, {MARGIN_FRACTION} x activation peak) "
             "(extensible_kv_cache.py:64-65, :615)")
    terms.append("-warm-up margin")
    st.op("device headroom", "sum", terms, "bytes", " - ".join(t.lstrip("-") for t in terms))
    cap = st.int("device headroom")
    assert cap == headroom(memory, transient, rocm, setup.best)
    st.op("KV sizing budget", "min", ["requested memory", "device headroom"], "bytes",
          "min(requested memory, device headroom) (extensible_kv_cache.py:616)")
    requested = st.int("requested memory")
    return "KV sizing budget", (min(requested, cap - (setup.high - setup.best)),
                                min(requested, cap + (setup.best - setup.low)))
