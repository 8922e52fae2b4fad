"""vLLM's flags that move the weights and the cache: --cpu-offload-gb, a speculative-decoding
draft model (--speculative-config), --limit-mm-per-prompt and expert parallelism.

A draft model's KV cache, per release (task vllmleft, read in the wheels on PyPI):
- V0 (before 0.8, or a V0 fallback): SpecDecodeWorker gives the draft (proposer) and the target
  (scorer) the same number of blocks, each at its own model's block bytes:
  int(target blocks x target block bytes / (target + draft block bytes))
  (split_num_cache_blocks_evenly, vllm/spec_decode/spec_decode_worker.py:1140-1160 in 0.6.6; the
  proposer's bytes from its own model config, get_cache_block_size_bytes :386-389).
- 0.8.0-0.9.2: the V1 engine takes only ngram and EAGLE drafts; any other draft model makes it
  fall back to V0 (_raise_or_fallback(feature_name="Speculative Decoding"), arg_utils.py:1440
  in 0.8.5, :1442 in 0.9.2), so kvplan refuses the V1 plan and names the '-v0' one.
- 0.10.0-0.14.1: "Speculative decoding with draft model is not supported yet" (0.10.x;
  "Draft model speculative decoding ..." from 0.11.0), a NotImplementedError
  (arg_utils.py:1398-1399 in 0.10.0, :1497-1498 in 0.10.2, :1793-1794 in 0.14.1;
  config/speculative.py:387-392 in 0.14.1): vLLM does not start; refused, '-v0' too (the V0
  engine's vllm/spec_decode package is gone from the 0.10.0 wheel).
- 0.15.0 on: a draft model runs on V1 (config/speculative.py:403-404 in 0.15.0); its attention
  layers get KV cache specs at their own KV heads and head size, and full-attention layers of
  different sizes share one group whose page is the sum of theirs (UniformTypeKVCacheSpecs,
  vllm/v1/kv_cache_interface.py:265 in 0.11.0, page_size_bytes :1354-1355 in 0.34.0;
  kv_cache_planning.py:1187-1191 in 0.34.0): a block costs both models' own bytes.
"""

from __future__ import annotations

from kvplan.capacity.kv import Precision
from kvplan.capacity.plan import SizeRequest
from kvplan.engines.common import gib, is_mxfp4, weights_bytes, weights_how
from kvplan.engines.encoder_cache import encoder_cache_note
from kvplan.engines.interface import EngineSettings, parse_version
from kvplan.engines.mxfp4_hopper import LAYOUTS as TRITON_HOPPER_LAYOUTS
from kvplan.engines.steps import Steps
from kvplan.engines.vllm_load_blocks import scoped, slack_bytes, slack_how
from kvplan.engines.vllm_model_releases import release_refusal
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
    if (why := draft_release_refusal(s.version, v1)) is not None:
        raise InputError(why)
    if v1 and groups > 1:
        raise InputError(f"a draft model beside {req.model.name}'s sliding-window or hybrid "
                         "layers is not modelled (its KV cache groups); plan without it")
    problem = tp_problem(draft, req.tp)
    if problem is not None:
        raise InputError(f"the draft model: {problem}; vLLM shards the draft with the target's "
                         "tensor parallelism")
    shape = stage_shape(draft, Precision(req.kv_dtype, req.kv_group_size), req.tp, 1)
    return req.block_size_tokens * shape.bytes_per_token_per_layer * shape.cached_layers


DRAFT_V1_FALLBACK = ((0, 8, 0), (0, 10, 0))  # V1 falls back to V0 for a draft model
DRAFT_V1_REFUSED = ((0, 10, 0), (0, 15, 0))  # NotImplementedError: vLLM does not start


def draft_release_refusal(version: str | None, v1: bool) -> str | None:
    """Why vLLM `version` does not run a draft model on the engine planned, or None."""
    said = version or DEFAULT_VERSION
    ver = (parse_version(said) or ())[:3]
    if DRAFT_V1_REFUSED[0] <= ver < DRAFT_V1_REFUSED[1]:
        words = ("Speculative decoding with draft model is not supported yet" if ver < (0, 11)
                 else "Draft model speculative decoding is not supported yet")
        return (f"vLLM {said} does not start with a draft model: \"{words}\" (NotImplementedError, "
                "vllm/engine/arg_utils.py:1497-1498 in 0.10.2, :1793-1794 in 0.14.1; V1 takes "
                "ngram, medusa, EAGLE and MTP drafts only, and the V0 engine's spec_decode is "
                "gone from the 0.10.0 wheel); serve vLLM 0.15.0 or newer, or drop "
                "--speculative-model")
    if v1 and DRAFT_V1_FALLBACK[0] <= ver < DRAFT_V1_FALLBACK[1]:
        return (f"vLLM {said} runs a draft model on its V0 engine: V1 takes only ngram and EAGLE "
                "drafts and falls back to V0 for any other (_raise_or_fallback, "
                "vllm/engine/arg_utils.py:1440 in 0.8.5, :1442 in 0.9.2); plan --engine-version "
                f"{said}-v0")
    return None


def v0_split_steps(st: Steps) -> None:
    """V0's blocks with a draft: the target's blocks split so both models get as many
    (split_num_cache_blocks_evenly, spec_decode_worker.py:1140-1160 in 0.6.6)."""
    st.op("target blocks", "div", ["KV cache memory", "target bytes per block"], "blocks",
          "floor(KV cache memory / target bytes per block): the scorer's blocks")
    st.op("target blocks x target bytes", "mul", ["target blocks", "target bytes per block"],
          "bytes", "target blocks x target bytes per block")
    st.op("blocks (raw)", "div", ["target blocks x target bytes", "bytes per block"], "blocks",
          "int(target blocks x target / (target + draft bytes per block)): the same number "
          "of blocks for both models (spec_decode_worker.py split_num_cache_blocks_evenly)")


def flag_notes(req: SizeRequest, s: EngineSettings) -> list[str]:
    """What kvplan does with the flags it cannot fully model (never silently)."""
    notes = []
    if (why := release_refusal(req.model.model_type, s.version)) is not None:
        raise InputError(why)  # kvplan.engines.vllm_model_releases
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
