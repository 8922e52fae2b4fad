"""Model and hardware specs as kvplan computes with them: plain frozen records (kvplan.plain).

Each class is validated by the pydantic class of the same name in kvplan.specs.validators,
which holds the fields' types, bounds and descriptions; `ModelSpec.model_validate(data)` goes
through it. Specs read from the catalog index were validated when the index was built and are
rebuilt here without pydantic (kvplan.specs.frozen). Units are part of every field name.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

from kvplan.plain import REQUIRED, Factory, Plain

if TYPE_CHECKING:
    from kvplan.units import DType

_V = "kvplan.specs.validators"


class LayerKind(str, Enum):
    """What one decoder layer keeps per sequence."""

    full = "full"  # attention over the whole context: a per-token cache
    sliding = "sliding"  # attention over the last `sliding_window_tokens` tokens only
    linear = "linear"  # linear attention / state-space: a fixed per-sequence state, no per-token cache


def _full_pattern() -> list[LayerKind]:
    return [LayerKind.full]


class MLA(Plain):
    """Multi-head latent attention (DeepSeek-V2/V3, Kimi-K2): the cache holds one latent per layer."""

    _VALIDATORS = _V
    _FIELDS = {"kv_lora_rank": REQUIRED, "qk_rope_head_dim": REQUIRED,
               "qk_nope_head_dim": None, "v_head_dim": None, "q_lora_rank": None}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        kv_lora_rank: int
        qk_rope_head_dim: int
        qk_nope_head_dim: int | None
        v_head_dim: int | None
        q_lora_rank: int | None


class Mamba2State(Plain):
    """A Mamba2 layer's shape, where its state is split over tensor-parallel ranks unevenly:
    vLLM's MambaStateShapeCalculator.mamba2_state_shape replicates the B/C groups of the conv
    state on every rank when tp does not divide them (kvplan.capacity.kv.state_elements_per_gpu)."""

    _VALIDATORS = _V
    _FIELDS = {"n_heads": REQUIRED, "head_dim": REQUIRED, "d_state": REQUIRED,
               "n_groups": REQUIRED, "conv_kernel": REQUIRED}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        n_heads: int
        head_dim: int
        d_state: int
        n_groups: int
        conv_kernel: int

    @property
    def conv_elements(self) -> int:
        """Conv state at TP 1: (conv_kernel - 1) x (n_heads x head_dim + 2 x n_groups x d_state)."""
        return (self.conv_kernel - 1) * (self.n_heads * self.head_dim + 2 * self.n_groups * self.d_state)

    @property
    def ssm_elements(self) -> int:
        """Temporal (SSM) state at TP 1: n_heads x head_dim x d_state."""
        return self.n_heads * self.head_dim * self.d_state


class LinearState(Plain):
    """The fixed per-sequence state of a linear-attention layer (Gated DeltaNet, Mamba2)."""

    _VALIDATORS = _V
    _FIELDS = {"state_elements_per_layer": REQUIRED, "formula": REQUIRED, "mamba2": None}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        state_elements_per_layer: int
        formula: str
        mamba2: Mamba2State | None


class Attention(Plain):
    """How attention layers are shaped and which layers keep which cache."""

    _VALIDATORS = _V
    _FIELDS = {"num_kv_heads": REQUIRED, "head_dim": REQUIRED, "v_head_dim": None,
               "sliding_window_tokens": None, "layer_pattern": Factory(_full_pattern),
               "mla": None, "linear": None}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        num_kv_heads: int
        head_dim: int
        v_head_dim: int | None
        sliding_window_tokens: int | None
        layer_pattern: list[LayerKind]
        mla: MLA | None
        linear: LinearState | None

    @property
    def value_head_dim(self) -> int:
        return self.v_head_dim if self.v_head_dim is not None else self.head_dim


class ExpertQuant(Plain):
    """How the routed experts' weights are stored where they differ from `weight_dtype`
    (Kimi-K2.5: int4 routed experts, bf16 elsewhere): packed values of `weight_dtype`, one
    symmetric scale of `scale_dtype` per `group_size` weights along each row, no zero points."""

    _VALIDATORS = _V
    _FIELDS = {"weight_dtype": REQUIRED, "group_size": REQUIRED, "scale_dtype": REQUIRED}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        weight_dtype: DType
        group_size: int
        scale_dtype: DType


class WeightQuant(Plain):
    """Which linear layers a checkpoint stores quantized, in which scheme (GPTQ, AWQ): every
    decoder layer's attention projections (q, k, v, o) and gated MLP (gate, up, down) as packed
    `weight_dtype` values with one `scale_dtype` scale and one packed zero point per
    `group_size` inputs and output; GPTQ adds an int32 group index per input row (kvplan.capacity
    .linear_quant). Embeddings, LM head, norms and biases stay in the spec's `weight_dtype`
    (GGUF Q8_0 keeps them in its 34-byte blocks too, with one fp16 scale per 32 and no zeros).
    Dense 8-bit checkpoints (compressed-tensors FP8/INT8, fbgemm_fp8) store one byte a weight and
    `strategy` channel (one scale per output row) or tensor (one per fused shard) scales, with
    static `input_scale`s where the activations are quantized statically."""

    _VALIDATORS = _V
    _FIELDS = {"method": REQUIRED, "weight_dtype": REQUIRED, "group_size": None,
               "scale_dtype": REQUIRED, "act_order": False, "strategy": "group",
               "input_scale": "none"}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        method: str
        weight_dtype: DType
        group_size: int | None
        scale_dtype: DType
        act_order: bool
        strategy: str
        input_scale: str


class NVFP4Quant(Plain):
    """A ModelOpt NVFP4 checkpoint (quant_algo NVFP4): the linear layers of the groups in
    `quantized` store two e2m1 4-bit values a byte, one fp8 (e4m3) scale per `group_size` inputs
    of each row, and two fp32 scalars per tensor (weight_scale_2, input_scale); everything else
    is the spec's `weight_dtype` (kvplan.capacity.nvfp4)."""

    _VALIDATORS = _V
    _FIELDS = {"group_size": REQUIRED, "quantized": REQUIRED, "source": REQUIRED}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        group_size: int
        quantized: list[str]
        source: str


class MoE(Plain):
    """Mixture of experts: every expert is resident, only some are active per token."""

    _VALIDATORS = _V
    _FIELDS = {"num_experts": REQUIRED, "experts_per_token": REQUIRED,
               "moe_intermediate_size": None, "num_shared_experts": 0, "first_dense_layers": 0,
               "expert_quant": None}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        num_experts: int
        experts_per_token: int
        moe_intermediate_size: int | None
        num_shared_experts: int
        first_dense_layers: int
        expert_quant: ExpertQuant | None


class ModelAlias(Plain):
    """Another published repository with the same architecture (an -Instruct, -chat, -it, base,
    `Meta-` spelling or fine-tune). Never guessed from a name pattern: `source` cites the
    variant's own config.json, which must match the spec's shapes. `weight_dtype`: the dtype the
    variant is published in where it differs from the spec's (its config.json's torch_dtype);
    resolving the alias plans its weights in it (kvplan.specs.resolve)."""

    _VALIDATORS = _V
    _FIELDS = {"id": REQUIRED, "source": REQUIRED, "weight_dtype": None}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        id: str
        source: str
        weight_dtype: DType | None


class ModelSpec(Plain):
    """One model's shapes, each number traceable to its `source`."""

    _VALIDATORS = _V
    _FIELDS = {"name": REQUIRED, "hf_id": REQUIRED, "aliases": Factory(list),
               "source": REQUIRED, "model_type": REQUIRED, "params_total": REQUIRED,
               "params_active": None, "params_estimated": False, "params_encoder": None,
               "mm_tokens_per_item": None, "vision_hidden_size": None,
               "vision_intermediate_size": None, "vision_patch_size": None,
               "vision_temporal_patch_size": None, "vision_spatial_merge_size": None,
               "vision_in_channels": None, "vision_out_hidden_size": None,
               "vision_deepstack_levels": None, "vision_image_size": None,
               "num_layers": REQUIRED, "hidden_size": REQUIRED,
               "num_attention_heads": REQUIRED, "intermediate_size": None,
               "vocab_size": REQUIRED, "max_context_tokens": REQUIRED,
               "rope_type": None, "rope_factor": None, "rope_original_positions": None,
               "partial_rotary_factor": None,
               "weight_dtype": REQUIRED, "attention": REQUIRED, "moe": None,
               "weight_quant": None, "nvfp4": None, "kv_cache_quant_algo": None,
               "weight_block_size": None, "notes": None}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        name: str
        hf_id: str
        aliases: list[ModelAlias]
        source: str
        model_type: str
        params_total: int
        params_active: int | None
        params_estimated: bool
        params_encoder: int | None
        mm_tokens_per_item: int | None
        vision_hidden_size: int | None
        vision_intermediate_size: int | None
        vision_patch_size: int | None
        vision_temporal_patch_size: int | None
        vision_spatial_merge_size: int | None
        vision_in_channels: int | None
        vision_out_hidden_size: int | None
        vision_deepstack_levels: int | None
        vision_image_size: int | None
        num_layers: int
        hidden_size: int
        num_attention_heads: int
        intermediate_size: int | None
        vocab_size: int
        max_context_tokens: int
        rope_type: str | None
        rope_factor: float | None
        rope_original_positions: int | None
        partial_rotary_factor: float | None
        weight_dtype: DType
        attention: Attention
        moe: MoE | None
        weight_quant: WeightQuant | None
        nvfp4: NVFP4Quant | None
        kv_cache_quant_algo: str | None
        weight_block_size: list[int] | None
        notes: str | None

    def layer_kinds(self) -> list[LayerKind]:
        """The kind of every layer, in order."""
        pattern = self.attention.layer_pattern
        return [pattern[i % len(pattern)] for i in range(self.num_layers)]

    @property
    def attention_kind(self) -> str:
        """A short label: MHA, GQA, MQA or MLA, with +SWA / hybrid where it applies."""
        att = self.attention
        if att.mla is not None:
            base = "MLA"
        elif att.num_kv_heads == 1:
            base = "MQA"
        elif att.num_kv_heads == self.num_attention_heads:
            base = "MHA"
        else:
            base = "GQA"
        kinds = set(self.layer_kinds())
        if LayerKind.linear in kinds:
            return f"{base} hybrid (linear)"
        if kinds == {LayerKind.sliding}:
            return f"{base} SWA"
        if LayerKind.sliding in kinds:
            return f"{base} SWA/global"
        return base


class HardwareSpec(Plain):
    """One accelerator, with the memory its runtime reports."""

    @property
    def capability(self) -> tuple[int, int] | None:
        """compute_capability as (major, minor), as torch.cuda.get_device_capability returns it
        (None: unstated, or not NVIDIA's)."""
        if self.compute_capability is None:
            return None
        major, minor = self.compute_capability.split(".")
        return int(major), int(minor)

    _VALIDATORS = _V
    _FIELDS = {"name": REQUIRED, "aliases": Factory(list), "vendor": REQUIRED,
               "label": REQUIRED, "device_names": Factory(list), "memory_bytes": REQUIRED,
               "memory_source": REQUIRED, "nvidia_smi_mib": None, "nvidia_smi_source": None,
               "memory_bandwidth_bytes_per_s": REQUIRED, "bf16_dense_flops": None,
               "fp8_supported": REQUIRED, "compute_capability": None,
               "compute_capability_source": None, "unified_memory": False, "gpus_per_node": 8,
               "nvlink_domain_gpus": None, "price_per_hour_usd": None, "price_source": None,
               "source": REQUIRED}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        name: str
        aliases: list[str]
        vendor: str
        label: str
        device_names: list[str]
        memory_bytes: int
        memory_source: str
        nvidia_smi_mib: int | None
        nvidia_smi_source: str | None
        memory_bandwidth_bytes_per_s: int
        bf16_dense_flops: int | None
        fp8_supported: bool
        compute_capability: str | None
        compute_capability_source: str | None
        unified_memory: bool
        gpus_per_node: int
        nvlink_domain_gpus: int | None
        price_per_hour_usd: float | None
        price_source: str | None
        source: str


SPEC_CLASSES: tuple[type[Plain], ...] = (MLA, Mamba2State, LinearState, Attention, ExpertQuant,
                                          WeightQuant, NVFP4Quant, MoE, ModelAlias, ModelSpec,
                                          HardwareSpec)
