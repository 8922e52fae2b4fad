"""vLLM: how `vllm serve` turns GPU memory into KV-cache blocks, V0 and V1 engines.

Assumptions (each checked against a real start-up log in tests/assets/logs, or read in vLLM's
source: vllm/v1/worker/gpu_worker.py determine_available_memory, vllm/utils/mem_utils.py
memory_profiling, vllm/v1/core/kv_cache_utils.py, vllm/v1/kv_cache_interface.py):

- requested = total memory x gpu_memory_utilization (of TOTAL memory, not free memory).
- KV memory = requested - weights - profiled activation peak - non-torch memory
  (- estimated CUDA-graph memory for vLLM >= 0.21, which subtracts it by default, except for
  models Model Runner V2 runs in 0.25-0.28, whose estimate is 0 (kvplan.engines.vllm_graphs);
  earlier versions capture graphs after sizing the cache, out of the 1 - utilization).
  V0 (< 0.8) prints the same terms ("Memory profiling results").
- activation peak: a dummy batch of max_num_batched_tokens tokens, and the sampler on
  max_num_seqs rows (see kvplan.engines.activation). Defaults (`vllm serve`, V1; the offline
  LLM class profiles more tokens: kvplan.engines.vllm_entrypoint):
  max_num_batched_tokens 8192 and max_num_seqs 1024 on GPUs with >= 70 GiB (not A100),
  2048 and 256 otherwise; V0: max(max_model_len, 2048) tokens (2048 with chunked prefill above
  32,768), 256 sequences. The V1 sampler (0.8-0.24; MoE to 0.28) holds 16 B a logit (fp32 logits and the
  sorted values and indices), V0's 40 B. Model Runner V2 (0.25 on for dense models, 0.29 on for all) profiles
  the sampler without top-k/top-p (6 B per logit, not 40) and, from 0.29, on 1/TP of the rows.
- non-torch memory: V1 counts only its growth after start-up (0.07 GiB measured on one GPU,
  about 1 GiB more with tensor parallelism for NCCL and custom all-reduce buffers); V0 before 0.7
  counts the CUDA context too (0.26-0.35 GiB measured on one GPU); from 0.7 the V0 worker books
  growth over a MemorySnapshot as V1 does (0.01-0.05 GiB measured on one GPU).
- page per layer = block_size x KV heads per rank x (head_size + v_head_size) x dtype bytes;
  MLA: block_size x (kv_lora_rank + qk_rope_head_dim) x dtype bytes, one latent, not split by TP.
- blocks = KV memory // page // layers per group; hybrid models (sliding + full layers) are
  grouped as vLLM groups them (group size = the smaller layer count, or the larger one when
  it is under 1.5 x the smaller); one block pool is shared by all groups.
- "Maximum concurrency" = blocks / blocks one max_model_len request needs (full layers:
  ceil(L / block); sliding layers: ceil(min(window - 1 + in-flight tokens, L) / block) + 1,
  in-flight = max_num_batched_tokens, from 0.26 2 batches of it at PP 1), summed over groups;
  "GPU KV cache size" = blocks // groups x block_size tokens (0.9-0.20), from 0.21
  int(concurrency x max_model_len) (kvplan.engines.vllm_groups.printed_tokens).
- a stated KV budget (--kv-budget-gib) is vLLM's --kv-cache-memory: it replaces the subtraction.
- vLLM refuses to start when one max_model_len request does not fit; the largest length it
  would accept is found by the same binary search vLLM uses to suggest one.
- pipeline parallelism: the pool is the smallest over ranks; kvplan sizes the stage with the
  most layers.
- linear-attention (mamba-style) layers (V1, kvplan.engines.vllm_hybrid): one more layer type
  in the grouping, each state group a page per block id; the attention block raised to
  16 x ceil(state page / (16 x attention page of a token)) and the state padded to it; one
  block a request per state group (Qwen3-Next at TP 2: 544-token blocks, 4 groups of 12).
"""

from __future__ import annotations

from dataclasses import replace

from kvplan.capacity.kv import Allocation
from kvplan.capacity.plan import USERS_CAPPED, SizeRequest
from kvplan.engines.common import LayerShape, gib, layer_shape, users_steps
from kvplan.engines.interface import (
    Engine,
    EngineResult,
    EngineSettings,
    Steps,
    finish_size,
    parse_version,
)
from kvplan.engines.vllm_assumptions import assumptions as _assumptions
from kvplan.engines.vllm_assumptions import per_layer_formula as _per_layer_formula
from kvplan.engines.vllm_entrypoint import entrypoint_note, offline_defaults
from kvplan.engines.vllm_extensible import (
    applied_flavour,
    default_util,
    from_034,
)
from kvplan.engines.vllm_flags import draft_block_bytes, v0_split_steps
from kvplan.engines.vllm_groups import (
    Groups,
    _largest_len,
    _tokens,
    blocks_per_request,
    in_flight_tokens,
    kv_groups,
    printed_tokens,
    unified,
)
from kvplan.engines.vllm_hybrid import (
    STATE_BLOCKS_PER_REQUEST,
    hybrid_block_size,
    is_hybrid,
    kernel_alignment,
    padding_note,
    state_formula,
    state_page_bytes,
)
from kvplan.engines.vllm_hybrid_off import chunked_off, manager_off
from kvplan.engines.vllm_kv_int import int_cache_check
from kvplan.engines.vllm_memory import budget_steps
from kvplan.engines.vllm_nontorch import (
    NON_TORCH_V0,
    NON_TORCH_V0_TP,
    NON_TORCH_V1,
    NON_TORCH_V1_TP,
    NON_TORCH_V1_TP_NVLINK,
    NON_TORCH_V1_UNIFIED,
    REPACK_CACHED_SHARE,
    counts_other_processes,
)
from kvplan.engines.vllm_series import (
    BIG_GPU_BYTES,
    DEFAULT_VERSION,
    GRAPH_SUBTRACTED_FROM,
    V1_FROM,
    Flavour,
    flavour,
    mla_block_size,
)
from kvplan.engines.vllm_series import batching_defaults as _batching_defaults
from kvplan.engines.vllm_sort_sampler import sampler_note
from kvplan.engines.vllm_stages import stage_layers, stage_weights
from kvplan.engines.vllm_v0_mla import pads_mla_rows, v0_mla_shape
from kvplan.errors import InputError
from kvplan.units import GIB, ceil_div

# V0 prints "Maximum concurrency for N tokens per request" from 0.6.3 (PR #8831; the 0.6.3
# wheel's executor/gpu_executor.py determine_num_available_blocks logs it, 0.6.2 and older
# print only "# GPU blocks"). V1 always prints it.
CONCURRENCY_LINE_FROM = (0, 6, 3)

__all__ = ["BIG_GPU_BYTES", "DEFAULT_VERSION", "GRAPH_SUBTRACTED_FROM",
           "NON_TORCH_V0", "NON_TORCH_V0_TP", "NON_TORCH_V1", "NON_TORCH_V1_TP",
           "NON_TORCH_V1_TP_NVLINK", "NON_TORCH_V1_UNIFIED", "REPACK_CACHED_SHARE", "V1_FROM",
           "Flavour", "Groups", "blocks_per_request", "flavour", "kv_groups", "mla_block_size",
           "profile", "stage_layers", "stage_weights"]


def batching_defaults(req: SizeRequest, fl: Flavour, memory: int,
                      entrypoint: str | None = None) -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs) that `vllm serve` (or, with entrypoint offline,
    the LLM class: kvplan.engines.vllm_entrypoint) picks when not given."""
    serve = _batching_defaults(req.context_tokens, req.gpu.name, fl, memory)
    return offline_defaults(serve, fl.v1, entrypoint)


def batching(req: SizeRequest, s: EngineSettings) -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs) a run profiles with: as stated, else the
    defaults (`profile` uses it)."""
    d_batched, d_seqs = batching_defaults(req, applied_flavour(s),
                                          s.measured.memory_bytes or req.gpu.memory_bytes,
                                          s.entrypoint)
    return s.max_num_batched_tokens or d_batched, s.max_num_seqs or d_seqs


def profile(req: SizeRequest, s: EngineSettings) -> EngineResult:
    """vLLM's start-up accounting for one request."""
    req.check()
    s.check()
    refused, int_note = int_cache_check(req, s.version)  # int8/int4: vLLM's per-token-head caches
    if refused is not None:
        raise InputError(refused)
    req = replace(req, allocation=Allocation.paged)  # vLLM always pages
    fl = applied_flavour(s)
    m = s.measured
    memory = m.memory_bytes or req.gpu.memory_bytes
    util = s.memory_fraction if s.memory_fraction is not None else default_util(fl)
    length = req.context_tokens
    block = req.block_size_tokens
    if req.model.attention.mla is not None:
        block = mla_block_size(req.gpu.name, block, fl.v1)
        req = replace(req, block_size_tokens=block)
    hybrid = is_hybrid(req, fl.v1)
    asked_block = block
    if hybrid:  # the attention block raised so its page holds a linear layer's state
        state_page = state_page_bytes(req)
        align = kernel_alignment(req, fl.version)
        block = hybrid_block_size(layer_shape(req).bytes_per_token_per_layer, state_page, align,
                                  block)
        req = replace(req, block_size_tokens=block)
    batched, seqs = batching(req, s)
    rows = min(seqs, batched) if fl.v1 else seqs
    lean = fl.lean_sampler(req.model.moe is not None, req.model.model_type, hybrid,
                           req.model.weight_quant is not None
                           or req.effective_weight_dtype.bits < 16)
    if fl.sharded_sampling and req.tp > 1:
        rows = ceil_div(rows, req.tp)  # batch-sharded sampling (0.29-0.32)
    off = manager_off(req.model, fl.version, fl.v1, s.disable_hybrid_kv_cache_manager,
                      s.chunked_local_hybrid)  # the flag, or vLLM's own rule (vllm_hybrid_off)
    shape = unified(v0_mla_shape(layer_shape(req), req, fl.version, fl.v1), off, fl.v1)
    groups = kv_groups(shape, fl.v1, fl.wide_groups)
    flight = in_flight_tokens(batched, req.pp, lean, fl.in_flight_batches)

    st = Steps()
    b = budget_steps(st, req, s, fl, memory, util, batched, rows, lean, block, shape, groups,
                     seqs)
    shape, groups, kv, requested, weights = b.shape, b.groups, b.kv, b.requested, b.weights
    act, nt, graphs = b.act, b.nt, b.graphs

    per_layer = shape.bytes_per_token_per_layer
    _block_steps(st, req, s, fl, shape, groups, block, (state_page, align) if hybrid else None)
    if s.draft_model is not None and not fl.v1:  # V0's even split (kvplan.engines.vllm_flags)
        v0_split_steps(st)
    else:
        st.op("blocks (raw)", "div", ["KV cache memory", "bytes per block"], "blocks",
              "floor(KV cache memory / bytes per block)")
    if m.stage_kv_bytes:
        stage_blocks = [
            kv_s // (block * per_layer * n)
            for kv_s, n in zip(m.stage_kv_bytes, stage_layers(req), strict=False) if n
        ]
        blocks = int(st.given("GPU blocks", max(0, min(stage_blocks)), "blocks",
                              "smallest over pipeline stages (measured KV per stage)"))
    else:
        blocks = int(st.op("GPU blocks", "max", ["blocks (raw)", 0], "blocks", "never below 0"))
    st.given("KV cache groups", groups.count if (fl.v1 and fl.grouped_tokens) else 1, "groups",
             f"{groups.full_groups} full + {groups.sliding_groups} sliding-window"
             + (f" + {groups.linear_groups} linear-attention state" if groups.linear_groups
                else ""))
    st.op("blocks per group", "div", ["GPU blocks", "KV cache groups"], "blocks",
          "floor(GPU blocks / groups)")
    need = blocks_per_request(shape, groups, length, block, flight, fl.v1)
    if fl.v1 and fl.concurrency_tokens:
        tokens = int(st.given("GPU KV cache size", printed_tokens(blocks, need, length, groups, block,
                                                               True, True), "tokens",
                          f"int(GPU blocks / blocks per request x max_model_len {length:,}) "
                          "(0.21 on; kv_cache_utils.py get_kv_cache_capacity)"))
    else:
        tokens = int(st.op("GPU KV cache size", "mul", ["blocks per group", "block size"],
                           "tokens", "blocks per group x block size"))
    st.given("blocks per request", need, "blocks",
             f"one request of max_model_len {length:,} tokens"
             + (f"; sliding layers hold min(window - 1 + {flight:,}, L) tokens + 1 block"
                + (f" ({flight // batched} batches of {batched:,} in flight)"
                   if flight != batched else "")
                if fl.v1 and shape.window else "")
             + (f"; {groups.linear_groups} state group(s) x {STATE_BLOCKS_PER_REQUEST} block"
                if groups.linear_groups else ""))
    if fl.v1 and fl.grouped_tokens:
        conc = st.op("maximum concurrency", "ratio", ["GPU blocks", "blocks per request"],
                     "ratio", "GPU blocks / blocks per request")
    else:
        conc = st.op("maximum concurrency", "ratio", ["GPU KV cache size", length], "ratio",
                     "GPU KV cache size / max_model_len (V0 and V1 before 0.9)")

    # Start-up check and the largest length that would start.
    bytes_per_block = st.int("bytes per block")
    starts, reason = True, None
    largest = _largest_len(shape, groups, block, flight, fl.v1, kv, bytes_per_block,
                           req.model.max_context_tokens)
    if kv <= 0:
        starts = False
        reason = (f"vLLM would not start: no memory for the KV cache ({gib(kv)} after weights "
                  f"{gib(weights)}, activations {gib(act.best)} and other overheads); raise "
                  "gpu_memory_utilization, add GPUs or lower max_num_batched_tokens")
    elif need > blocks:
        starts = False
        if fl.v1:
            reason = (f"vLLM would not start: one request of max_model_len {length:,} needs "
                      f"{gib(need * bytes_per_block)} of KV cache but {gib(kv)} is available; "
                      f"the estimated maximum model length is {largest:,}")
        else:
            reason = (f"vLLM would not start: max seq len ({length:,}) is larger than the "
                      f"maximum number of tokens that can be stored in KV cache ({tokens:,})")

    req_lo = b.requested_low if b.requested_low is not None else requested
    req_hi = b.requested_high if b.requested_high is not None else requested
    lo_kv = req_lo - weights - act.high - nt.high - graphs.high - b.state
    hi_kv = req_hi - weights - act.low - nt.low - graphs.low - b.state
    if (s.kv_cache_memory_bytes is not None or req.kv_budget_bytes is not None
            or s.measured.kv_cache_bytes is not None):
        # a stated (or logged) pool is the pool: no activation estimate moves it. Until task
        # h100review the range was still worked out from the profile, so --kv-cache-memory-bytes
        # 90,000,000,000 for Llama-3.1-70B TP 4 on H200s (1,098,624 tokens) printed a range of
        # "1,248,640 to 1,354,160" that did not hold the stated pool
        lo_kv = hi_kv = kv
    grouped = fl.v1 and fl.grouped_tokens
    conc_tokens = fl.v1 and fl.concurrency_tokens
    tok_lo = _tokens(lo_kv, bytes_per_block, groups, block, grouped, need, length, conc_tokens)
    tok_hi = _tokens(hi_kv, bytes_per_block, groups, block, grouped, need, length, conc_tokens)

    lines = []
    if fl.v1:
        lines += [f"Available KV cache memory: {kv / GIB:.2f} GiB",
                  f"GPU KV cache size: {tokens:,} tokens",
                  f"Maximum concurrency for {length:,} tokens per request: {float(conc):.2f}x"]
    else:
        lines.append(f"# GPU blocks: {blocks}")
        if (parse_version(fl.version) or ()) >= CONCURRENCY_LINE_FROM:
            lines.append(f"Maximum concurrency for {length} tokens per request: "
                         f"{float(conc):.2f}x")
    assumptions = _assumptions(req, s, fl, b, util, batched, seqs, block, asked_block,
                               state_page if hybrid else None)
    if int_note is not None:
        assumptions.append(int_note)
    if (why := chunked_off(req.model, fl.version, fl.v1, s.chunked_local_hybrid)) is not None:
        assumptions.append(why)  # vLLM turned its hybrid manager off by itself
    if (why := entrypoint_note(s.entrypoint, fl.v1, batching_defaults(req, fl, memory),
                               s.max_num_batched_tokens)) is not None:
        assumptions.append(why)  # which defaults applied: `vllm serve`'s or the LLM class's
    if s.measured.activation_bytes is not None:  # the sampler's bytes do not enter
        if s.topk_topp_sampler is not None:
            assumptions.append(f"topk_topp_sampler {s.topk_topp_sampler}: the activation peak "
                               "is measured (log), so it is not used")
    elif (why := sampler_note(fl.version, fl.v1, lean, rows, req.model, s)) is not None:
        assumptions.append(why)  # the 0.10 sampler path: unused where stated, or the pip default
    if (rule := counts_other_processes(fl)) is not None:
        room = f"; it starts while they hold under {gib(kv - need * bytes_per_block)} (the pool " \
            f"less one {length:,}-token request)" if starts else ""
        assumptions.append(f"nothing else on the GPU: vLLM {fl.version} counts memory any other "
                           f"process holds there against its budget ({rule}), so it comes off "
                           f"this pool{room}")
    overhead = act.best + nt.best + graphs.best + b.state
    per_user = blocks_per_request(shape, groups, req.tokens_held, block, flight, fl.v1)
    users = blocks // per_user if per_user else 0
    if s.cap_max_num_seqs and s.max_num_seqs is not None and users > s.max_num_seqs:
        users = s.max_num_seqs  # the scheduler runs no more sequences at once
        assumptions.append(f"{USERS_CAPPED}--max-num-seqs {users:,}")
    sized = finish_size(req, kv, overhead, requested, starts, reason, largest, assumptions,
                        weights_bytes=weights,
                        users_override=(users, users * per_user * bytes_per_block))
    users_steps(st, sized, "GPU blocks", starts, per_user_blocks=per_user)
    return EngineResult(
        engine=Engine.vllm,
        engine_version=fl.version + ("" if fl.v1 else " (V0)"),
        size=sized,
        memory_bytes=memory,
        requested_bytes=requested,
        weights_bytes=weights,
        activation_bytes=act.best,
        activation_bytes_low=act.low,
        activation_bytes_high=act.high,
        non_torch_bytes=nt.best,
        cuda_graph_bytes=graphs.best,
        kv_cache_bytes=kv,
        kv_cache_bytes_low=lo_kv,
        kv_cache_bytes_high=hi_kv,
        kv_cache_tokens=tokens,
        kv_cache_tokens_low=tok_lo,
        kv_cache_tokens_high=tok_hi,
        blocks=blocks,
        block_size_tokens=block,
        max_model_len=length,
        max_concurrency=conc,
        starts=starts,
        reason=reason,
        max_model_len_that_starts=largest,
        steps=tuple(st.items),
        assumptions=tuple(assumptions),
        log_lines=tuple(lines),
        graph_capture=b.capture,
    )


def _block_steps(st: Steps, req: SizeRequest, s: EngineSettings, fl: Flavour, shape: LayerShape,
                 groups: Groups, block: int, hybrid: tuple[int, int] | None) -> None:
    """The block layout: page per layer, layers per block id, a draft model's share; `hybrid`
    is (state page, kernel alignment) of a linear-attention model."""
    per_layer = shape.bytes_per_token_per_layer
    state_page, align = hybrid or (0, 0)
    linear = req.model.attention.linear
    if hybrid is not None and linear is not None:
        st.given("linear-attention state per layer", state_page, "bytes",
                 state_formula(req, linear))
    st.given("block size", block, "tokens",
             (f"raised so the attention page holds the state: {align} x ceil(state / ({align} x "
              f"{per_layer:,} B)); {padding_note(block * per_layer, state_page)}") if hybrid is not None else
             ("--block-size (vLLM 0.34 default 64, config/cache.py:185: kvplan takes 16 "
              "unless given; MLA 64 on Hopper, 128 on Blackwell)") if from_034(fl) else
             "--block-size (vLLM default 16; MLA 64 on Hopper, 128 on Blackwell)")
    st.given("KV bytes per token per layer", per_layer, "bytes",
             _per_layer_formula(req) + ("; V0 0.7.2-0.7.3 pads the row to a 256 B multiple "
                                        "(cache_engine.py get_cache_block_size)"
                                        if pads_mla_rows(req, fl.version, fl.v1) else ""))
    st.op("page size per layer", "mul", ["block size", "KV bytes per token per layer"], "bytes",
          "block size x KV bytes per token per layer")
    paged = shape.cached_layers + (shape.linear_layers if groups.linear_groups else 0)
    st.given("layers per block", groups.group_size, "layers",
             "layers sharing one block id" + (
                 f" ({groups.padding_layers - paged} padding)"
                 if groups.padding_layers > paged else ""))
    if s.draft_model is None:
        st.op("bytes per block", "mul", ["page size per layer", "layers per block"], "bytes",
              "page size per layer x layers per block")
    else:  # the draft's KV layers take a block of the same tokens from the same pool
        st.op("target bytes per block", "mul", ["page size per layer", "layers per block"],
              "bytes", "page size per layer x layers per block")
        st.given("draft KV bytes per block", draft_block_bytes(req, s, groups.count, fl.v1),
                 "bytes", f"{s.draft_model.name}: block size x its KV bytes per token, all its "
                 "layers")
        st.op("bytes per block", "sum", ["target bytes per block", "draft KV bytes per block"],
              "bytes", "target + draft (one block id covers both models' layers)")
