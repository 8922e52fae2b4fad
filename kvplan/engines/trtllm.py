"""TensorRT-LLM: free_gpu_memory_fraction of the memory free after weights and activations.

Assumptions (TensorRT-LLM docs "Memory Usage of TensorRT-LLM", the executor's start-up lines and
the PyTorch backend's two-phase estimate; checked against tests/assets/logs):
- free = total - weights - activations (execution context / profiled peak) - non-torch (CUDA
  context, runtime buffers, NCCL); KV pool = free x free_gpu_memory_fraction (default 0.9).
  The PyTorch backend (1.x) sizes the cache twice: a small pool for profiling, then the real one
  from the peak it measured; the last "Allocated ... for max tokens in paged KV cache" counts.
- tokens per block: 64 before 0.19, 32 from 0.19 on (both backends); --page-size states it;
  FlashMLA on the PyTorch backend sets 64 over either (kvplan.engines.trtllm_mla.flash_mla_block).
- PyTorch backend (tensorrt_llm/_torch/pyexecutor/_util.py, cal_max_tokens / _cal_max_tokens;
  read term by term in kvplan/engines/trtllm_pytorch.py):
  available = (total - peak + the profiling pool's bytes) x fraction, peak = torch peak plus
  non-torch; max_tokens = floor(available / KV bytes per token). The profiling batch is dummy
  context requests of min(max_num_tokens, max_seq_len) tokens up to max_num_tokens, one output
  token each (so the sampler sees a handful of rows, not max_batch_size).
- C++ path (cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp calculateMaxNumBlocks, 0.11/0.12
  era as stored at arthurrasmusson/TensorRT-LLM@2730076): maxTokens = floor(fraction x
  (cudaMemGetInfo free + memory-pool free) / bytes per token), measured after the engine and its
  execution context exist; the execution context is TensorRT's build-time plan
  (device_memory_size, docs/source/reference/memory.md), which kvplan cannot compute from the
  build limits: the forward-pass model stands in for it and its interval.
- C++ path, before the pool: TllmRuntime allocates the engine's getDeviceMemorySize()
  ("[MemUsageChange] Allocated X MiB for execution context memory", runtime/tllmRuntime.cpp;
  `trt_activation_bytes` states it, else the forward proxy stands in), then the executor's
  runtime buffers and decoder, both sized by max_batch_size (the TrtGptModelInflightBatching
  constructor, batch_manager/trtGptModelInflightBatching.cpp: createRuntimeContexts,
  createBuffers, createDecoder, then createKvCacheManager; "Allocated 1.63 GB ... runtime
  buffers", "3.30 GB ... decoder" at 2,048 slots in log 251). From 0.11 on the engine path kvplan
  books them from the source's shapes, with a range for the logits type and the sampling
  workspace (kvplan/engines/trtllm_buffers.py, task h30trt; docs/engines-findings.md, "TensorRT-LLM's
  runtime buffers and decoder"); `kvplan calibrate` also reads and reports the four lines
  (kvplan/calibrate/lines_trtllm.py).
  The GptSession path (0.8, ModelRunnerCpp) builds the same TllmRuntime in its constructor, before
  setup() creates the KV cache manager (cpp/tensorrt_llm/runtime/gptSession.cpp, 0.8-era, code
  index id 37575593; tllmRuntime.cpp id 710132357; at main e06f537e, 0.8.0.dev2024013000:
  gptSession.cpp:82 builds mRuntime, :268 setup() calls createKvCacheManager at :312), so the
  order does not explain log 145: its TensorRT lines show 210 MiB allocated there, where the
  stated 1,728 MiB context would not have left room for its pool on a 24,576 MiB card (task
  h37trt145; docs/engines-findings.md, "TensorRT engines before 0.11").
- max_tokens: the smaller of it and the estimate when a fraction is set (the 1.x LLM API always
  sets one, default 0.9); on the C++ path with no fraction it replaces the estimate. Then
  blocks = ceil(max_tokens / tokens per block) ("max_tokens 86711 -> 86720" in a 1.x log).
- activations: the forward pass over max_num_tokens tokens, no sampler rows; for a TensorRT
  engine, `trt_activation_bytes` (--trt-activation-bytes: trtllm-build's "Total Activation
  Memory", the execution context the runtime allocates before the pool) replaces that proxy and
  its interval with the engine's own figure. max_num_tokens unstated: 8192 from 0.11 and on the
  PyTorch backend; an engine before 0.11 was planned for max_batch_size x max_input_len
  (trtllm-build's check_max_num_tokens; build.py's GenerationMixin), with the build's default
  max_input_len (trtllm-build 0.8-0.10: 1024; examples/llama/build.py before 0.8: 2048) and
  max_batch_size where unstated (1; 8): `engine_max_num_tokens`. The proxy is not TensorRT's
  plan: 145's build log prints 1.33x it at 12,288 tokens, 96's runtime 1.31x at 8,192, 143's
  log about 0.93x at 40,960; FORWARD_SPREAD's 0.85-1.35 carries that.
- non-torch: on the engine path 0.75 GiB (79.10 - 70.48 GiB in the docs' example, less its
  engine and execution context); on the PyTorch backend 1.58 GiB, what its profiling measures
  outside torch (kvplan/engines/trtllm_pytorch.py, fitted on log 19); a log's free memory or
  breakdown replaces either.
- too small a pool does not stop TensorRT-LLM: it lowers max_seq_len to what fits
  ((blocks - 1) x tokens per block + 1 before 1.0; blocks x tokens per block from 1.0).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from kvplan.capacity.kv import Allocation
from kvplan.capacity.plan import USERS_CAPPED, SizeRequest
from kvplan.engines.activation import activation_peak
from kvplan.engines.common import (
    bytes_per_token_steps,
    gib,
    layer_shape,
    quantized,
    users_steps,
    weights_bytes,
    weights_how,
)
from kvplan.engines.interface import (
    Engine,
    EngineResult,
    EngineSettings,
    Interval,
    Steps,
    finish_size,
    parse_version,
)
from kvplan.engines.trtllm_buffers import executor_buffers
from kvplan.engines.trtllm_kv_int import int_cache_check
from kvplan.engines.trtllm_mla import flash_mla_block, whole_rank_weights
from kvplan.engines.trtllm_pytorch import (
    NON_TORCH_PYTORCH,
    NON_TORCH_PYTORCH_WHAT,
    backend_refusal,
    mrope_table_bytes,
    uses_pytorch,
)
from kvplan.errors import InputError
from kvplan.units import GIB, MIB, ceil_div

# Newest release seen in public material: the 1.3 series (tensorrt_llm==1.3.0rc14..rc23 on
# pypi.nvidia.com in public install notes; "1.3.0" in tests/assets/logs/42). Nothing kvplan models
# changed since 1.0 (PyTorch backend, 32-token blocks).
DEFAULT_VERSION = "1.3.0"
NEWEST_KNOWN = (1, 3, 0)
# TensorRT-LLM's first release, 0.5.0 (October 2023; tests/assets/logs/36 is one): an older
# version is modelled as it, with a note (task h45cli)
OLDEST_KNOWN = (0, 5)
DEFAULT_FRACTION = Fraction(9, 10)
DEFAULT_MAX_NUM_TOKENS = 8192  # trtllm-build from 0.11 (release notes: "switched to 8192")
# Before 0.11 a TensorRT engine built without max_num_tokens got max_batch_size x max_input_len
# (remove_input_padding, which in-flight batching needs): trtllm-build's check_max_num_tokens
# (tensorrt_llm/_common.py at NVIDIA/TensorRT-LLM@5955b8afbad2ddcc3156202b16c567e94c52248f,
# 0.8-era: "remove_input_padding is enabled, while max_num_tokens is not set, setting to
# max_batch_size*max_input_len"; :209 at main e06f537e, 0.8.0.dev2024013000, :210 at 035b99e0 and
# 89ba1b1a, 0.9/0.10, aikitoria/TensorRT-LLM), and before trtllm-build the examples' build.py through
# GenerationMixin.prepare_basic_inputs (num_tokens up to max_input_len x max_batch_size when
# max_num_tokens is None). docs/source/release-notes.md (NVIDIA/TensorRT-LLM@001eaec), 0.11.0:
# "`max_num_tokens` in `trtllm-build` command is switched to 8192 by default".
# The defaults the product takes when the build limits are not stated: (max_batch_size,
# max_input_len). trtllm-build 0.8-0.10 (tensorrt_llm/commands/build.py at 5955b8a and its
# 0.9/0.10 copies: --max_batch_size 1, --max_input_len 1024; build.py:74-75 at main e06f537e, 0.8,
# :78-79 at 035b99e0, 0.9, :79-80 at 89ba1b1a, 0.10); before 0.8 Llama's examples/llama/build.py
# (--max_batch_size 8, --max_input_len 2048: :158-159 on release/0.5.0, :167-168 on
# release/v0.7.1 of octoml/TensorRT-LLM-release; other models' scripts differ).
TRTLLM_BUILD_LIMITS = (1, 1024)
BUILD_PY_LIMITS = (8, 2048)
# A TensorRT engine's activations are TensorRT's build-time plan: TllmRuntime allocates
# ICudaEngine::getDeviceMemorySize() for the execution context before the KV pool is sized
# (cpp/tensorrt_llm/runtime/tllmRuntime.cpp, "[MemUsageChange] Allocated X MiB for execution
# context memory", :246 at main be178810, 0.17.0.dev2024121700); the builder prints the same
# figure ("[TRT] Total Activation Memory: N bytes").
STATED_ACTIVATION = ("trt_activation_bytes: the engine's execution-context memory "
                     "(trtllm-build's Total Activation Memory)")
NON_TORCH = (768 * MIB, 400 * MIB, 2 * GIB)


def engine_max_num_tokens(ver: tuple[int, ...], pytorch: bool, stated: int | None,
                          max_batch_size: int | None, max_seq_len: int) -> tuple[int, str | None]:
    """The forward-pass tokens TensorRT-LLM plans activations for, and why (None: 8192 or stated).

    A TensorRT engine before 0.11 built without max_num_tokens is planned for max_batch_size x
    max_input_len tokens; max_input_len is the build's default, at most max_seq_len - 1 (the
    engine's max_seq_len is max_input_len + max_output_len, max_output_len >= 1)."""
    if stated is not None:
        return stated, None
    if pytorch or ver >= (0, 11):
        return DEFAULT_MAX_NUM_TOKENS, None
    tool, (bs_default, in_default) = (("trtllm-build", TRTLLM_BUILD_LIMITS) if ver >= (0, 8)
                                      else ("examples/llama/build.py", BUILD_PY_LIMITS))
    batch = max_batch_size or bs_default
    input_len = max(1, min(in_default, max_seq_len - 1))
    return batch * input_len, (
        f"max_batch_size {batch:,}{'' if max_batch_size else f' ({tool} default)'} x "
        f"max_input_len {input_len:,} ({tool} default): the engine's default max_num_tokens "
        "before 0.11")


def tokens_per_block(version: tuple[int, ...]) -> int:
    return 32 if version >= (0, 19) else 64


def activation_refusal(version: str | None, stated: int | None,
                       backend: str | None = None) -> str | None:
    """Why a stated TensorRT engine activation does not apply (None: it does). The PyTorch
    backend (the default from 1.0, or stated) has no TensorRT engine and profiles its
    activations instead."""
    ver = parse_version(version or DEFAULT_VERSION) or ()
    if stated is None or not uses_pytorch(ver, backend):
        return None
    return (f"TensorRT-LLM {version or DEFAULT_VERSION} is modelled as the PyTorch backend "
            f"({'stated' if backend else '1.0 on'}), which profiles its activations; the "
            "setting is a TensorRT engine's execution-context memory (trtllm-build's Total "
            "Activation Memory): state the tensorrt backend (or an engine version below 1.0) "
            "for an engine, or drop it")


def _tokens_replace_estimate(pytorch: bool, max_tokens: int | None,
                             fraction: Fraction | None) -> bool:
    """Whether max_tokens_in_paged_kv_cache replaces the memory estimate (C++ engine path with
    no kv_cache_free_gpu_mem_fraction: "will use default value of 0.9 or
    max_tokens_in_paged_kv_cache", tests/assets/logs/143) instead of capping it."""
    return not pytorch and max_tokens is not None and fraction is None


def profile(req: SizeRequest, s: EngineSettings) -> EngineResult:
    """TensorRT-LLM's KV pool for one request."""
    req.check()
    s.check()
    m = s.measured
    version = s.version or DEFAULT_VERSION
    ver = parse_version(version) or ()
    bad_backend = backend_refusal(ver, s.trtllm_backend)
    if bad_backend is not None:
        raise InputError(f"engine.trtllm_backend (--trtllm-backend): {bad_backend}")
    pytorch = uses_pytorch(ver, s.trtllm_backend)
    refused, int_note = int_cache_check(req.kv_dtype, pytorch)  # int8/int4 by backend
    if refused is not None:
        raise InputError(refused)
    refused = activation_refusal(s.version, s.trt_activation_bytes, s.trtllm_backend)
    if refused is not None:
        raise InputError(f"engine.trt_activation_bytes (--trt-activation-bytes): {refused}")
    newer_note = (f"TensorRT-LLM {version} is newer than the newest modelled release (1.3.0): "
                  "modelled as the 1.x PyTorch backend") if ver[:2] > NEWEST_KNOWN[:2] else None
    if ver and ver < OLDEST_KNOWN:
        newer_note = (f"TensorRT-LLM {version} is older than the oldest modelled release (0.5, "
                      "TensorRT-LLM's first): modelled as a 0.5 TensorRT engine")
    memory = m.memory_bytes or req.gpu.memory_bytes
    frac = s.memory_fraction if s.memory_fraction is not None else DEFAULT_FRACTION
    tpb = s.page_size_tokens or tokens_per_block(ver)
    flash = flash_mla_block(req, pytorch, ver)
    flash_note = None
    if flash is not None:
        flash_note = (f"{flash} tokens per block: TensorRT-LLM's PyTorch backend runs FlashMLA for "
                      f"{req.model.name} on {req.gpu.name} (kv_lora_rank + qk_rope_head_dim = "
                      "576, compute capability 9.0) and sets tokens_per_block to 64 "
                      "(\"Change tokens_per_block to: 64 for using FlashMLA\", 0.19 on)"
                      + (f", over the stated {tpb}" if s.page_size_tokens and tpb != flash
                         else ""))
        tpb = flash
    shape = layer_shape(req)
    weights = weights_bytes(req, m.weights_bytes)
    whole = whole_rank_weights(req, pytorch) if m.weights_bytes is None else None
    if whole is not None and whole.total:
        weights += whole.total
    batched, batched_how = engine_max_num_tokens(ver, pytorch, s.max_num_batched_tokens,
                                                 s.max_batch_size, req.context_tokens)
    st = Steps()
    tokens_rule = False
    buf = Interval.exact(0)
    st.given("GPU memory", memory, "bytes", "device total")
    if m.free_after_load_bytes is not None:
        st.given("free memory", m.free_after_load_bytes, "bytes",
                 "measured (log: available / total - peak)")
        act = Interval.exact(0)
        nt = Interval.exact(memory - weights - m.free_after_load_bytes)
    else:
        st.given("weights", weights, "bytes",
                 "measured (log)" if m.weights_bytes is not None else weights_how(req)
                 + (f"; + {whole.how()}" if whole is not None and whole.total else ""))
        if batched_how is not None and m.activation_bytes is None and \
                s.trt_activation_bytes is None:
            tokens_rule = True
            st.given("max_num_tokens", batched, "tokens", batched_how)
        am = activation_peak(req.model, req.tp, batched, 0, quantized(req))
        if m.activation_bytes is not None:
            act, how = Interval.exact(m.activation_bytes), "measured (log)"
        elif s.trt_activation_bytes is not None:
            act, how = Interval.exact(s.trt_activation_bytes), STATED_ACTIVATION
        else:
            act, how = am.peak, am.formula
        st.given("activations", act.best, "bytes", how)
        if m.non_torch_bytes is not None:
            nt, nt_how = Interval.exact(m.non_torch_bytes), "CUDA context, runtime buffers, NCCL"
        elif pytorch:
            nt, nt_how = Interval(*NON_TORCH_PYTORCH), NON_TORCH_PYTORCH_WHAT
        else:
            nt, nt_how = Interval(*NON_TORCH), "CUDA context, runtime buffers, NCCL"
        st.given("non-torch memory", nt.best, "bytes", nt_how)
        terms = ["GPU memory", "-weights", "-activations", "-non-torch memory"]
        # the C++ executor's runtime buffers and decoder (kvplan/engines/trtllm_buffers.py); a
        # measured non-torch figure already holds them
        eb = None if m.non_torch_bytes is not None else executor_buffers(
            ver, pytorch, req.model.vocab_size, req.tp * req.pp, s.max_batch_size,
            req.context_tokens)
        if eb is not None:
            buf = eb.total
            st.given("runtime buffers and decoder", buf.best, "bytes", eb.how())
            terms.append("-runtime buffers and decoder")
        table = mrope_table_bytes(req.model, ver) if pytorch else 0
        if table:
            st.given("mrope cos/sin table", table, "bytes",
                     f"{req.model.max_context_tokens:,} positions x head_dim "
                     f"{req.model.hidden_size // req.model.num_attention_heads} x 4 B (float32)")
            terms.append("-mrope cos/sin table")
        st.op("free memory", "sum", terms, "bytes",
              "GPU memory - weights - activations - non-torch"
              + (" - runtime buffers and decoder" if eb is not None else "")
              + (" - mrope table" if table else ""))
    st.given("free_gpu_memory_fraction", frac, "ratio",
             "flag" if s.memory_fraction is not None else "default 0.9")
    kv = int(st.op("KV cache memory", "mul", ["free memory", "free_gpu_memory_fraction"], "bytes",
                   "floor(free memory x fraction)"))
    bytes_per_token_steps(st, shape, "KV bytes per token", "all layers")
    st.given("tokens per block", tpb, "tokens", f"TensorRT-LLM {version}"
             + (" (FlashMLA)" if flash is not None else ""))
    st.op("max tokens (raw)", "div", ["KV cache memory", "KV bytes per token"], "tokens",
          "floor(KV cache memory / bytes per token)")
    cap_label = "max tokens (raw)"
    # C++ KVCacheManager::calculateMaxNumBlocks (cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp,
    # the 0.11/0.12-era batch manager as stored at arthurrasmusson/TensorRT-LLM@2730076):
    # maxTokens = floor(fraction x (free + memoryPoolFree) / bytes per token); a maxTokens
    # (max_tokens_in_paged_kv_cache) replaces that estimate unless freeGpuMemoryFraction was also
    # set, when the smaller counts. The LLM API (1.x) always sets the fraction (default 0.9).
    # the LLM API (1.x, and the PyTorch backend's KvCacheCreator before it) takes the smaller
    only_tokens = _tokens_replace_estimate(pytorch or ver >= (1, 0), s.max_tokens,
                                           s.memory_fraction)
    if s.max_tokens is not None:
        cap_label = "max tokens"
        if only_tokens:
            st.given(cap_label, s.max_tokens, "tokens",
                     "max_tokens_in_paged_kv_cache (no fraction set: replaces the estimate)")
        else:
            st.op(cap_label, "min", ["max tokens (raw)", s.max_tokens], "tokens",
                  "smaller of estimate and max_tokens")
    st.op("max tokens (>= 0)", "max", [cap_label, 0], "tokens", "never below 0")
    blocks = int(st.op("blocks", "ceildiv", ["max tokens (>= 0)", "tokens per block"],
                       "blocks", "ceil(max tokens / tokens per block)"))
    tokens = int(st.op("KV cache tokens", "mul", ["blocks", "tokens per block"], "tokens",
                       "blocks x tokens per block"))
    pool = int(st.op("KV pool", "mul", ["KV cache tokens", "KV bytes per token"], "bytes",
                     "what is allocated"))
    length = req.context_tokens
    conc = st.op("maximum concurrency", "ratio", ["KV cache tokens", length], "ratio",
                 f"tokens / max_seq_len {length:,}")
    per_token = st.int("KV bytes per token")

    def tokens_for(kv_bytes: int) -> int:
        est = max(0, kv_bytes // per_token)
        if s.max_tokens is not None:
            est = s.max_tokens if only_tokens else min(est, s.max_tokens)
        return ceil_div(est, tpb) * tpb

    free = st.int("free memory")
    lo = tokens_for(int((free - (act.high - act.best) - (nt.high - nt.best)
                         - (buf.high - buf.best)) * frac))
    hi = tokens_for(int((free + (act.best - act.low) + (nt.best - nt.low)
                         + (buf.best - buf.low)) * frac))
    # A max_tokens that replaces the estimate can ask for more than is free: the pool's
    # cudaMalloc (BlockManager::allocatePools, gpuSync) then fails and the engine does not start.
    starts = blocks > 0 and not (only_tokens and pool > st.int("free memory"))
    fit_len = (blocks * tpb) if ver >= (1, 0) else max(0, (blocks - 1) * tpb + 1)
    largest = min(length, fit_len, req.model.max_context_tokens)
    reason = None
    if not starts and blocks > 0:
        reason = (f"TensorRT-LLM would not start: max_tokens_in_paged_kv_cache {s.max_tokens:,} "
                  f"needs {gib(pool)}, more than the {gib(st.int('free memory'))} free")
    elif not starts:
        reason = (f"TensorRT-LLM would not start: no KV blocks fit ({gib(kv)} for the cache); "
                  "raise free_gpu_memory_fraction or add GPUs")
    backend = "PyTorch backend" if pytorch else "TensorRT engine"
    assumptions = [
        f"TensorRT-LLM {version} ({backend}), max_tokens_in_paged_kv_cache {s.max_tokens:,} "
        "replaces the memory estimate (no free_gpu_memory_fraction set)" if only_tokens else
        f"TensorRT-LLM {version} ({backend}), "
        f"free_gpu_memory_fraction {float(frac):g} of the memory free after weights",
        f"{tpb} tokens per block, {req.kv_dtype.value} cache",
    ]
    if starts and largest < length:
        assumptions.append(f"max_seq_len would be lowered to {largest:,} to fit one sequence")
    if tokens_rule:
        assumptions.append(f"activations planned for max_num_tokens {batched:,} = {batched_how}; "
                           "state --max-num-tokens for an engine built otherwise")
    if newer_note:
        assumptions.append(newer_note)
    if flash_note:
        assumptions.append(flash_note)
    if int_note:
        assumptions.append(int_note)
    preq = replace(req, block_size_tokens=tpb, allocation=Allocation.paged)
    used = weights + kv + act.best + nt.best + buf.best
    sized = finish_size(preq, pool, memory - weights - kv, used,
                        starts, reason, largest, assumptions, weights_bytes=weights)
    if s.max_batch_size is not None and sized.users_per_replica > s.max_batch_size:
        cap = s.max_batch_size
        assumptions.append(f"{USERS_CAPPED}max_batch_size {cap:,}")
        sized = finish_size(preq, pool, memory - weights - kv, used,
                            starts, reason, largest, assumptions, weights_bytes=weights,
                            users_override=(cap, cap * sized.kv_bytes_per_sequence))
    users_steps(st, sized, "KV pool", starts)
    return EngineResult(
        engine=Engine.trtllm, engine_version=version, size=sized, memory_bytes=memory,
        requested_bytes=kv, weights_bytes=weights,
        activation_bytes=act.best, activation_bytes_low=act.low, activation_bytes_high=act.high,
        non_torch_bytes=nt.best + buf.best, cuda_graph_bytes=0,
        kv_cache_bytes=pool, kv_cache_bytes_low=lo * per_token, kv_cache_bytes_high=hi * per_token,
        kv_cache_tokens=tokens, kv_cache_tokens_low=lo, kv_cache_tokens_high=hi,
        blocks=blocks, block_size_tokens=tpb, max_model_len=length, max_concurrency=conc,
        starts=starts, reason=reason, max_model_len_that_starts=largest,
        steps=tuple(st.items), assumptions=tuple(assumptions),
        log_lines=(f"Number of tokens per block: {tpb}.",
                   f"[MemUsageChange] Allocated {pool / GIB:.2f} GiB for max tokens in paged KV "
                   f"cache ({tokens})."),
    )
