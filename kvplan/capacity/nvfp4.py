"""Weights of ModelOpt NVFP4 checkpoints (a spec's `nvfp4`): the linear layers of the quantized
groups in 4-bit floating point with two levels of scales, everything else in `weight_dtype`.

The format, per quantized linear layer of K inputs and N outputs, as the checkpoint stores it
and the engines register it (vLLM ModelOptNvFp4LinearMethod / ModelOptNvFp4FusedMoE
`create_weights`, vllm-project/vllm vllm/model_executor/layers/quantization/modelopt.py
@c9a5990; TensorRT-LLM `Linear` with QuantAlgo.NVFP4 and NVFP4FusedMoEMethod.create_weights,
NVIDIA/TensorRT-LLM tensorrt_llm/_torch/modules/linear.py and
fused_moe/quantization.py@a98a906):

    weight          uint8, N x K / 2: two e2m1 values a byte (4 bits a weight)
    weight_scale    float8_e4m3fn, N x K / 16: one block scale per 16 inputs of a row
    weight_scale_2  float32, one per tensor (the global weight scale)
    input_scale     float32, one per tensor (the global activation scale)

So a quantized weight costs 4 + 8 / 16 = 4.5 bits, plus 8 bytes a tensor. The group size is 16
(ModelOpt's NVFP4 config, hf_quant_config.json `group_size`). The fp32 scalars are kept on every
tensor-parallel rank; the packed values and block scales split with their matrix (column- or
row-parallel: the block scales follow the inputs they scale, so a rank holds 1/tp of them
whenever its share of K is a whole number of blocks, which `check_split` requires as vLLM does:
"in features size is not multiple of 16").

Not counted: TensorRT-LLM pads a dense Linear's block scales to 128 rows x 4 columns
(`pad_up(out_features, 128) x pad_up(in_features / 16, 4)`) and keeps fp32 `alpha` and
`inv_input_scale` scalars; vLLM keeps fp32 `alpha` and `input_scale_inv` (bytes a tensor).
Kimi-K2.5-NVFP4 at TP 8 needs no padding (every quantized rank-local width is a multiple of
128 rows and 64 inputs); other shapes may be a few MB short.

Which layers are quantized is the checkpoint's own list (`nvfp4.quantized`, read from its
`exclude_modules` / `ignore`): attention projections, the dense layers' MLP, shared experts,
routed experts, LM head. Embeddings, norms, the MoE router (DeepSeek's MoEGate is not an
nn.Linear) and a vision tower stay in `weight_dtype`.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.errors import InputError
from kvplan.specs.schema import ModelSpec, NVFP4Quant
from kvplan.units import ceil_div

GROUPS = ("attention", "dense_mlp", "shared_experts", "routed_experts", "lm_head")
VALUE_BITS = 4  # e2m1, two a byte
SCALE_BYTES = 1  # one float8_e4m3fn per block
TENSOR_SCALAR_BYTES = 2 * 4  # weight_scale_2 + input_scale, float32 each


@dataclass(frozen=True)
class Group:
    """One quantized group of the whole replica (TP 1): its matrices as (K inputs, N outputs,
    how many), and the input widths one TP rank holds of its row-parallel matrices."""

    matrices: tuple[tuple[int, int, int], ...]
    row_inputs: tuple[int, ...]  # K of the row-parallel matrices (split over TP)

    @property
    def params(self) -> int:
        return sum(k * n * count for k, n, count in self.matrices)

    @property
    def tensors(self) -> int:
        return sum(count for _, _, count in self.matrices)


def _quant(model: ModelSpec) -> NVFP4Quant:
    assert model.nvfp4 is not None
    return model.nvfp4


def _moe_layers(model: ModelSpec) -> int:
    assert model.moe is not None
    return model.num_layers - model.moe.first_dense_layers


def _dense_layers(model: ModelSpec) -> int:
    return model.moe.first_dense_layers if model.moe is not None else model.num_layers


def _attention(model: ModelSpec) -> Group:
    att, hidden, heads = model.attention, model.hidden_size, model.num_attention_heads
    layers = model.num_layers
    mla = att.mla
    if mla is None:  # q, k, v (column-parallel) and o (row-parallel)
        kv = att.num_kv_heads
        q, o_in = heads * att.head_dim, heads * att.value_head_dim
        k, v = kv * att.head_dim, kv * att.value_head_dim
        mats = ((hidden, q, layers), (hidden, k, layers), (hidden, v, layers), (o_in, hidden, layers))
        return Group(mats, (o_in,))
    if mla.qk_nope_head_dim is None or mla.v_head_dim is None:
        raise InputError(f"{model.name}: nvfp4 attention needs mla.qk_nope_head_dim and "
                         "mla.v_head_dim (the projections' widths)")
    q_out = heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim)
    rank = mla.q_lora_rank
    q_mats: tuple[tuple[int, int, int], ...] = (
        ((hidden, rank, layers), (rank, q_out, layers)) if rank else ((hidden, q_out, layers),))
    kv_b = heads * (mla.qk_nope_head_dim + mla.v_head_dim)
    latent_o = heads * mla.v_head_dim
    return Group(q_mats + ((hidden, mla.kv_lora_rank + mla.qk_rope_head_dim, layers),
                           (mla.kv_lora_rank, kv_b, layers), (latent_o, hidden, layers)),
                 (latent_o,))


def _mlp(hidden: int, inter: int, count: int) -> Group:
    """A gated MLP: gate and up (column-parallel), down (row-parallel)."""
    return Group(((hidden, inter, count), (hidden, inter, count), (inter, hidden, count)), (inter,))


def group(model: ModelSpec, name: str) -> Group:
    """The matrices of one group, whole replica."""
    if name == "attention":
        return _attention(model)
    if name == "lm_head":
        return Group(((model.hidden_size, model.vocab_size, 1),), ())
    if name == "dense_mlp":
        assert model.intermediate_size is not None  # the validator requires it
        return _mlp(model.hidden_size, model.intermediate_size, _dense_layers(model))
    assert model.moe is not None and model.moe.moe_intermediate_size is not None
    inter, layers = model.moe.moe_intermediate_size, _moe_layers(model)
    if name == "shared_experts":  # DeepSeek's one MLP of num_shared x moe_intermediate_size
        return _mlp(model.hidden_size, inter * model.moe.num_shared_experts, layers)
    return _mlp(model.hidden_size, inter, layers * model.moe.num_experts)


def _packed(params: int) -> int:
    """Packed values + block scales of `params` weights (every row a whole number of blocks of
    16, the schema's only group size)."""
    return params * VALUE_BITS // 8 + params // 16 * SCALE_BYTES


def check_split(model: ModelSpec, tp: int) -> None:
    """Every quantized matrix's inputs, whole and on one rank, are whole blocks of 16."""
    size = _quant(model).group_size
    for name in _quant(model).quantized:
        g = group(model, name)
        for k, _, _ in g.matrices:
            if k % size:
                raise InputError(f"{model.name}: an nvfp4 {name} matrix has {k} inputs, not a "
                                 f"whole number of {size}-value blocks")
        for k in g.row_inputs:
            if k % tp or (k // tp) % size:
                raise InputError(
                    f"{model.name}: tensor parallel size {tp} leaves {k / tp:g} inputs of an "
                    f"nvfp4 {name} matrix on a rank, not whole {size}-value blocks; vLLM's "
                    "ModelOptNvFp4LinearMethod refuses it (use a smaller --tp)")


@dataclass(frozen=True)
class Layout:
    """Bytes of the whole replica: packed values + block scales, fp32 scalars, the rest."""

    packed: int  # 4-bit values and fp8 block scales of every quantized group
    scalars: int  # weight_scale_2 + input_scale of every quantized tensor
    rest: int  # everything else, weight_dtype
    quantized_params: int


def layout(model: ModelSpec) -> Layout:
    groups = [group(model, name) for name in _quant(model).quantized]
    params = sum(g.params for g in groups)
    rest = (model.params_total - params) * model.weight_dtype.bits // 8
    return Layout(sum(_packed(g.params) for g in groups),
                  sum(g.tensors for g in groups) * TENSOR_SCALAR_BYTES, rest, params)


def weights_bytes(model: ModelSpec, tp: int, pp: int, ep: int | None = None) -> int:
    """Per-GPU bytes: packed values and block scales over tp x pp (the routed experts over
    ep x pp where expert parallelism reaches beyond tp: whole experts), every tensor's fp32
    scalars on each rank that holds part of it, the rest over tp x pp. A TP size that leaves a
    rank part of a block is refused (`check_split`)."""
    quant = _quant(model)
    check_split(model, tp)
    per_gpu = 0
    for name in quant.quantized:
        g = group(model, name)
        scalars = g.tensors * TENSOR_SCALAR_BYTES
        if name == "routed_experts" and ep is not None and ep > tp:
            per_gpu += ceil_div(_packed(g.params), ep * pp) + ceil_div(scalars, ep * pp)
        else:
            per_gpu += ceil_div(_packed(g.params), tp * pp) + ceil_div(scalars, pp)
    return per_gpu + ceil_div(layout(model).rest, tp * pp)


def describe(model: ModelSpec) -> str:
    """How the weights were priced, in words, for `kvplan size`'s assumptions."""
    quant, lay = _quant(model), layout(model)
    return (f"weights in {model.weight_dtype.value} but {', '.join(quant.quantized)} in NVFP4 "
            f"(ModelOpt: 4-bit e2m1 values, one fp8 scale per {quant.group_size}, two fp32 "
            f"scalars a tensor: {lay.packed:,} B + {lay.scalars:,} B for "
            f"{lay.quantized_params:,} weights; the rest {lay.rest:,} B)")
