"""vLLM V1's hybrid KV-cache manager for models with linear-attention (mamba-style) layers.

Qwen3-Next's Gated DeltaNet layers, like Mamba layers, keep a fixed recurrent state per
sequence instead of a per-token cache. vLLM V1 (from 0.10, Qwen3-Next from 0.10.2) stores that
state in the same block pool as the attention KV cache (read in vLLM's source; the stored
copies are named by commit where the text differs between releases):

- state page (vllm/v1/kv_cache_interface.py MambaSpec.page_size_bytes): the sum over the
  layer's state tensors of elements x dtype size; Gated DeltaNet
  (vllm/model_executor/layers/mamba/mamba_utils.py
  MambaStateShapeCalculator.gated_delta_net_state_shape) holds a conv state
  (conv_kernel - 1) x conv_dim / TP and a recurrent state num_v_heads / TP x head_v x head_k,
  both in the model dtype when --mamba-cache-dtype / --mamba-ssm-cache-dtype are "auto"
  (MambaStateDtypeCalculator.gated_delta_net_state_dtype), whatever --kv-cache-dtype says.
  Mamba2 (granitemoehybrid, mamba2_state_shape, read at vllm-project/vllm commit 02d7108 of
  mamba_utils.py, the same arithmetic as v0.11's): conv state (conv_kernel - 1) x
  (heads x head_dim + 2 x groups x d_state) / TP, the groups first raised to TP when TP does not
  divide them (extra_groups_for_head_shards), and SSM state heads / TP x head_dim x d_state;
  mamba2_state_dtype keeps both in the model dtype under "auto"
  (kvplan.capacity.kv.state_elements_per_gpu). vLLM 0.11.1rc6's log for granite-4.0-h-small
  (TP 1, bf16) prints the 528-token block and 0.69% padding this gives.
- attention block (vllm/model_executor/models/config.py
  HybridAttentionMambaModelConfig.verify_and_update_config): attention block size =
  alignment x cdiv(state page, alignment x attention page of one token), unless --block-size
  is already at least that; the state page is then padded to the attention page
  (mamba_page_size_padded), so every layer's page is the same size. The alignment is 16
  tokens (64 for MLA attention); later copies than v0.11.0's raise it to 32 on Blackwell
  (sm100) for head size 256 with FlashInfer, the default backend there
  (flashinfer-ai/flashinfer#1993), kvplan's series from 0.11.1.
- groups (vllm/v1/core/kv_cache_utils.py _get_kv_cache_groups_uniform_page_size): the linear
  layers are one more layer type beside full and sliding attention, grouped by the same rule
  (group size = the smallest type's layer count, or the largest when under 1.5 x the
  smallest); each group takes one page per block id from the shared pool
  (get_kv_cache_config_from_groups: num_blocks = memory // page // group size).
- per request (MambaSpec.max_memory_usage_bytes, mamba_cache_mode "none"): one page whatever
  the length, so a linear group needs one block per request in "Maximum concurrency"
  (get_max_concurrency_for_kv_cache_config: num_blocks / cdiv(sum of the groups' pages, page))
  and in kvplan's users. "none" is the mode without prefix caching: v0.10.2's and the
  v0.11.0-era MambaModelConfig turn prefix caching off for hybrid models (log 132: "disabling
  prefix caching since it is not yet supported"); later copies keep it when asked and switch
  the state to "align" (2 pages a request) or "all" (a page per block, blocks aligned to the
  mamba chunk size), which kvplan does not model (its vLLM profile runs without prefix caching).
- "GPU KV cache size" (_report_kv_cache_config) = num_blocks // groups x the smallest group
  block size; the state's block size is max_model_len, so this is the attention block unless
  max_model_len is shorter (not modelled).

Not modelled either: speculative decoding's extra state blocks (num_speculative_blocks).
"""

from __future__ import annotations

from kvplan.capacity.kv import mamba2_groups_per_gpu, state_elements_per_gpu
from kvplan.capacity.plan import SizeRequest
from kvplan.engines.interface import parse_version
from kvplan.specs.schema import LayerKind, LinearState
from kvplan.units import DType, ceil_div

# config.py HybridAttentionMambaModelConfig: "some attention backends (e.g. FA) only support
# setting block size to multiple of 16"; MLA backends take 64 (CUTLASS MLA, chosen by flag, 128).
KERNEL_ALIGNMENT = 16
MLA_KERNEL_ALIGNMENT = 64
# FlashInfer on sm100 cannot run head size 256 in 16-token blocks: 32 (flashinfer#1993).
BLACKWELL_HEAD256_ALIGNMENT = 32
BLACKWELL_HEAD256_FROM = (0, 11, 1)  # absent from the v0.11.0-era copy of config.py
SM100 = ("b200", "b100", "gb200", "b300", "gb300")
STATE_BLOCKS_PER_REQUEST = 1  # MambaSpec.max_memory_usage_bytes: one page (mode "none")


def is_hybrid(req: SizeRequest, v1: bool) -> bool:
    """Whether vLLM's hybrid attention/mamba accounting applies (V1, linear layers present)."""
    att = req.model.attention
    return v1 and att.linear is not None and LayerKind.linear in req.model.layer_kinds()


def state_dtype_bits(req: SizeRequest) -> int:
    """The state's dtype: the model dtype ("auto" mamba cache dtypes), 16 bits unless the
    cache is served in 32 bits; an fp8 KV cache leaves the state in 16 bits."""
    return 32 if req.kv_dtype is DType.fp32 else 16


def state_page_bytes(req: SizeRequest) -> int:
    """One linear layer's state on one GPU (MambaSpec.page_size_bytes, before padding): the
    spec's elements per layer (conv + recurrent state split over TP as
    kvplan.capacity.kv.state_elements_per_gpu says: every term by heads for Gated DeltaNet,
    Mamba2's B/C groups replicated where TP does not divide them), in the model dtype
    (kvplan.capacity.kv.state_bytes_per_layer uses the weight dtype instead)."""
    model = req.model
    assert model.attention.linear is not None
    elements = state_elements_per_gpu(model.attention.linear, req.tp)
    return elements * state_dtype_bits(req) // 8


def state_formula(req: SizeRequest, linear: LinearState) -> str:
    """How state_page_bytes came about, for `kvplan explain`."""
    width = state_dtype_bits(req) // 8
    m = linear.mamba2
    if m is None:
        return (f"{linear.state_elements_per_layer:,} state elements / TP {req.tp} x {width} B "
                "(model dtype)")
    groups = mamba2_groups_per_gpu(m.n_groups, req.tp)
    return (f"Mamba2 on one GPU: conv {m.conv_kernel - 1} x ({m.n_heads * m.head_dim:,} / TP "
            f"{req.tp} + 2 x {groups} group(s) x {m.d_state}) + SSM {m.n_heads} / TP {req.tp} x "
            f"{m.head_dim} x {m.d_state} = {state_elements_per_gpu(linear, req.tp):,} elements x "
            f"{width} B (model dtype)")


def kernel_alignment(req: SizeRequest, version: str) -> int:
    """The attention kernel's block-size multiple that the raised block keeps."""
    if req.model.attention.mla is not None:
        return MLA_KERNEL_ALIGNMENT
    ver = parse_version(version) or ()
    if (ver >= BLACKWELL_HEAD256_FROM and req.gpu.name.lower().startswith(SM100)
            and req.model.attention.head_dim == 256):
        return BLACKWELL_HEAD256_ALIGNMENT
    return KERNEL_ALIGNMENT


def hybrid_block_size(attn_bytes_per_token: int, state_page: int, alignment: int,
                      block: int) -> int:
    """vLLM's attention block for a hybrid model: the smallest multiple of `alignment` whose
    attention page holds the state page, or the --block-size given when it is larger."""
    if attn_bytes_per_token <= 0:
        return block
    raised = alignment * ceil_div(state_page, alignment * attn_bytes_per_token)
    return max(block, raised)


def padding_note(attn_page: int, state_page: int) -> str:
    """vLLM's "Padding mamba page size by X%" figure."""
    if attn_page <= state_page or state_page <= 0:
        return "state page equals the attention page"
    return (f"state page padded by {100 * (attn_page - state_page) / state_page:.2f}% to the "
            "attention page")


def typed_groups(full: int, sliding: int, linear: int, wide: bool) -> tuple[int, int, int, int]:
    """(group size, full, sliding, linear groups): _get_kv_cache_groups_uniform_page_size over
    every layer type present (each type's layers split into cdiv(count, size) groups)."""
    counts = [n for n in (full, sliding, linear) if n]
    small, large = min(counts), max(counts)
    size = large if (wide and large < small * 1.5) else small
    return size, ceil_div(full, size), ceil_div(sliding, size), ceil_div(linear, size)


__all__ = ["BLACKWELL_HEAD256_ALIGNMENT", "BLACKWELL_HEAD256_FROM", "KERNEL_ALIGNMENT",
           "MLA_KERNEL_ALIGNMENT", "STATE_BLOCKS_PER_REQUEST", "hybrid_block_size",
           "is_hybrid", "kernel_alignment", "padding_note",
           "state_dtype_bits", "state_formula", "state_page_bytes", "typed_groups"]
