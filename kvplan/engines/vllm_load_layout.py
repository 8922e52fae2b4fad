"""One tensor-parallel rank's weight tensors as vLLM allocates them while loading, laid out from
a spec's shapes (task h51blocks; what the sizes are for: kvplan.engines.vllm_load_blocks).

Laid out, each tensor's bytes on one TP rank (pp 1), read in the vLLM 0.30.0 wheel:
- 16-bit dense decoders: `UnquantizedLinearMethod.create_weights` (layers/linear.py:176-200)
  allocates one (sum of output partitions) x (input partition) matrix per linear layer: the
  fused column-parallel qkv_proj (heads / tp + 2 x kv heads / tp, kv heads one each where tp
  exceeds them) x head_dim by hidden, and gate_up_proj 2 x intermediate / tp by hidden; the
  row-parallel o_proj hidden by heads x v_head_dim / tp and down_proj hidden by intermediate /
  tp (kvplan.capacity.linear_quant.widths). The embeddings and an untied LM head are
  `VocabParallelEmbedding` / `ParallelLMHead`: the vocabulary padded to 64 rows
  (DEFAULT_VOCAB_PADDING_SIZE, pad_vocab_size, layers/vocab_parallel_embedding.py:35, :94,
  :284), divided over tp (`divide`, :326), by hidden (UnquantizedEmbeddingMethod.create_weights,
  :43-65). Norms and biases (one row each) are far below 20 MiB and left out.
- FP8 (`Fp8LinearMethod`, layers/quantization/fp8.py:243-480): the same matrices at 1 B a
  weight (`create_fp8_weight_parameter`, utils/fp8_utils.py:1289), with a float32 scale per
  logical shard (per tensor) or per 128 x 128 block (`weight_scale_inv`, block-quantized
  checkpoints); process_weights_after_loading requantizes per-tensor shards in place and keeps
  `weight.t()`, a view (:375-450): the same storage; the Marlin repack on GPUs without FP8
  makes a tensor of the same size. A scale is at most (N / 128) x (K / 128) x 4 B, kilobytes,
  so which kind a checkpoint has does not change what rounds: the block kind is listed. The
  embeddings, LM head and MoE router stay 16-bit (Fp8Config quantizes LinearBase and FusedMoE
  only), as kvplan.engines.common prices them.
- MoE layers (`FusedMoE`: layers/fused_moe/unquantized_fused_moe_method.py:62-109, and
  `Fp8MoEMethod` at 1 B with block scales, fp8.py:598-664): one w13 tensor, experts x 2 x
  moe_intermediate / tp x hidden, and one w2, experts x hidden x moe_intermediate / tp, per
  layer; the router (experts x hidden, 16-bit, whole: kvplan.engines.common ROUTER_BYTES); a
  spec's `first_dense_layers` carry the dense MLP. Laid out without shared experts (their width
  is not a spec field). With expert parallelism each rank holds experts / ep whole experts (the
  MoE layer's tp is 1: FusedMoE's local_num_experts and intermediate_size_per_partition).
- GPTQ/AWQ (task h50awq7b): qweight, scales, qzeros and GPTQ's g_idx of each linear layer
  (kvplan.capacity.linear_quant), the 16-bit embeddings and LM head.

The spec's params_total must come within 1% of the layout's parameters with one vocab matrix
(tied) or two (untied); otherwise the decoder is not the gated one laid out here (a plain MLP,
extra projections) and nothing is laid out. Everything else (MLA, vision towers, hybrid
linear-attention/Mamba layers, NVFP4, MXFP4, GGUF, quantized experts, int8/int4 priced from the
parameter count) is not laid out: `not_laid_out` says why.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.capacity import expert_quant
from kvplan.capacity.linear_quant import (
    G_IDX_BYTES,
    attention_widths,
    quantized_params,
    widths,
)
from kvplan.specs.schema import LayerKind, ModelSpec
from kvplan.units import DType, ceil_div

VOCAB_PAD = 64  # vLLM's DEFAULT_VOCAB_PADDING_SIZE
FP8_BLOCK = 128  # weight_block_size of the block-quantized FP8 checkpoints
SCALE_BYTES = 4  # float32 weight_scale_inv
VOCAB_BYTES = 2  # embeddings and LM head stay 16-bit (kvplan.engines.common prices them so)
PARAMS_TOLERANCE = 0.01  # the layout's parameters against the spec's params_total
QUANT_METHODS = frozenset({"awq", "gptq"})


@dataclass(frozen=True)
class RankLayout:
    """Bytes of every weight tensor one TP rank allocates: per decoder layer (groups of
    identical layers: (count, tensor sizes)) and the vocab matrices (embeddings, untied head)."""

    kind: str
    layers: tuple[tuple[int, tuple[int, ...]], ...]
    vocab: tuple[int, ...]


def not_laid_out(model: ModelSpec, dtype: DType) -> str | None:
    """Why kvplan cannot lay this checkpoint out tensor by tensor; None where it can."""
    moe, att = model.moe, model.attention
    quant = model.weight_quant
    reasons = [
        (att.mla is not None, "MLA attention"),
        (att.linear is not None or LayerKind.linear in model.layer_kinds(),
         "hybrid linear-attention/Mamba layers"),
        (model.params_encoder is not None or model.vision_hidden_size is not None,
         "a vision tower"),
        (model.nvfp4 is not None and expert_quant.applies(model, dtype), "ModelOpt NVFP4"),
        (moe is not None and moe.expert_quant is not None
         and expert_quant.applies(model, dtype), "quantized routed experts"),
        (quant is not None and expert_quant.applies(model, dtype)
         and quant.method not in QUANT_METHODS, f"{quant.method if quant else ''} blocks"),
        (quant is not None and moe is not None and expert_quant.applies(model, dtype),
         "GPTQ/AWQ experts"),
        (model.intermediate_size is None and (moe is None or moe.first_dense_layers > 0),
         "no intermediate size in the spec"),
        (moe is not None and (moe.num_shared_experts > 0 or moe.moe_intermediate_size is None),
         "shared experts (their width is not a spec field)"),
    ]
    for hit, why in reasons:
        if hit:
            return why
    if quant is not None and expert_quant.applies(model, dtype):
        return None
    if model.model_type == "gpt_oss" and dtype is DType.int4:
        return "MXFP4 experts"
    if dtype.bits != 16 and dtype is not DType.fp8:
        return f"{dtype.value} weights priced from the parameter count"
    if _vocab_count(model) is None:
        return ("params_total is not within 1% of a gated decoder's layout with one or two "
                "vocab matrices")
    return None


def rank_layout(model: ModelSpec, dtype: DType, tp: int, ep: int | None = None
                ) -> RankLayout | None:
    """One TP rank's tensors, or None where `not_laid_out` gives a reason."""
    if not_laid_out(model, dtype) is not None:
        return None
    if model.weight_quant is not None and expert_quant.applies(model, dtype):
        return RankLayout(f"{model.weight_quant.method.upper()} (h50awq7b)",
                          ((model.num_layers, tuple(quant_layer(model, tp))),),
                          tuple(vocab_tensors(model, tp, quant_vocab_count(model))))
    count = _vocab_count(model)
    assert count is not None
    fp8 = dtype is DType.fp8
    attention = _linear(model, tp, fp8, mlp=False)
    mlp = _linear(model, tp, fp8, mlp=True) if model.intermediate_size is not None else []
    label = "FP8" if fp8 else "16-bit"
    if model.moe is None:
        return RankLayout(f"{label} dense", ((model.num_layers, tuple(attention + mlp)),),
                          tuple(vocab_tensors(model, tp, count)))
    first = model.moe.first_dense_layers
    groups = [(first, tuple(attention + mlp))] if first else []
    groups.append((model.num_layers - first, tuple(attention + _experts(model, tp, fp8, ep))))
    return RankLayout(f"{label} MoE", tuple(groups), tuple(vocab_tensors(model, tp, count)))


def _pairs(model: ModelSpec, tp: int, mlp: bool) -> list[tuple[int, int]]:
    """(K, N) on one rank of qkv_proj and o_proj (mlp False) or gate_up_proj and down_proj, as
    kvplan.capacity.linear_quant shards them (K inputs, N outputs)."""
    if not mlp:
        return list(attention_widths(model, tp))
    column, row = widths(model, tp)
    return [column[1], row[1]]


def _linear(model: ModelSpec, tp: int, fp8: bool, mlp: bool) -> list[int]:
    """qkv_proj and o_proj (mlp False) or gate_up_proj and down_proj on one rank: 2 B a weight,
    or 1 B and a float32 scale per 128 x 128 block."""
    pairs = _pairs(model, tp, mlp)
    out = []
    for k, n in pairs:
        if fp8:
            out += [k * n, ceil_div(n, FP8_BLOCK) * ceil_div(k, FP8_BLOCK) * SCALE_BYTES]
        else:
            out.append(k * n * 2)
    return out


def _experts(model: ModelSpec, tp: int, fp8: bool, ep: int | None = None) -> list[int]:
    """FusedMoE's w13 and w2 on one rank (with their block scales in FP8): every expert split
    over tp, or experts / ep whole experts with expert parallelism; and the 16-bit router, whole
    on every rank."""
    moe = model.moe
    assert moe is not None and moe.moe_intermediate_size is not None
    h = model.hidden_size
    if ep is not None and ep > 1:
        e, i = ceil_div(moe.num_experts, ep), moe.moe_intermediate_size
    else:
        e, i = moe.num_experts, ceil_div(moe.moe_intermediate_size, tp)
    router = moe.num_experts * h * 2
    if not fp8:
        return [e * 2 * i * h * 2, e * h * i * 2, router]
    blocks = ceil_div(h, FP8_BLOCK) * ceil_div(i, FP8_BLOCK) * SCALE_BYTES
    return [e * 2 * i * h, e * 2 * blocks, e * h * i, e * blocks, router]


def _layer_params(model: ModelSpec) -> int:
    """Weights of every decoder layer at TP 1 (norms and biases left out)."""
    attention = sum(k * n for k, n in _pairs(model, 1, mlp=False))
    moe = model.moe
    dense = attention + (sum(k * n for k, n in _pairs(model, 1, mlp=True))
                         if model.intermediate_size is not None else 0)
    if moe is None or moe.moe_intermediate_size is None:
        return model.num_layers * dense
    experts = moe.num_experts * model.hidden_size * (3 * moe.moe_intermediate_size + 1)
    first = moe.first_dense_layers
    return first * dense + (model.num_layers - first) * (attention + experts)


def _vocab_count(model: ModelSpec) -> int | None:
    """2 where params_total holds an untied LM head beside the embeddings, 1 where tied, None
    where neither comes within PARAMS_TOLERANCE of params_total."""
    layers = _layer_params(model)
    matrix = model.vocab_size * model.hidden_size
    for count in (2, 1):
        if abs(model.params_total - layers - count * matrix) <= PARAMS_TOLERANCE * model.params_total:
            return count
    return None


def quant_layer(model: ModelSpec, tp: int) -> list[int]:
    """Bytes of each GPTQ/AWQ tensor of one decoder layer on one TP rank (task h50awq7b)."""
    quant = model.weight_quant
    assert quant is not None
    bits, group, scale_bits = quant.weight_dtype.bits, quant.group_size, quant.scale_dtype.bits
    assert group is not None  # gptq/awq only (not_laid_out names the other methods)
    column, row = widths(model, tp)
    sizes = []
    for k, n in column + row:
        groups = ceil_div(k, group)
        sizes += [k * n * bits // 8, groups * n * scale_bits // 8,
                  groups * ceil_div(n * bits, 32) * 4]
        if quant.method == "gptq":
            sizes.append(k * G_IDX_BYTES)
    return sizes


def quant_vocab_count(model: ModelSpec) -> int:
    """A GPTQ/AWQ spec's vocab matrices: 2 where its 16-bit rest holds two (task h50awq7b)."""
    rest = model.params_total - quantized_params(model)
    return 2 if rest >= 2 * model.vocab_size * model.hidden_size else 1


def vocab_tensors(model: ModelSpec, tp: int, count: int) -> list[int]:
    """The embeddings and, untied (count 2), the LM head on one rank: the vocabulary padded to
    64 rows, divided over tp, by hidden, 16-bit."""
    rows = ceil_div(ceil_div(model.vocab_size, VOCAB_PAD) * VOCAB_PAD, tp)
    return [rows * model.hidden_size * VOCAB_BYTES] * count


def tensor_count(model: ModelSpec) -> int:
    """About how many weight tensors one rank holds, for the bound where nothing is laid out:
    four a decoder layer (attention in and out, MLP or experts in and out) and two vocab
    matrices (a vision tower's or MLA's extra projections not counted)."""
    return 4 * model.num_layers + 2
