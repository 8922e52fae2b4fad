"""Weights of checkpoints whose linear layers are quantized apart from the rest: the routed
experts (a spec's `moe.expert_quant`, here) or every decoder linear layer in GPTQ/AWQ (a spec's
`weight_quant`, kvplan.capacity.linear_quant); `applies` and `weights_bytes` price either.

Quantized routed experts (`moe.expert_quant`; Kimi-K2.5: int4 experts in groups of 32 with
bf16 scales, bf16 elsewhere).

A quantized expert matrix is stored as packed values (int4: eight to an int32, i.e. 4 bits a
weight) plus one scale per `group_size` weights along its input dimension; the scheme is
symmetric, so no zero points (compressed-tensors `pack-quantized`, `symmetric: true`; vLLM's
and SGLang's compressed-tensors WNA16 MoE methods register w13/w2 `weight_packed` and
`weight_scale`, a `weight_shape` of 2 values per expert, about 0.2 MB a GPU for Kimi-K2.5 and
not counted, and `g_idx` tensors that stay empty without act-order; kernel repacking at load
time is transient and not counted either).
Everything else (attention, shared experts, dense MLPs, router, embeddings, LM head, a vision
tower) is `weight_dtype`. Tensor parallelism splits every expert matrix over the TP ranks (the
group size divides both widths, so each rank holds whole groups); expert parallelism beyond TP
gives each GPU whole experts instead.
"""

from __future__ import annotations

from kvplan.capacity import linear_quant, nvfp4
from kvplan.capacity.parallel import expert_params
from kvplan.specs.schema import ModelSpec
from kvplan.units import DType, ceil_div


def applies(model: ModelSpec, dtype: DType) -> bool:
    """The spec states quantized experts or linear layers and the weights are priced as
    published (a --weight-dtype other than the spec's prices the whole model in that dtype
    instead)."""
    experts = model.moe is not None and model.moe.expert_quant is not None
    stated = experts or model.weight_quant is not None or model.nvfp4 is not None
    return stated and dtype is model.weight_dtype


def expert_bytes(model: ModelSpec) -> int:
    """All routed experts' bytes: packed values + one scale per group (exact: the group divides
    every row)."""
    assert model.moe is not None and model.moe.expert_quant is not None
    quant = model.moe.expert_quant
    experts = expert_params(model)
    assert experts is not None  # the validator requires moe_intermediate_size
    group_bits = quant.group_size * quant.weight_dtype.bits + quant.scale_dtype.bits
    return experts // quant.group_size * group_bits // 8


def rest_bytes(model: ModelSpec) -> int:
    """Everything but the routed experts, in weight_dtype."""
    experts = expert_params(model)
    assert experts is not None
    return (model.params_total - experts) * model.weight_dtype.bits // 8


def weights_bytes(model: ModelSpec, tp: int, pp: int, ep: int | None = None) -> int:
    """Per-GPU bytes: the experts over tp x pp GPUs (or whole experts over ep x pp where expert
    parallelism reaches beyond tp), the rest over tp x pp; a GPTQ/AWQ spec as
    kvplan.capacity.linear_quant lays it out, a ModelOpt NVFP4 spec as kvplan.capacity.nvfp4."""
    if model.weight_quant is not None:
        return linear_quant.weights_bytes(model, tp, pp)
    if model.nvfp4 is not None:
        return nvfp4.weights_bytes(model, tp, pp, ep)
    shards = (ep if ep is not None and ep > tp else tp) * pp
    return ceil_div(expert_bytes(model), shards) + ceil_div(rest_bytes(model), tp * pp)
