"""vLLM's flags that move the weights and the cache: --cpu-offload-gb, a speculative-decoding
draft model (--speculative-config), --limit-mm-per-prompt and expert parallelism."""

from __future__ import annotations

from kvplan.capacity.kv import Precision
from kvplan.capacity.plan import SizeRequest
from kvplan.engines.common import gib, is_mxfp4, weights_bytes, weights_how
from kvplan.engines.encoder_cache import encoder_cache_note
from kvplan.engines.interface import EngineSettings, parse_version
from kvplan.engines.mxfp4_hopper import LAYOUTS as TRITON_HOPPER_LAYOUTS
from kvplan.engines.vllm_load_blocks import scoped, slack_bytes, slack_how
from kvplan.engines.vllm_rotary import rotary_cache_bytes, rotary_cache_how, rotary_cache_note
from kvplan.engines.vllm_series import DEFAULT_VERSION, mxfp4_kernel
from kvplan.errors import InputError

# The oldest wheel read with the MoE gate a ReplicatedLinear whole on every TP rank in any dtype
# (kvplan.engines.common ROUTER_BYTES, task h38router); older releases keep the even split in
# 16 bits (below 16 bits the router is whole in every release, as before).
ROUTER_WHOLE_16_FROM = (0, 8, 5)


def router_whole_16(version: str | None) -> bool:
    """Whether this vLLM release holds a 16-bit MoE router whole on every TP rank."""
    return (parse_version(version or DEFAULT_VERSION) or ())[:3] >= ROUTER_WHOLE_16_FROM


def weights_for(req: SizeRequest, s: EngineSettings) -> tuple[int, str]:
    """Weights on each GPU: measured, or modelled; less --cpu-offload-gb, plus a draft model."""
    m = s.measured
    if m.weights_bytes is not None:
        return m.weights_bytes, "measured (log)"
    kernel = mxfp4_kernel(req.gpu.name, s.version, req.gpu.label, req.gpu.device_names)
    whole16 = router_whole_16(s.version)
    weights = weights_bytes(req, None, kernel, whole16)
    how = (mxfp4_how(kernel) if is_mxfp4(req) else weights_how(req, whole16))
    if req.ep is not None and req.ep > req.tp:
        how += f", experts / {req.ep} (expert parallelism)"
    rotary = rotary_cache_bytes(req.model, s.version)  # kvplan.engines.vllm_rotary
    if rotary:
        weights += rotary
        how += rotary_cache_how(req.model, s.version)
    weights += slack_bytes(req, s.version, s.cpu_offload_bytes)  # kvplan.engines.vllm_load_blocks
    how += slack_how(req, s.version, s.cpu_offload_bytes)
    if s.draft_params:
        draft = -(-s.draft_params * req.effective_weight_dtype.bits // 8 // req.tp)
        weights += draft
        how += f" + draft model {s.draft_params:,} params"
        if scoped(s.version):  # kvplan.engines.vllm_load_blocks: the target's tensors only
            how += " (its torch blocks not booked: not laid out tensor by tensor)"
    if s.cpu_offload_bytes:
        weights = max(0, weights - s.cpu_offload_bytes)
        how += f" - {gib(s.cpu_offload_bytes)} offloaded to the CPU (--cpu-offload-gb)"
    return weights, how


def mxfp4_how(kernel: str) -> str:
    """The explanation's words for gpt-oss's MXFP4 weights laid out for `kernel`."""
    if kernel in TRITON_HOPPER_LAYOUTS:
        return TRITON_HOPPER_LAYOUTS[kernel].how()
    return f"gpt-oss MXFP4 experts padded for the {kernel} kernel + bf16 rest"


def draft_block_bytes(req: SizeRequest, s: EngineSettings, groups: int, v1: bool) -> int:
    """One block of the draft model's cache on this GPU: block x bytes per token x its layers.

    vLLM gives the draft's attention layers KV cache specs beside the target's (V1), or splits
    the blocks evenly between scorer and proposer (V0): either way a block of tokens costs both
    models' bytes. Modelled for a target whose layers form one KV cache group."""
    from kvplan.capacity.parallel import tp_problem
    from kvplan.engines.common import stage_shape

    draft = s.draft_model
    assert draft is not None
    if v1 and groups > 1:
        raise InputError(f"a draft model beside {req.model.name}'s sliding-window or hybrid "
                         "layers is not modelled (its KV cache groups); plan without it")
    problem = tp_problem(draft, req.tp)
    if problem is not None:
        raise InputError(f"the draft model: {problem}; vLLM shards the draft with the target's "
                         "tensor parallelism")
    shape = stage_shape(draft, Precision(req.kv_dtype, req.kv_group_size), req.tp, 1)
    return req.block_size_tokens * shape.bytes_per_token_per_layer * shape.cached_layers


def flag_notes(req: SizeRequest, s: EngineSettings) -> list[str]:
    """What kvplan does with the flags it cannot fully model (never silently)."""
    notes = []
    if s.limit_mm_per_prompt is not None:
        if not req.model.params_encoder:
            raise InputError(f"limit_mm_per_prompt applies to multimodal models; {req.model.name} "
                             "has no encoder (params_encoder); drop it")
        notes.append(f"limit_mm_per_prompt {s.limit_mm_per_prompt}: the encoder's "
                     f"{req.model.params_encoder:,} parameters are in the weights"
                     + ("; 0: vLLM skips the encoder profiling, no encoder cache"
                        if s.limit_mm_per_prompt == 0 else
                        "; the items per prompt do not change the profiled encoder cache here"))
    if s.limit_mm_per_prompt != 0 and (why := encoder_cache_note(req.model)):
        notes.append(why)
    if s.measured.weights_bytes is None and (why := rotary_cache_note(req.model, s.version)):
        notes.append(why)
    if s.draft_model is not None:
        notes.append(f"speculative decoding: draft {s.draft_model.name} "
                     f"({s.num_speculative_tokens} tokens per step): its weights and KV layers "
                     "are added; its proposal activations and lookahead slots are not modelled")
    elif s.draft_params:
        notes.append("speculative decoding: the draft model's weights are added; its KV layers "
                     "(which share the block pool) are not modelled")
    if req.ep is not None and req.ep > req.tp:
        notes.append(f"expert parallelism {req.ep}: each GPU holds 1/{req.ep} of the experts "
                     f"(tp {req.tp} x dp {req.ep // req.tp})")
    return notes
