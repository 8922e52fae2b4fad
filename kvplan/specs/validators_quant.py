"""The spec validators of quantized weights: routed experts in int4 (`moe.expert_quant`), GPTQ /
AWQ / GGUF Q8_0 linear layers (`weight_quant`) and ModelOpt NVFP4 groups (`nvfp4`), and
`quantization_fits`, ModelSpec's checks that they fit the model (moved out of the class by task
h42hygiene). Split from kvplan.specs.validators, which re-exports them."""

# No `from __future__ import annotations` (see kvplan.specs.validators).
from typing import TYPE_CHECKING, Literal

from pydantic import Field, field_validator, model_validator

from kvplan.specs.schema import LayerKind
from kvplan.specs.validators_base import Strict, Width
from kvplan.units import DType, parse_dtype

if TYPE_CHECKING:
    from kvplan.specs.validators import ModelSpec


class ExpertQuant(Strict):
    """How the routed experts' weights are stored where they differ from `weight_dtype`."""

    weight_dtype: DType = Field(description="the experts' packed values (int4: two per byte)")
    group_size: Width = Field(description="weights per scale, along each row (input dimension)")
    scale_dtype: DType = Field(description="one symmetric scale per group, no zero point")

    @field_validator("weight_dtype", "scale_dtype", mode="before")
    @classmethod
    def _dtype(cls, v: object) -> object:
        return parse_dtype(v) if isinstance(v, str) else v

    @model_validator(mode="after")
    def _known(self) -> "ExpertQuant":
        if self.weight_dtype is not DType.int4:
            raise ValueError("moe.expert_quant.weight_dtype: only int4 (packed, group scales) is "
                             f"modelled, not {self.weight_dtype.value}")
        if self.scale_dtype.bits < 8:
            raise ValueError("moe.expert_quant.scale_dtype must be 8 bits or more")
        return self


# ggml's Q8_0 block (ggml-common.h block_q8_0: an fp16 scale d and QK8_0 = 32 int8 values, 34 B)
GGUF_Q8_0_BLOCK = 32


# The dense 8-bit schemes (kvplan.capacity.linear_quant): compressed-tensors W8A8 (FP8 or INT8,
# vLLM's CompressedTensorsW8A8Fp8 / CompressedTensorsW8A8Int8) and fbgemm_fp8 (FBGEMMFp8Config)
DENSE_8BIT = {"compressed-tensors": (DType.fp8, DType.int8), "fbgemm_fp8": (DType.fp8,)}


class WeightQuant(Strict):
    """Which linear layers are stored quantized, in which scheme (GPTQ, AWQ, GGUF Q8_0, or a
    dense 8-bit compressed-tensors / fbgemm_fp8 checkpoint)."""

    method: Literal["gptq", "awq", "gguf", "compressed-tensors", "fbgemm_fp8"] = Field(
        description="the checkpoint's quant_method: gptq (packed along the input, an int32 "
        "g_idx per input row), awq (packed along the output), gguf (a GGUF file's Q8_0 "
        "blocks: 32 int8 values and one fp16 scale, no zero point; the embeddings too), "
        "compressed-tensors (dense W8A8: fp8 or int8 weights, a byte each) or fbgemm_fp8 (fp8 "
        "weights, one fp32 scale per output row, one fp32 activation_scale_ub per layer)")
    weight_dtype: DType = Field(description="the packed values: int4 (eight to an int32) or "
                                "int8 (four; gptq only); fp8 or int8, one a byte, for the dense "
                                "8-bit methods")
    group_size: Width | None = Field(default=None, description="input rows per scale and zero "
                                     "point (strategy group: required; unset otherwise)")
    scale_dtype: DType = Field(description="one scale per group and output (fp16: vLLM "
                               "registers the scales in the activation dtype, half; fp32 for the "
                               "dense 8-bit methods)")
    act_order: bool = Field(default=False, strict=True, description="gptq desc_act: the "
                            "row-parallel layers keep every group's scales and zeros on each "
                            "TP rank")
    strategy: Literal["group", "channel", "tensor"] = Field(
        default="group", description="how the weight scales are laid: group (per group_size "
        "inputs and output: gptq, awq, gguf), channel (one per output row) or tensor (one per "
        "fused shard: q, k, v; gate, up)")
    input_scale: Literal["none", "static", "static_zero_point"] = Field(
        default="none", description="static activation scales the checkpoint stores: none "
        "(weights only, or dynamic per-token activations), static (fp8: one fp32 per fused "
        "shard; int8: one fp32 a layer) or static_zero_point (int8 asymmetric: one fp32 and one "
        "int8 zero point a layer)")

    @field_validator("weight_dtype", "scale_dtype", mode="before")
    @classmethod
    def _dtype(cls, v: object) -> object:
        return parse_dtype(v) if isinstance(v, str) else v

    @model_validator(mode="after")
    def _known(self) -> "WeightQuant":
        allowed = {"awq": (DType.int4,), "gguf": (DType.int8,), **DENSE_8BIT}.get(
            self.method, (DType.int4, DType.int8))
        if self.weight_dtype not in allowed:
            raise ValueError(f"weight_quant.weight_dtype: {self.method} stores "
                             f"{' or '.join(d.value for d in allowed)}, not {self.weight_dtype.value}")
        if self.scale_dtype.bits < 8:
            raise ValueError("weight_quant.scale_dtype must be 8 bits or more")
        if self.method == "gguf" and (self.group_size != GGUF_Q8_0_BLOCK
                                      or self.scale_dtype is not DType.fp16):
            raise ValueError(f"weight_quant: gguf is modelled as Q8_0, blocks of "
                             f"{GGUF_Q8_0_BLOCK} values with one fp16 scale (group_size "
                             f"{GGUF_Q8_0_BLOCK}, scale_dtype fp16)")
        if self.act_order and self.method != "gptq":
            raise ValueError("weight_quant.act_order is a gptq setting (desc_act)")
        dense = self.method in DENSE_8BIT
        if dense == (self.strategy == "group"):
            raise ValueError(f"weight_quant.strategy: {self.method} takes "
                             f"{'channel or tensor' if dense else 'group'}, not {self.strategy}")
        if (self.group_size is None) != dense:
            raise ValueError(f"weight_quant.group_size: {'unset' if dense else 'required'} "
                             f"for {self.method}")
        if self.input_scale != "none" and self.method != "compressed-tensors":
            raise ValueError("weight_quant.input_scale: static activation scales are a "
                             "compressed-tensors setting")
        if self.input_scale == "static_zero_point" and self.weight_dtype is not DType.int8:
            raise ValueError("weight_quant.input_scale static_zero_point: only int8 "
                             "activations carry a zero point")
        if self.method == "fbgemm_fp8" and self.strategy != "channel":
            raise ValueError("weight_quant.strategy: fbgemm_fp8 scales are per channel")
        return self


class NVFP4Quant(Strict):
    """A ModelOpt NVFP4 checkpoint: which linear-layer groups are 4-bit (the rest unquantized)."""

    group_size: Literal[16] = Field(description="inputs per fp8 (e4m3) block scale: 16, the "
                                    "NVFP4 format's (hf_quant_config.json group_size)")
    quantized: list[Literal["attention", "dense_mlp", "shared_experts", "routed_experts",
                            "lm_head"]] = Field(
        min_length=1, description="the linear-layer groups stored in NVFP4, as the checkpoint's "
        "exclude_modules / ignore list leaves them: attention, dense_mlp (the MLP of dense "
        "layers), shared_experts, routed_experts, lm_head; embeddings, norms, the router and a "
        "vision tower are never NVFP4 here")
    source: str = Field(min_length=10, description="where the checkpoint's quantization config "
                        "(its exclusions) was read")

    @model_validator(mode="after")
    def _unique(self) -> "NVFP4Quant":
        if len(set(self.quantized)) != len(self.quantized):
            raise ValueError("nvfp4.quantized names a group twice")
        return self


def quantization_fits(spec: "ModelSpec") -> None:
    """ModelSpec's checks of its quantized weights (called from its model validator): the routed
    experts' int4 groups divide their widths and are narrower than weight_dtype; weight_quant and
    nvfp4 fit the model (`_linear_quant_fits`, `_nvfp4_fits`). Raises ValueError."""
    quant = spec.moe.expert_quant if spec.moe is not None else None
    if quant is not None and spec.moe is not None:
        inter = spec.moe.moe_intermediate_size
        if inter is None:
            raise ValueError("moe.expert_quant needs moe.moe_intermediate_size")
        if spec.hidden_size % quant.group_size or inter % quant.group_size:
            raise ValueError(f"moe.expert_quant.group_size {quant.group_size} must divide "
                             f"hidden_size {spec.hidden_size} and moe_intermediate_size {inter}")
        if quant.weight_dtype.bits >= spec.weight_dtype.bits:
            raise ValueError("moe.expert_quant.weight_dtype is not narrower than weight_dtype")
    if spec.weight_quant is not None:
        _linear_quant_fits(spec, spec.weight_quant)
    if spec.nvfp4 is not None:
        _nvfp4_fits(spec, spec.nvfp4)


def _nvfp4_fits(spec: "ModelSpec", quant: NVFP4Quant) -> None:
    """The groups exist in this model and no other quantization is stated beside them."""
    if spec.weight_quant is not None or (spec.moe is not None and
                                         spec.moe.expert_quant is not None):
        raise ValueError("nvfp4 is a whole checkpoint's scheme: not with weight_quant or "
                         "moe.expert_quant")
    if spec.weight_dtype.bits < 16:
        raise ValueError("nvfp4: weight_dtype is the unquantized layers' dtype (bf16/fp16)")
    experts = {"shared_experts", "routed_experts"} & set(quant.quantized)
    if experts and (spec.moe is None or spec.moe.moe_intermediate_size is None):
        raise ValueError(f"nvfp4.quantized names {sorted(experts)} but the model has no "
                         "moe.moe_intermediate_size")
    if ("shared_experts" in quant.quantized and spec.moe is not None
            and not spec.moe.num_shared_experts):
        raise ValueError("nvfp4.quantized names shared_experts but the model has none")
    if "dense_mlp" in quant.quantized and spec.intermediate_size is None:
        raise ValueError("nvfp4.quantized names dense_mlp but intermediate_size is unset")
    if "attention" in quant.quantized and LayerKind.linear in spec.attention.layer_pattern:
        raise ValueError("nvfp4: quantized linear-attention layers are not modelled")

def _linear_quant_fits(spec: "ModelSpec", quant: WeightQuant) -> None:
    """The layout kvplan.capacity.linear_quant prices: dense GQA/MHA layers with a gated MLP,
    every input width a whole number of groups, every output a whole number of int32s."""
    if spec.moe is not None or spec.attention.mla is not None:
        raise ValueError("weight_quant is modelled for dense models without latent "
                         "attention (set moe.expert_quant for quantized routed experts)")
    if LayerKind.linear in spec.attention.layer_pattern:
        raise ValueError("weight_quant is not modelled for linear-attention layers")
    if spec.intermediate_size is None:
        raise ValueError("weight_quant needs intermediate_size (the gated MLP's width)")
    if quant.weight_dtype.bits >= spec.weight_dtype.bits:
        raise ValueError("weight_quant.weight_dtype is not narrower than weight_dtype")
    att = spec.attention
    q_width = spec.num_attention_heads * att.head_dim
    if quant.group_size is None:  # dense 8-bit: a byte a weight, no groups or packing
        return
    for what, width in (("hidden_size", spec.hidden_size), ("intermediate_size",
                        spec.intermediate_size), ("heads x head_dim", q_width)):
        if width % quant.group_size:
            raise ValueError(f"weight_quant.group_size {quant.group_size} must divide "
                             f"{what} {width}")
    pack = 32 // quant.weight_dtype.bits
    qkv = q_width + 2 * att.num_kv_heads * att.head_dim
    for what, width in (("hidden_size", spec.hidden_size), ("intermediate_size",
                        spec.intermediate_size), ("the q/k/v outputs", qkv)):
        if width % pack:
            raise ValueError(f"weight_quant: {what} {width} is not a whole number of int32s "
                             f"({pack} values each)")
