"""Weights of GPTQ and AWQ checkpoints (a spec's `weight_quant`): the decoder's linear layers
stored as packed integers with group scales and zero points, everything else 16-bit.

Laid out as vLLM's own loaders register them (vllm 0.11.0,
vllm/model_executor/layers/quantization/gptq.py and awq.py, `create_weights`), per linear
layer of K inputs and N outputs on one tensor-parallel rank:

    qweight  int32, K x N x bits / 32 of them (gptq packs along K, awq along N): bits/8 B a weight
    qzeros   int32, (K / group) x (N x bits / 32): one packed zero point per group and output
    scales   params_dtype (half), (K / group) x N: one per group and output
    g_idx    int32, one per input row (gptq only; awq registers none)

Both register qzeros whatever the checkpoint's `sym`/`zero_point` says. vLLM fuses q/k/v into
one column-parallel `qkv_proj` and gate/up into `gate_up_proj` (N split over TP, K whole, so
g_idx is whole on each rank), while `o_proj` and `down_proj` are row-parallel (K split: g_idx
and, without act order, the scales and zeros split with it; GPTQ with desc_act keeps every
group's scales and zeros on each rank). The Marlin kernels vLLM prefers on Ampere and later
(gptq_marlin, awq_marlin) repack the same tensors after loading and empty g_idx (no act order)
and, for symmetric GPTQ, qzeros: a few MB less than counted here; not modelled.
Embeddings, LM head, norms, biases and anything else are the spec's `weight_dtype`.

GGUF (`method: gguf`, Q8_0 only; issue #13 task h27v1miss, log 119): ggml's Q8_0 block is 32
int8 values and one fp16 scale, 34 B (ggml-common.h `block_q8_0`), no zero point, no g_idx, and
vLLM keeps the file's blocks as they are (vllm 0.8.2 model_executor/layers/quantization/gguf.py
`GGUFConfig.get_quant_method`: `GGUFLinearMethod` for linear layers, `GGUFEmbeddingMethod` for
`VocabParallelEmbedding`, so the token embeddings, and an untied LM head, stay in blocks too).
kvplan prices everything outside the linear layers at 34 B per 32 as well: the norms (F32 in the
file, 16-bit once loaded) are under a megabyte of error for a 3B model.

Dense 8-bit checkpoints (`method` compressed-tensors or fbgemm_fp8, task h59fp8), as vLLM 0.29.0
registers them per linear layer on one rank (K inputs, N outputs, S fused shards: 3 for qkv_proj,
2 for gate_up_proj, 1 for o_proj and down_proj):

    weight        fp8 (float8_e4m3fn) or int8, N x K: one byte a weight
    weight_scale  fp32: strategy channel N x 1 (ChannelQuantScaleParameter, split with N on the
                  column-parallel layers, whole on the row-parallel ones); strategy tensor one
                  per shard (PerTensorScaleParameter, len(output_partition_sizes))
    input_scale   static activations only: fp8 one fp32 per shard (create_fp8_input_scale);
                  int8 one fp32 a layer, plus an int8 input_zero_point when asymmetric
    input_scale_ub  fbgemm_fp8 only: one fp32 a layer (FBGEMMFp8LinearMethod.create_weights)

(compressed_tensors/schemes/compressed_tensors_w8a8_fp8.py and _w8a8_int8.py, utils/fp8_utils.py
create_fp8_weight_parameter / create_fp8_scale_parameter / create_fp8_input_scale, fbgemm_fp8.py).
What the kernels do after loading is not charged: per-tensor fp8 scales are requantized to one
(requantize_with_max_scale, a few bytes fewer), CUTLASS widens per-tensor int8 scales of fused
layers to one per output row and adds an int32 azp_adj per output column for asymmetric int8
activations (kernels/linear/scaled_mm/cutlass.py); the importer's notes say so.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.capacity.kv import kv_heads_per_gpu
from kvplan.errors import InputError
from kvplan.specs.schema import ModelSpec, WeightQuant
from kvplan.units import DType, ceil_div

G_IDX_BYTES = 4  # int32
FP32_BYTES = 4  # the dense 8-bit schemes' weight_scale, input_scale and input_scale_ub
DENSE_METHODS = ("compressed-tensors", "fbgemm_fp8")


@dataclass(frozen=True)
class Layout:
    """Bytes of one replica's quantized layers at TP 1, by tensor, and the rest."""

    qweight: int
    scales: int
    qzeros: int
    g_idx: int
    rest: int
    inputs: int = 0  # dense 8-bit: static input scales / zero points, fbgemm's input_scale_ub

    @property
    def quantized(self) -> int:
        return self.qweight + self.scales + self.qzeros + self.g_idx + self.inputs


def _quant(model: ModelSpec) -> WeightQuant:
    assert model.weight_quant is not None
    return model.weight_quant


def attention_widths(model: ModelSpec, tp: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """(K, N) on one rank of qkv_proj (column-parallel) and o_proj (row-parallel), as vLLM
    shards them."""
    att, hidden = model.attention, model.hidden_size
    heads = ceil_div(model.num_attention_heads, tp)
    kv = kv_heads_per_gpu(att.num_kv_heads, tp)
    qkv = heads * att.head_dim + kv * att.head_dim + kv * att.value_head_dim
    return (hidden, qkv), (ceil_div(model.num_attention_heads * att.value_head_dim, tp), hidden)


def widths(model: ModelSpec, tp: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(K, N) on one rank of the column-parallel layers (qkv_proj, gate_up_proj) and the
    row-parallel ones (o_proj, down_proj), as vLLM shards them."""
    hidden, inter = model.hidden_size, model.intermediate_size
    assert inter is not None  # the validator requires it
    qkv, o_proj = attention_widths(model, tp)
    column = [qkv, (hidden, ceil_div(2 * inter, tp))]
    row = [o_proj, (ceil_div(inter, tp), hidden)]
    return column, row


def quantized_params(model: ModelSpec) -> int:
    """Weights of every quantized linear layer (K x N summed, all layers, TP 1)."""
    column, row = widths(model, 1)
    return model.num_layers * sum(k * n for k, n in column + row)


def _dense_rank(model: ModelSpec, tp: int) -> tuple[int, int, int]:
    """weight, weight_scale and input-scale bytes of all layers on one TP rank (pp 1) of a dense
    8-bit checkpoint (the module docstring's table)."""
    quant = _quant(model)
    column, row = widths(model, tp)
    weight = scales = inputs = 0
    for (k, n), shards in zip(column + row, (3, 2, 1, 1), strict=True):
        weight += k * n * quant.weight_dtype.bits // 8
        scales += (n if quant.strategy == "channel" else shards) * FP32_BYTES
        if quant.method == "fbgemm_fp8":
            inputs += FP32_BYTES  # input_scale_ub
        elif quant.input_scale == "static":
            inputs += (shards if quant.weight_dtype is DType.fp8 else 1) * FP32_BYTES
        elif quant.input_scale == "static_zero_point":
            inputs += FP32_BYTES + 1  # input_scale and an int8 input_zero_point
    layers = model.num_layers
    return weight * layers, scales * layers, inputs * layers


def _rank_layout(model: ModelSpec, tp: int) -> tuple[int, int, int, int]:
    """qweight, scales, qzeros, g_idx bytes of all layers on one TP rank (pp 1)."""
    quant = _quant(model)
    if quant.method in DENSE_METHODS:
        weight, scales, inputs = _dense_rank(model, tp)
        return weight, scales + inputs, 0, 0
    bits, group, scale_bits = quant.weight_dtype.bits, quant.group_size, quant.scale_dtype.bits
    assert group is not None  # required with strategy group (the validator)
    column, row = widths(model, tp)
    full_rows = model.num_attention_heads * model.attention.value_head_dim, model.intermediate_size
    qweight = scales = zeros = g_idx = 0
    for k, n in column:
        qweight += k * n * bits // 8
        scales += ceil_div(k, group) * n * scale_bits // 8
        zeros += ceil_div(k, group) * ceil_div(n * bits, 32) * 4
        g_idx += k * G_IDX_BYTES
    for (k, n), whole in zip(row, full_rows, strict=True):
        assert whole is not None
        groups = ceil_div(whole if quant.act_order else k, group)
        qweight += k * n * bits // 8
        scales += groups * n * scale_bits // 8
        zeros += groups * ceil_div(n * bits, 32) * 4
        g_idx += k * G_IDX_BYTES
    if quant.method != "gptq":
        g_idx = 0
    if quant.method == "gguf":  # Q8_0: one scale a block, no zero point
        zeros = 0
    layers = model.num_layers
    return qweight * layers, scales * layers, zeros * layers, g_idx * layers


def layout(model: ModelSpec) -> Layout:
    """The whole replica's bytes at TP 1 (what the checkpoint's quantized tensors hold, as vLLM
    registers them: q/k/v and gate/up fused)."""
    qweight, scales, zeros, g_idx = _rank_layout(model, 1)
    rest_params = model.params_total - quantized_params(model)
    quant = _quant(model)
    if quant.method in DENSE_METHODS:
        weight, scales, inputs = _dense_rank(model, 1)
        return Layout(weight, scales, 0, 0, rest_params * model.weight_dtype.bits // 8, inputs)
    assert quant.group_size is not None
    if quant.method == "gguf":  # the embeddings are in Q8_0 blocks too (see above)
        block_bits = quant.group_size * quant.weight_dtype.bits + quant.scale_dtype.bits
        return Layout(qweight, scales, zeros, g_idx,
                      ceil_div(rest_params, quant.group_size) * block_bits // 8)
    rest = rest_params * model.weight_dtype.bits // 8
    return Layout(qweight, scales, zeros, g_idx, rest)


def check_split(model: ModelSpec, tp: int) -> None:
    """vLLM's create_weights refuses a TP size that leaves a rank part of a group or of an
    int32 ("The input size is not aligned with the quantized weight shape. This can be caused
    by too large tensor parallel size."): so does kvplan."""
    quant = _quant(model)
    pack = 32 // quant.weight_dtype.bits
    inter = model.intermediate_size
    assert inter is not None
    heads = model.num_attention_heads
    group = quant.group_size or 1  # dense 8-bit: a byte a weight, nothing packed or grouped
    if quant.group_size is None:
        pack = 1
    parts = {
        "num_attention_heads": (heads, 1),
        "intermediate_size (gate_up_proj outputs)": (2 * inter, pack),
        "intermediate_size (down_proj inputs)": (inter, group),
        "heads x head_dim (o_proj inputs)": (heads * model.attention.value_head_dim, group),
    }
    for what, (width, unit) in parts.items():
        if width % tp or (width // tp) % unit:
            raise InputError(
                f"{model.name}: tensor parallel size {tp} splits {what} {width} into parts of "
                f"{width / tp:g}, not whole multiples of {unit}; vLLM's {quant.method} "
                "create_weights refuses such a split (use a smaller --tp)")


def weights_bytes(model: ModelSpec, tp: int, pp: int) -> int:
    """Per-GPU bytes: one rank's quantized layers over pp stages, the rest over tp x pp."""
    qweight, scales, zeros, g_idx = _rank_layout(model, tp)
    rest = layout(model).rest
    return ceil_div(qweight + scales + zeros + g_idx, pp) + ceil_div(rest, tp * pp)


def describe(model: ModelSpec) -> str:
    """How the weights were priced, in words, for `kvplan size`'s assumptions."""
    quant, lay = _quant(model), layout(model)
    g_idx = f", g_idx {lay.g_idx:,} B" if quant.method == "gptq" else ""
    order = ", act order" if quant.act_order else ""
    if quant.method in DENSE_METHODS:
        scales = ("one fp32 scale per output row" if quant.strategy == "channel"
                  else "one fp32 scale per fused shard")
        what = "input_scale_ub" if quant.method == "fbgemm_fp8" else "static input scales"
        inputs = f", {what} {lay.inputs:,} B" if lay.inputs else ""
        return (f"weights in {model.weight_dtype.value} but the decoder's linear layers in "
                f"{quant.method} {quant.weight_dtype.value} (a byte a weight {lay.qweight:,} B, "
                f"{scales} {lay.scales:,} B{inputs}; the rest {lay.rest:,} B)")
    if quant.method == "gguf":
        return (f"weights as a GGUF file's Q8_0 blocks (32 int8 values and one fp16 scale: "
                f"linear layers {lay.qweight + lay.scales:,} B, embeddings and the rest "
                f"{lay.rest:,} B)")
    return (f"weights in {model.weight_dtype.value} but the decoder's linear layers in "
            f"{quant.method} {quant.weight_dtype.value} (groups of {quant.group_size}{order}: "
            f"qweight {lay.qweight:,} B, {quant.scale_dtype.value} scales {lay.scales:,} B, "
            f"packed zeros {lay.qzeros:,} B{g_idx}; the rest {lay.rest:,} B)")
