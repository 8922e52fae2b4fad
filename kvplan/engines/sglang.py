"""SGLang: mem_fraction_static of the memory free at start-up, a token-granular pool.

Assumptions (sglang/srt/model_executor/model_runner.py profile_max_num_token, checked against
the logs in tests/assets/logs):
- `total` is the memory free after the CUDA context and torch.distributed start ("Load weight
  begin. avail mem=..."), not the device total; kvplan models the start-up use as 0.4 GiB on one
  GPU and 0.9 GiB with tensor parallelism (NCCL), 2.02 GiB with tensor parallelism on NVLink
  modules (SXM/HGX: NCCL and custom all-reduce workspaces), unless a log gives it; 0.4.2-0.4.3
  at TP > 2 without NVLink the one-GPU term + 0.13 GiB of NCCL, range 0.32-0.9 GiB
  (STARTUP_TP_PCIE_OLD).
  --disable-custom-all-reduce / --enable-p2p-check only decide whether the custom all-reduce
  workspace (tens of MiB per GPU) is built: noted by `check`, not modelled
  (kvplan.check.manifests.option_fields.NOT_MODELLED).
- rest = free after weights - total x (1 - mem_fraction_static);
  max_total_num_tokens = floor(rest / cell), cell = layers x KV heads per rank x head_dim x 2 x
  dtype bytes (MLA: kv_lora_rank + qk_rope_head_dim); then rounded down to whole pages
  (page size 1 by default, 64 with the trtllm_mha backend on Blackwell).
- mem_fraction_static default, and the chunked_prefill_size and cuda_graph_max_bs it is built
  from: by GPU memory tier per release series (kvplan.engines.sglang_defaults, read in the
  wheels from 0.4.6 to 0.5.23; before 0.4.6 by TP alone); from 0.5.16 plus the prefill CUDA
  graphs' reserve (the PREFILL_GRAPHS_* notes below); from 0.5.22 the tier's decode batch size
  capped at a stated --max-running-requests. Give --memory-utilization to state it; `explain`
  names the tier, its sizes and the source.
- Releases newer than the newest read (NEWEST_KNOWN, 0.5.23; PyPI's newest when read) are
  modelled as it, and the assumptions say so.
- ROCm aiter attention backend: mem_fraction_static, stated or default, x 0.85 when the
  served context is above 8,192 tokens (sglang PR #6564, merged 2025-05-24: model_runner.py
  `if server_args.attention_backend == "aiter": if self.model_config.context_len > 8192:
  self.mem_fraction_static *= 0.85` in the 0.5.1 wheel; server_args.py in 0.5.17; kept by
  default after PR #37242; 0.5.21 arg_groups/attention_hook.py, unless
  SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION is set with a stated fraction). Applied from 0.4.7
  when the backend is stated (--attention-backend, engine.attention_backend, a manifest's argv)
  or logged as aiter, and when it is SGLang's own default (below); aiter on a GPU that is not
  AMD's is refused (kvplan.engines.refusals).
- The attention backend when none is stated (`default_backend`): on ROCm (is_hip, any AMD GPU:
  no gfx942/gfx950 test, no SGLANG_USE_AITER gate) SGLang picks aiter for a model without MLA;
  for an MLA model aiter when the KV heads per TP rank (config num_key_value_heads // tp, at
  least 1) are 16 or 128, else triton. Read in the 0.4.7 wheel (model_runner.py
  model_specific_adjustment, which sets the default before the derate in the same function;
  0.4.7 also sends MLA with speculative decoding to triton, which kvplan does not model), the
  0.5.17 wheel (server_args.py _get_default_attn_backend, filled by overrides.py
  _attention_backend_default before the derate) and the 0.5.21 wheel
  (arg_groups/model_override_base.py get_default_attn_backend). Releases before 0.4.7 were not
  read; the backend does not move their pool (no derate), so kvplan names none for them.
  Per-architecture overrides in 0.5.21 that pick another backend on ROCm (Gemma4, MiniMax-M3
  and DeepSeek-V3.2-style DSA models -> triton/dsa, Whisper -> flashinfer) have no model in
  kvplan's catalog and specs carry no architecture name: not modelled. On NVIDIA GPUs the
  default backend does not move the pool and is not named.
- DeepSeek-style MLA with tensor parallelism: each rank holds the whole latent down-projections
  (q_a_proj, kv_a_proj_with_mqa are ReplicatedLinear in models/deepseek_v2.py, 0.4.2 and 0.5.17
  wheels; 0.5.21 fuses them as one ReplicatedLinear, fused_qkv_a_proj_with_mqa, line 2018, and
  keeps kv_a_proj_with_mqa a ReplicatedLinear without q_lora_rank, line 2045) and the whole MoE
  router (MoEGate, a bf16 nn.Parameter, not sharded), where the even split of the weights gives
  each rank 1/tp of them (`replicated_bytes`).
- sliding-window layers are sized as full layers (SGLang's default pool).
- a multimodal model's KV budget leaves out SGLang's multimodal reservation from 0.5.18
  (embedding cache, GPU feature-transport pool: kvplan.engines.sglang_mm, task h81sglmm).
- "GB" in SGLang's logs is GiB (bytes >> 30).
- SGLang starts whenever at least one token fits; requests longer than the pool are rejected.
  It then allocates its request-to-token map, rows x (context + 4) x 4 B, out of what the weights
  and the pool leave, and stops when it does not fit (kvplan.engines.sglang_req_map, task h61sglreq).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from kvplan.capacity.kv import Allocation
from kvplan.capacity.plan import USERS_CAPPED, SizeRequest
from kvplan.engines import sglang_dp
from kvplan.engines.common import (
    bytes_per_token_steps,
    gib,
    layer_shape,
    users_steps,
    weights_bytes,
    weights_how,
)
from kvplan.engines.interface import (
    Engine,
    EngineResult,
    EngineSettings,
    Steps,
    finish_size,
    parse_version,
)
from kvplan.engines.sglang_assume import profile_assumptions
from kvplan.engines.sglang_backend import (
    AITER_DERATE,
    aiter_derated,
    default_backend,
    prefill_graphs,
)
from kvplan.engines.sglang_defaults import (
    DEFAULT_VERSION,
    Tier,
    default_fraction,
    gpu_tier,
)
from kvplan.engines.sglang_kv_dtype import int_cache_refusal
from kvplan.engines.sglang_log import pool_lines
from kvplan.engines.sglang_mm import mm_reservation
from kvplan.engines.sglang_req_map import (
    longest_context,
    map_refusal,
    map_steps,
    max_num_reqs,
    most_slots,
    req_to_token_map,
)
from kvplan.engines.sglang_spec import (
    cell_steps,
    draft_refusal,
    draft_steps,
    headroom_steps,
    reserve_mib,
    span_headroom,
    speculation,
    weights_note,
)
from kvplan.engines.sglang_weights import replicated_bytes, router_whole_16
from kvplan.engines.vllm_nontorch import nvlink_module
from kvplan.errors import InputError
from kvplan.units import MIB

# The newest release read (the 0.5.22 and 0.5.23 wheels, task h41sgl523): a later one is modelled
# as it, with a note
NEWEST_KNOWN = (0, 5, 23)
# The oldest release line checked: log 50 (SGLang of 2024-10-10, the 0.3 series by date) is the
# oldest SGLang run in the calibration set; an older one is modelled by the same rules (releases
# before 0.4.6), with a note (task h45cli)
OLDEST_KNOWN = (0, 3)
STARTUP_TP1 = 400 * MIB
STARTUP_TP = 900 * MIB
# SGLang 0.4.2-0.4.3.post4 (the wheels read) at TP > 2 without NVLink: custom all-reduce builds
# nothing ("Custom allreduce is disabled because it's not supported on more than two PCIe-only
# GPUs": distributed/device_communicators/custom_all_reduce.py:194 in the 0.4.2 wheel, :235 in
# 0.4.3.post4; init_torch_distributed the same but for its log line), so the start-up is the
# one-GPU term and NCCL's communicators, which fit log 14 (0.4.3.post3+, TP 4 on four L4s) prints:
# "Init torch distributed ends. mem usage=0.13 GB". Range: its whole start-up, 22,478 MiB -
# "Load weight begin. avail mem=21.63 GB" = 329 MiB (high pool), to the TP term (low pool).
STARTUP_TP_PCIE_OLD = ((0, 4, 2), (0, 4, 3))
STARTUP_TP_NCCL_OLD = 133 * MIB
STARTUP_TP_OLD_LOW = 329 * MIB
# Tensor parallelism on NVLink modules (SXM / HGX boards): fitted on log 03 (Qwen3-235B-A22B-FP8,
# TP 4 on H100 SXM, fraction 0.93): 79.20 - (16.47 GiB pool + 55.31 GiB weights) / 0.93 = 2.02 GiB
# before the weights; vLLM's own NVLink TP non-torch term, fitted on other logs (62, 75), is 2.08.
STARTUP_TP_NVLINK = 2072 * MIB
# What SGLang's "Load weight end ... mem usage" holds beyond the parameters (buffers created at
# load, e.g. rotary caches and, with TP, communication workspaces), per GPU. Fitted on the
# calibration logs' mem usage less the modelled weights: one GPU 16, 20, 22 (0.06, 0.14, 0.02
# GiB: median), tensor parallel 14 (0.28 GiB).
LOAD_EXTRA_TP1 = 64 * MIB
LOAD_EXTRA_TP = 290 * MIB


@dataclass(frozen=True)
class FractionChoice:
    """mem_fraction_static as SGLang uses it for one request: stated or its release's default
    (with the GPU tier that default came from), then the aiter derate where it applies."""

    fraction: Fraction  # before the aiter derate
    stated: bool
    tier: Tier | None  # the GPU-memory tier of the default (None when stated or size unknown)
    graphs_why: str  # why the prefill CUDA graphs' reserve is or is not in the default
    picked: tuple[str, str] | None  # SGLang's own attention backend, (name, why), when unstated
    derated: bool  # x 0.85: aiter above 8,192 tokens of context

    @property
    def used(self) -> Fraction:
        return self.fraction * AITER_DERATE if self.derated else self.fraction


def fraction_choice(req: SizeRequest, s: EngineSettings, gpu_mem_mib: int | None) -> FractionChoice:
    """The fraction the profile uses, and the calibration breakdown check with it (one rule)."""
    version = s.version or DEFAULT_VERSION
    graphs, graphs_why = prefill_graphs(req, version)
    stated = s.memory_fraction is not None
    frac = s.memory_fraction if s.memory_fraction is not None else default_fraction(
        req.tp, version, gpu_mem_mib, req.pp, s.chunked_prefill_size, s.cuda_graph_max_bs, graphs,
        s.max_tokens, req.gpu.vendor, s.max_running_requests,
        reserve_mib(version, s.speculative_algorithm))
    picked = default_backend(req, version) if s.attention_backend is None else None
    backend = s.attention_backend if picked is None else picked[0]
    return FractionChoice(frac, stated, None if stated else gpu_tier(
        version, gpu_mem_mib, req.tp, req.gpu.vendor), graphs_why, picked,
        aiter_derated(backend, req.context_tokens, version))


def newer_note(version: str) -> str | None:
    """The assumption a release newer than NEWEST_KNOWN carries (modelled as NEWEST_KNOWN), or
    one older than OLDEST_KNOWN (modelled by the oldest rules, those before 0.4.6)."""
    ver = parse_version(version) or ()
    if ver and ver < OLDEST_KNOWN:
        return (f"SGLang {version} is older than the oldest modelled release (0.3, the oldest "
                "SGLang run checked: tests/assets/logs/50): modelled by the rules of releases "
                "before 0.4.6")
    if ver[:3] <= NEWEST_KNOWN:
        return None
    known = ".".join(map(str, NEWEST_KNOWN))
    return (f"SGLang {version} is newer than the newest modelled release ({known}): modelled as "
            f"{known}")


def pcie_old_release(req: SizeRequest, version: str, nvlink: bool) -> bool:
    """Whether SGLang 0.4.2-0.4.3 runs TP > 2 without NVLink (no custom all-reduce)."""
    v = (parse_version(version) or ())[:3]
    return req.tp > 2 and not nvlink and STARTUP_TP_PCIE_OLD[0] <= v <= STARTUP_TP_PCIE_OLD[1]


def profile(req: SizeRequest, s: EngineSettings) -> EngineResult:
    """SGLang's KV pool for one request."""
    req.check()
    s.check()
    if (refused := int_cache_refusal(req.kv_dtype)) is not None:
        raise InputError(refused)
    m = s.measured
    version = s.version or DEFAULT_VERSION
    memory = m.memory_bytes or req.gpu.memory_bytes
    gpu_mem = req.gpu.nvidia_smi_mib or memory // MIB
    choice = fraction_choice(req, s, gpu_mem)
    spec = speculation(req, s, version)  # kvplan.engines.sglang_spec (task h90sglspec)
    running = s.max_running_requests or (spec.running if spec else None)
    frac, picked, derated, tier = choice.fraction, choice.picked, choice.derated, choice.tier
    page = s.page_size_tokens or 1
    lay = sglang_dp.layout(req, s)  # data-parallel attention's shards (kvplan.engines.sglang_dp)
    shape = layer_shape(sglang_dp.rank_request(req, lay))  # its KV heads: attention's TP rank
    whole16 = router_whole_16(version)
    weights = weights_bytes(req, m.weights_bytes, whole16=whole16)
    replicated = replicated_bytes(req, whole16) if m.weights_bytes is None else 0
    sharded = sglang_dp.extra_bytes(req, lay) if m.weights_bytes is None else 0
    if m.weights_bytes is None:
        weights += (LOAD_EXTRA_TP if req.tp > 1 else LOAD_EXTRA_TP1) + replicated + sharded
    draft_in = spec.draft_weights if spec and spec.in_budget else 0
    weights += draft_in
    st = Steps()
    span: tuple[int, int] | None = None
    st.given("GPU memory", memory, "bytes", "device total")
    if m.free_before_load_bytes is not None:
        st.given("free before weights", m.free_before_load_bytes, "bytes",
                 "measured (log: Load weight begin. avail mem)")
        startup = memory - m.free_before_load_bytes
    elif m.free_after_load_bytes is not None:
        st.given("free after weights (log)", m.free_after_load_bytes, "bytes",
                 "measured (log: Load weight end. avail mem)")
        st.given("weights (modelled)", weights, "bytes",
                 "parameters x weight bytes / GPUs + load-time buffers")
        st.op("free before weights", "sum", ["free after weights (log)", "weights (modelled)"],
              "bytes", "free after weights + weights")
        startup = memory - st.int("free before weights")
    else:
        nvlink = req.tp > 1 and nvlink_module(req.gpu.label, req.gpu.device_names)
        startup = STARTUP_TP_NVLINK if nvlink else STARTUP_TP if req.tp > 1 else STARTUP_TP1
        if pcie_old_release(req, version, nvlink):
            startup, span = STARTUP_TP1 + STARTUP_TP_NCCL_OLD, (STARTUP_TP, STARTUP_TP_OLD_LOW)
        st.given("start-up use", startup, "bytes", "CUDA context + torch.distributed" + (
            " (NVLink: NCCL and custom all-reduce workspaces)" if nvlink else
            f" (SGLang {version}, TP {req.tp} over PCIe, no custom all-reduce: the one-GPU term +"
            f" {gib(STARTUP_TP_NCCL_OLD)} of NCCL; range {gib(span[1])}-{gib(span[0])})"
            if span else ""))
        st.op("free before weights", "sum", ["GPU memory", "-start-up use"], "bytes",
              "GPU memory - start-up use")
    st.given("weights", weights, "bytes",
             "measured (log)" if m.weights_bytes is not None else
             f"{weights_how(req, whole16)} + {gib(LOAD_EXTRA_TP if req.tp > 1 else LOAD_EXTRA_TP1)}"
             " of load-time buffers" + (f" + {gib(replicated)} of MLA projections and router held "
                                        "whole on every TP rank" if replicated else "")
             + (f" + {gib(sharded)} sharded otherwise than over tp ("
                f"{sglang_dp.describe(req, lay)})" if sharded else "")
             + (weights_note(spec, s.draft_model.params_total) if spec and s.draft_model and
                draft_in else ""))
    if m.free_after_load_bytes is not None:
        st.given("free after weights", m.free_after_load_bytes, "bytes",
                 "measured (log: Load weight end. avail mem)")
    else:
        st.op("free after weights", "sum", ["free before weights", "-weights"], "bytes",
              "free before weights - weights")
    st.given("mem_fraction_static", frac, "ratio",
             "flag" if s.memory_fraction is not None else
             f"SGLang {version} default for tp {req.tp} on {gpu_mem:,} MiB"
             + (f": {tier.short()}" if tier else ""))
    if derated:
        st.op("mem_fraction_static (aiter)", "mul", ["mem_fraction_static", AITER_DERATE], "ratio",
              f"x 0.85: aiter backend{' (SGLang default)' if picked else ''}, context "
              f"{req.context_tokens:,} > 8,192 (sglang PR #6564)")
    st.op("1 - mem_fraction_static", "sum",
          [1, "-mem_fraction_static (aiter)" if derated else "-mem_fraction_static"], "ratio",
          "1 - fraction")
    st.op("held back", "mul", ["free before weights", "1 - mem_fraction_static"], "bytes",
          "floor(free before weights x (1 - mem_fraction_static))")
    mm = mm_reservation(req, version, s.mm_feature_transport, s.max_running_requests, gpu_mem)
    if mm.bytes:  # kvplan.engines.sglang_mm: multimodal models, SGLang 0.5.18 on
        st.given("multimodal reservation", mm.bytes, "bytes", mm.why)
    rest = int(st.op("KV cache memory", "sum", ["free after weights", "-held back"] + (
        ["-multimodal reservation"] if mm.bytes else []), "bytes", "free after weights - held "
        "back" + (" - multimodal reservation" if mm.bytes else "")))
    bytes_per_token_steps(st, shape, "cell size", "bytes per token, all layers")
    cell_label = cell_steps(st, spec, shape.cached_layers)
    st.op("tokens (raw)", "div", ["KV cache memory", cell_label], "tokens",
          f"floor(KV cache memory / {cell_label})")
    st.op("tokens (>= 0)", "max", ["tokens (raw)", 0], "tokens", "never below 0")
    length, dp = req.context_tokens, req.attention_dp
    room = headroom_steps(st, spec, max_num_reqs(version, length, st.int("tokens (raw)"),
                                                 st.int("tokens (raw)"), running, dp)[0])
    st.given("page size", page, "tokens", "SGLang page size")
    st.op("pages", "div", [room[0], "page size"], "pages", "whole pages")
    tokens = int(st.op("max_total_num_tokens", "mul", ["pages", "page size"], "tokens",
                       "pages x page size"))
    pool_label = "max_total_num_tokens"
    if s.max_tokens is not None and s.max_tokens < tokens:
        pool_label = "max_total_num_tokens (capped)"
        tokens = int(st.op(pool_label, "min", ["max_total_num_tokens", s.max_tokens], "tokens",
                           "--max-total-tokens"))
    cell = st.int("cell size")
    low, high = tokens, tokens
    if span:  # each start-up end's profile, and the draft headroom its slots give (0.4.3)
        eff = frac * AITER_DERATE if derated else frac
        ends = [(memory - use - weights - int((memory - use) * (1 - eff))) // cell for use in span]
        low, high = (min((max(p, 0) + span_headroom(spec, max_num_reqs(
            version, length, p, p, running, dp)[0])) // page * page, s.max_tokens or 1 << 62)
            for p in ends)
    if room[1]:  # unstated speculative parameters: the headroom's low end
        low = min((st.int("tokens (>= 0)") + room[1]) // page * page, s.max_tokens or 1 << 62)
    conc = st.op("maximum concurrency", "ratio", [pool_label, length], "ratio",
                 f"tokens / max_model_len {length:,}")
    pool = int(st.op("KV pool", "mul", [pool_label, "cell size"], "bytes",
                     "tokens x cell size (what is allocated)"))
    starts = tokens > 0
    reason = None if starts else (
        f"SGLang would not start: not enough memory for the KV cache ({gib(rest)}); raise "
        "--mem-fraction-static or add GPUs")
    if (refused := sglang_dp.refusal(req.tp, s)) is not None:
        starts, reason = False, refused
    draft = draft_steps(st, spec, st.int("tokens (raw)"), tokens, pool_label, cell_label,
                        room[2])
    # SGLang's request-to-token map: out of what the weights and the pool leave (sglang_req_map)
    profiled = st.int("tokens (raw)")
    rmap = map_steps(st, version, length, profiled, tokens, running, dp, draft[0])
    left = st.int("left after the KV pool")
    largest = min(tokens, req.model.max_context_tokens)
    if starts and left < 0 and (why := draft_refusal(st, draft[0])):
        starts, reason = False, why
    if starts and rmap.bytes > left:
        fits = longest_context(version, left, profiled, tokens, running, length, dp)
        slots = most_slots(version, length, left, profiled, tokens, dp)
        starts, reason = False, map_refusal(rmap, length, left, fits, slots)
    if largest > 0 and req_to_token_map(version, largest, profiled, tokens, running,
                                        dp).bytes > left:
        largest = longest_context(version, left, profiled, tokens, running, largest, dp)
    assumptions = profile_assumptions(req, s, version, choice, page, newer_note(version),
                                      mm.why, spec, lay)
    preq = replace(req, block_size_tokens=page, allocation=Allocation.paged)
    held_back = st.int("held back")
    booked = weights + draft[1]  # the breakdown's weights: a draft outside the budget too
    # the draft's KV in the budget (0.5.14 on) is booked beside the held-back share
    held = held_back + (st.int("draft KV pool") if draft[0] == "draft KV pool" else 0)
    ranks = sglang_dp.pools(st, preq, lay, pool, held, memory - held_back, starts, reason,
                            largest, assumptions, booked)
    sized = finish_size(preq, pool, held, memory - held_back, starts, reason, largest,
                        assumptions, weights_bytes=booked, users_override=ranks[:2] if ranks else None)
    cap = s.max_running_requests if not s.check_caps_users else None
    cap = cap or (spec.running if spec and s.max_running_requests is None else None)
    limit, over, said = sglang_dp.cap_users(cap, lay.dp, version, ranks,
                                            sized.kv_bytes_per_sequence)
    if cap is not None and sized.users_per_replica > limit:
        assumptions.append(f"{USERS_CAPPED}--max-running-requests {cap:,}" + (
            "" if s.max_running_requests else " (SGLang's default with speculative decoding)")
            + said)
        sized = finish_size(preq, pool, held, memory - held_back, starts, reason, largest,
                            assumptions, weights_bytes=booked, users_override=over)
    users_steps(st, sized, "KV pool", starts,
                users_from="users (every attention-DP rank)" if ranks else None)
    return EngineResult(
        engine=Engine.sglang, engine_version=version, size=sized, memory_bytes=memory,
        requested_bytes=memory - held_back, weights_bytes=weights,
        activation_bytes=0, activation_bytes_low=0, activation_bytes_high=0,
        non_torch_bytes=startup, cuda_graph_bytes=0,
        kv_cache_bytes=pool, kv_cache_bytes_low=low * cell, kv_cache_bytes_high=high * cell,
        kv_cache_tokens=tokens, kv_cache_tokens_low=low, kv_cache_tokens_high=high,
        blocks=tokens // page, block_size_tokens=page, max_model_len=length,
        max_concurrency=conc, starts=starts, reason=reason, max_model_len_that_starts=largest,
        steps=tuple(st.items), assumptions=tuple(assumptions),
        log_lines=pool_lines(req.model, tokens, cell),
    )
