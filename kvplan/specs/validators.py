"""The pydantic validators of model and hardware specs. Units are part of every field name.

kvplan computes with the plain records of kvplan.specs.schema; each class here validates the
record of the same name (`ModelSpec.model_validate(data)` there calls this module's), and holds
the field descriptions the docs print (kvplan.render.schema_doc)."""

# No `from __future__ import annotations`: pydantic would evaluate every string annotation again
# when each class is made, a third of this module's import time (paid when a file needs pydantic).
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from kvplan.inputs import limits as lim
from kvplan.specs.schema import LayerKind
from kvplan.specs.validators_base import (  # noqa: F401 - re-exported
    Experts,
    HeadDim,
    Heads,
    Layers,
    MemBytes,
    Params,
    PositiveInt,
    SmiMib,
    Strict,
    Tokens,
    Width,
)
from kvplan.specs.validators_quant import (  # noqa: F401 - re-exported
    GGUF_Q8_0_BLOCK,
    ExpertQuant,
    NVFP4Quant,
    WeightQuant,
    quantization_fits,
)
from kvplan.units import DType, parse_dtype

# Counts are strict: `true` is not 1 and 3.0 is not 3. Every count has a ceiling far above any
# real model (docs/limits.md), so a typo is refused before it costs memory.
VISION_FIELDS = ("vision_hidden_size", "vision_intermediate_size", "vision_patch_size",
                 "vision_temporal_patch_size", "vision_spatial_merge_size", "vision_in_channels")
# Llama 4's tower: tiles of vision_image_size pixels, no temporal patch or spatial merge
LLAMA4_VISION_FIELDS = ("vision_hidden_size", "vision_intermediate_size", "vision_patch_size",
                        "vision_in_channels", "vision_image_size")


class MLA(Strict):
    """Multi-head latent attention (DeepSeek-V2/V3, Kimi-K2): the cache holds one latent per layer."""

    kv_lora_rank: Width = Field(description="compressed KV latent width (values)")
    qk_rope_head_dim: HeadDim = Field(description="decoupled RoPE key width (values)")
    qk_nope_head_dim: HeadDim | None = Field(default=None, description="per-head non-RoPE key width")
    v_head_dim: HeadDim | None = Field(default=None, description="per-head value width")
    q_lora_rank: Width | None = Field(default=None, description="query latent width, if any")


class Mamba2State(Strict):
    """A Mamba2 layer's shape, for the state's split over tensor-parallel ranks."""

    n_heads: Heads = Field(description="SSM heads (mamba_n_heads); split over TP ranks")
    head_dim: HeadDim = Field(description="values per SSM head (mamba_d_head)")
    d_state: HeadDim = Field(description="SSM state size per head value (mamba_d_state)")
    n_groups: Heads = Field(
        description="B/C groups (mamba_n_groups); replicated on every rank when TP does not divide them"
    )
    conv_kernel: Annotated[int, Field(gt=1, le=64, strict=True)] = Field(
        description="causal conv width (mamba_d_conv); the state keeps conv_kernel - 1 steps"
    )


class LinearState(Strict):
    """The fixed per-sequence state of a linear-attention layer (Gated DeltaNet, Mamba2)."""

    state_elements_per_layer: Params = Field(
        description="values held per sequence per linear layer (conv state + recurrent state)"
    )
    formula: str = Field(description="how the element count follows from the config")
    mamba2: Mamba2State | None = Field(
        default=None,
        description="a Mamba2 layer's shape: splits the state over TP ranks as vLLM does",
    )

    @model_validator(mode="after")
    def _mamba2_total(self) -> "LinearState":
        m = self.mamba2
        if m is not None:
            total = (m.conv_kernel - 1) * (m.n_heads * m.head_dim + 2 * m.n_groups * m.d_state) + (
                m.n_heads * m.head_dim * m.d_state)
            if total != self.state_elements_per_layer:
                raise ValueError(
                    f"state_elements_per_layer {self.state_elements_per_layer:,} does not match "
                    f"the mamba2 shape's {total:,} (conv (conv_kernel - 1) x (n_heads x head_dim "
                    "+ 2 x n_groups x d_state) + ssm n_heads x head_dim x d_state)")
        return self


class Attention(Strict):
    """How attention layers are shaped and which layers keep which cache."""

    num_kv_heads: Heads = Field(description="KV heads per layer (1 = MQA, = query heads for MHA)")
    head_dim: HeadDim = Field(description="key width per head, as the config sets it")
    v_head_dim: HeadDim | None = Field(
        default=None, description="value width per head where it differs from head_dim"
    )
    sliding_window_tokens: Tokens | None = Field(
        default=None, description="window of the `sliding` layers, in tokens"
    )
    layer_pattern: list[LayerKind] = Field(
        default_factory=lambda: [LayerKind.full],
        description="kinds of consecutive layers, repeated cyclically over all layers",
        min_length=1,
    )
    mla: MLA | None = Field(default=None, description="set for latent attention; replaces heads")
    linear: LinearState | None = Field(default=None, description="state of `linear` layers")

    @model_validator(mode="after")
    def _consistent(self) -> "Attention":
        kinds = set(self.layer_pattern)
        if LayerKind.sliding in kinds and self.sliding_window_tokens is None:
            raise ValueError("layer_pattern has sliding layers but sliding_window_tokens is not set")
        if LayerKind.sliding not in kinds and self.sliding_window_tokens is not None:
            raise ValueError(
                "sliding_window_tokens is set but no layer is `sliding`; "
                "add `sliding` to layer_pattern or remove the window"
            )
        if LayerKind.linear in kinds and self.linear is None:
            raise ValueError("layer_pattern has linear layers but `linear` state is not described")
        if self.linear is not None and LayerKind.linear not in kinds:
            raise ValueError("`linear` state is described but no layer is `linear`")
        return self


class MoE(Strict):
    """Mixture of experts: every expert is resident, only some are active per token."""

    num_experts: Experts = Field(description="routed experts per MoE layer (n_routed_experts)")
    experts_per_token: Experts = Field(description="experts each token is routed to (top-k)")
    moe_intermediate_size: Width | None = Field(
        default=None, description="one expert's MLP width, where it differs from intermediate_size"
    )
    num_shared_experts: int = Field(default=0, ge=0, le=lim.MAX_EXPERTS, strict=True,
                                    description="experts every token uses besides the routed ones")
    first_dense_layers: int = Field(default=0, ge=0, le=lim.MAX_LAYERS, strict=True,
                                    description="leading layers with a dense MLP (first_k_dense_replace)")
    expert_quant: ExpertQuant | None = Field(
        default=None, description="the routed experts' storage where it differs from weight_dtype "
        "(quantization_config that quantizes only them); unset: weight_dtype throughout"
    )


class ModelAlias(Strict):
    """Another published repository with the same architecture (an -Instruct, -chat, -it, base,
    `Meta-` spelling or fine-tune). Never guessed from a name pattern: `source` cites the
    variant's own config.json, which must match the spec's shapes."""

    id: str = Field(min_length=1, description="the variant's Hugging Face id, as users type it")
    source: str = Field(min_length=10, description="where the variant's config.json was read")
    weight_dtype: DType | None = Field(
        default=None, description="the dtype the variant is published in where it differs from "
        "the spec's weight_dtype (its config.json's torch_dtype); unset: the spec's")


class ModelSpec(Strict):
    """One model's shapes, each number traceable to its `source`."""

    name: str = Field(description="catalog name; equals the file stem")
    hf_id: str = Field(description="Hugging Face repository id")
    aliases: list[ModelAlias] = Field(
        default_factory=list, description="published variants with the same architecture"
    )
    source: str = Field(min_length=10, description="where every number comes from")
    model_type: str = Field(description="the config's model_type (llama, qwen2, deepseek_v3, ...)")
    params_total: Params = Field(description="all parameters, every expert included")
    params_active: Params | None = Field(default=None, description="parameters used per token (MoE)")
    params_estimated: bool = Field(default=False, description="true when counted from shapes")
    params_encoder: Params | None = Field(
        default=None,
        description="parameters of a vision/audio tower, already included in params_total "
        "(multimodal checkpoints are sized whole)",
    )
    mm_tokens_per_item: Tokens | None = Field(
        default=None,
        description="embeddings the largest image/video item becomes (a multimodal model's "
        "encoder cache is sized in these; kvplan.specs.mm_tokens)",
    )
    vision_hidden_size: Width | None = Field(
        default=None, description="vision tower width (vision_config.hidden_size; Qwen2.5-VL: "
        "sizes the tower's activation vLLM profiles, kvplan.engines.vision_tower)")
    vision_intermediate_size: Width | None = Field(
        default=None, description="vision tower MLP width (vision_config.intermediate_size)")
    vision_patch_size: HeadDim | None = Field(
        default=None, description="vision patch side in pixels (vision_config.patch_size)")
    vision_temporal_patch_size: HeadDim | None = Field(
        default=None, description="frames one patch spans (vision_config.temporal_patch_size)")
    vision_spatial_merge_size: HeadDim | None = Field(
        default=None, description="patches merged per side into one embedding "
        "(vision_config.spatial_merge_size)")
    vision_in_channels: HeadDim | None = Field(
        default=None, description="image channels (vision_config.in_chans; Llama 4: num_channels)")
    vision_out_hidden_size: Width | None = Field(
        default=None, description="Qwen3-VL: the merger's output width "
        "(vision_config.out_hidden_size)")
    vision_deepstack_levels: Annotated[int, Field(ge=0, le=lim.MAX_LAYERS, strict=True)] | None = (
        Field(default=None, description="Qwen3-VL: deepstack mergers "
              "(len(vision_config.deepstack_visual_indexes)); each widens the encoder output"))
    vision_image_size: Width | None = Field(
        default=None, description="Llama 4: one tile's side in pixels (vision_config.image_size; "
        "kvplan.engines.vision_tower_llama4)")
    num_layers: Layers = Field(description="decoder layers (num_hidden_layers)")
    hidden_size: Width = Field(description="residual stream width (hidden_size)")
    num_attention_heads: Heads = Field(description="query heads")
    intermediate_size: Width | None = Field(default=None, description="dense MLP width")
    vocab_size: Annotated[int, Field(gt=0, le=lim.MAX_VOCAB, strict=True)] = Field(
        description="embedding rows (vocab_size); sizes the logits of the activation peak")
    max_context_tokens: Tokens = Field(description="max_position_embeddings or the card's limit")
    rope_type: str | None = Field(
        default=None, description="the config's rope_scaling type (rope_type, or type), `default` "
        "where it sets none; unset: not read (no RoPE, or not imported), and vLLM's rotary "
        "cos/sin cache is not booked (kvplan.engines.vllm_rotary)")
    rope_factor: Annotated[float, Field(gt=0.0, le=1024)] | None = Field(
        default=None, description="rope_scaling.factor (linear, YaRN, llama3 scaling)")
    rope_original_positions: Tokens | None = Field(
        default=None, description="rope_scaling.original_max_position_embeddings (YaRN: "
        "the rotary cache is this x rope_factor positions)")
    partial_rotary_factor: Annotated[float, Field(gt=0.0, le=1)] | None = Field(
        default=None, description="the config's partial_rotary_factor: the share of each head "
        "RoPE rotates")
    weight_dtype: DType = Field(description="dtype the weights are published in")
    attention: Attention = Field(description="the attention block below")
    moe: MoE | None = Field(default=None, description="set for mixture-of-experts models")
    weight_quant: WeightQuant | None = Field(
        default=None, description="the decoder's linear layers stored quantized (GPTQ/AWQ, or "
        "dense 8-bit compressed-tensors / fbgemm_fp8 quantization_config); unset: weight_dtype "
        "throughout")
    nvfp4: NVFP4Quant | None = Field(
        default=None, description="a ModelOpt NVFP4 checkpoint (quant_algo NVFP4): the groups "
        "it stores in 4 bits; unset: weight_dtype throughout")
    kv_cache_quant_algo: Literal["FP8", "NVFP4", "INT8"] | None = Field(
        default=None, description="the checkpoint's own KV-cache quantization, as TensorRT-LLM "
        "reads it: hf_quant_config.json's kv_cache_quant_algo (ModelOpt), or FP8 for "
        "config.json's quantization_config.kv_cache_scheme of 8-bit floats (compressed-tensors); "
        "`source` cites the file. TensorRT-LLM's cache dtype auto (its default) takes it; "
        "unset: the files `source` cites state none")
    weight_block_size: Annotated[list[PositiveInt], Field(min_length=2, max_length=2)] | None = \
        Field(default=None, description="a block-quantized fp8 checkpoint's [block_n, block_k]: "
              "config.json's quantization_config.weight_block_size (quant_method fp8), one scale "
              "per block_n output rows x block_k inputs. The engines refuse a tensor-parallel "
              "size that splits a block (kvplan.engines.fp8_blocks); unset: no block scales")
    notes: str | None = Field(default=None, description="traps and choices, in words")

    @field_validator("weight_dtype", mode="before")
    @classmethod
    def _dtype(cls, v: object) -> object:
        return parse_dtype(v) if isinstance(v, str) else v

    @model_validator(mode="after")
    def _consistent(self) -> "ModelSpec":
        if self.params_active is not None and self.params_active > self.params_total:
            raise ValueError("params_active is larger than params_total")
        if self.mm_tokens_per_item is not None and not self.params_encoder:
            raise ValueError("mm_tokens_per_item is set but the model has no encoder "
                             "(params_encoder)")
        fields = VISION_FIELDS if self.vision_image_size is None else LLAMA4_VISION_FIELDS
        tower = [getattr(self, f) for f in fields]
        if self.vision_image_size is not None and (
                self.vision_temporal_patch_size is not None
                or self.vision_spatial_merge_size is not None):
            raise ValueError("vision_image_size (Llama 4's tiles) goes without "
                             "vision_temporal_patch_size and vision_spatial_merge_size")
        if any(v is not None for v in tower) and (None in tower or not self.params_encoder):
            raise ValueError(f"the vision tower fields ({', '.join(fields)}) are set "
                             "together, and only on a model with an encoder (params_encoder)")
        if self.weight_block_size is not None and self.weight_dtype is not DType.fp8:
            raise ValueError("weight_block_size is a block-quantized fp8 checkpoint's; "
                             f"weight_dtype is {self.weight_dtype.value}, not fp8")
        qwen3 = (self.vision_out_hidden_size, self.vision_deepstack_levels)
        if any(v is not None for v in qwen3) and (None in qwen3 or None in tower):
            raise ValueError("vision_out_hidden_size and vision_deepstack_levels are set together, "
                             "and only with the vision tower fields")
        if len(self.attention.layer_pattern) > self.num_layers:
            raise ValueError("attention.layer_pattern is longer than num_layers")
        kv, heads = self.attention.num_kv_heads, self.num_attention_heads
        if self.attention.mla is None and (kv > heads or heads % kv):
            raise ValueError(
                f"attention.num_kv_heads ({kv}) must divide num_attention_heads ({heads}): "
                "each KV head serves a whole group of query heads"
            )
        if self.moe is not None and self.moe.experts_per_token > self.moe.num_experts:
            raise ValueError("moe.experts_per_token is larger than moe.num_experts")
        quantization_fits(self)  # kvplan.specs.validators_quant
        return self


class HardwareSpec(Strict):
    """One accelerator, with the memory its runtime reports."""

    name: str = Field(description="catalog name; equals the file stem")
    aliases: list[str] = Field(default_factory=list, description="short names users may type")
    vendor: str = Field(description="NVIDIA or AMD (`kvplan gpus --vendor`)")
    label: str = Field(description="marketed name")
    device_names: list[str] = Field(
        default_factory=list,
        description="the name the runtime reports (torch.cuda.get_device_name, nvidia-smi), as "
        "quoted in memory_source or nvidia_smi_source; --measure matches a detected GPU by it",
    )
    memory_bytes: MemBytes = Field(description="total memory as the CUDA/ROCm runtime reports it")
    memory_source: str = Field(min_length=10, description="how memory_bytes was obtained")
    nvidia_smi_mib: SmiMib | None = Field(default=None, description="total nvidia-smi shows")
    nvidia_smi_source: str | None = Field(default=None, description="where that reading comes from")
    memory_bandwidth_bytes_per_s: Annotated[
        int, Field(gt=0, le=lim.MAX_BANDWIDTH_BYTES_PER_S, strict=True)
    ] = Field(description="datasheet memory bandwidth; bounds decode speed")
    bf16_dense_flops: Annotated[int, Field(gt=0, le=lim.MAX_FLOPS, strict=True)] | None = Field(
        default=None, description="dense BF16 tensor FLOP/s (not sparse); unset where unsourced"
    )
    fp8_supported: bool = Field(description="native fp8 tensor cores (an fp8 cache is offered as a fix)")
    compute_capability: Annotated[str, Field(pattern=r"^[1-9][0-9]?\.[0-9]$")] | None = Field(
        default=None,
        description="CUDA compute capability, MAJOR.MINOR as NVIDIA's CUDA GPUs page writes it "
        "(\"7.0\", \"8.9\"), else a runtime reading (torch's device properties, nvidia-smi "
        "--query-gpu=compute_cap: the A10G, H20 and H800, which the page does not list); the "
        "engines' dtype rules read it (below 8.0 vLLM and TensorRT-LLM's LLM API refuse bfloat16, "
        "SGLang runs float16: docs/engines.md). NVIDIA only; unset where no source states it "
        "(the A800, the L20, AMD GPUs)",
    )
    compute_capability_source: str | None = Field(
        default=None, description="where compute_capability is stated (required with it)"
    )
    unified_memory: bool = Field(
        default=False,
        description="memory shared with the host CPU (DGX Spark / GB10): memory_bytes is the pool "
        "the runtime reports, which the OS and host processes also draw from",
    )
    gpus_per_node: int = Field(
        default=8, gt=0, le=4096, strict=True,
        description="GPUs one server (one host, one OS) holds; tensor parallelism beyond it needs a "
        "stated node count",
    )
    nvlink_domain_gpus: int | None = Field(
        default=None, gt=0, le=4096, strict=True,
        description="GPUs one NVLink domain joins across servers (a GB200/GB300 NVL72 rack: 72, "
        "over trays of 4); unset where the domain ends at the server. Tensor parallelism may "
        "span servers inside it, still with a stated node count",
    )
    price_per_hour_usd: float | None = Field(
        default=None, gt=0, allow_inf_nan=False, description="on-demand USD per GPU-hour, where read"
    )
    price_source: str | None = Field(default=None, description="the page the price was read from")
    source: str = Field(min_length=10, description="datasheet(s) for bandwidth and FLOP/s")

    @model_validator(mode="after")
    def _capability_cited(self) -> "HardwareSpec":
        cc, src = self.compute_capability, self.compute_capability_source
        if cc is not None and self.vendor.lower() != "nvidia":
            raise ValueError(f"compute_capability is NVIDIA's CUDA version; {self.vendor} has none: "
                             "drop it")
        if (cc is None) != (src is None or len(src) < 10):
            raise ValueError("compute_capability and compute_capability_source go together: "
                             "state the source it was read from (at least 10 characters), or "
                             "neither")
        return self

    @model_validator(mode="after")
    def _domain_spans_servers(self) -> "HardwareSpec":
        domain = self.nvlink_domain_gpus
        if domain is not None and domain <= self.gpus_per_node:
            raise ValueError(f"nvlink_domain_gpus ({domain}) must exceed gpus_per_node "
                             f"({self.gpus_per_node}): leave it unset where the domain is the server")
        return self
