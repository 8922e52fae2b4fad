"""Block-quantized fp8 checkpoints at a tensor-parallel size that splits a block (task
h91fp8block; outcome 93, Qwen3-235B-A22B-FP8 at TP 8 under SGLang).

A block-fp8 checkpoint (config.json `quantization_config.weight_block_size` [block_n, block_k],
the spec's `weight_block_size`) keeps one scale per block_n output rows x block_k inputs. Each
engine refuses, while it builds the layers (before any memory is planned), a shard that would
cut a block. The checks, read in the released wheels:

Linear layers (`Fp8LinearMethod.create_weights`): a row-parallel layer (o_proj, down_proj) split
over TP > 1 needs its input per rank to be a multiple of block_k: "Weight
input_size_per_partition = {n} is not divisible by weight quantization block_k = {k}."; a
column-parallel layer split over TP > 1 (q/kv_b projections of MLA), or a merged one at any TP
(qkv_proj, gate_up_proj), needs each output partition per rank to be a multiple of block_n:
"Weight output_partition_size = {n} is not divisible by weight quantization block_n = {n}.".
- SGLang: the same from 0.4.1 (the first release that reads weight_block_size; 0.4.0.post2 does
  not) to 0.5.23, every release read (srt/layers/quantization/fp8.py: Fp8LinearMethod
  .create_weights :213-244 in 0.4.6.post1, validate_block_quant_shapes :570-609 in 0.5.23).
- vLLM 0.6.6 (the first release that reads weight_block_size; 0.6.5 does not) to 0.9.2: as
  SGLang (model_executor/layers/quantization/fp8.py:170-187 in 0.6.6). From 0.10.0 a merged
  layer that is not split by TP (TP 1) may leave its last partition unaligned (fp8.py:256-272
  in 0.10.0; utils/fp8_utils.py validate_fp8_block_shape :1425-1473 in 0.19.1). From 0.14.0
  a merged column-parallel layer with any unaligned partition skips the check altogether
  (layers/linear.py ColumnParallelLinear._maybe_allow_fp8_block_shape_mismatch, :492/:524 in
  0.14.0, :470/:502 in 0.19.1; 0.13.0 does not have it), so a dense MLP is refused by its
  down_proj (block_k) instead of its gate_up_proj (block_n).

Fused MoE experts (`Fp8MoEMethod.create_weights`): each expert's intermediate per rank must be a
multiple of block_n ("The output_size of gate's and up's weight = {n} is not divisible by
weight quantization block_n = {n}.") and, at TP > 1, of block_k ("The input_size of down's
weight = ..."): SGLang 0.4.6.post1 fp8.py:491-511, 0.5.23 :1579-1601; vLLM 0.6.6 fp8.py:397,
0.19.1 :629-649. The experts are split over TP / EP ranks: with expert parallelism as wide as
TP (vLLM --enable-expert-parallel, SGLang --enable-ep-moe or --ep-size = --tp) each expert stays
whole.

The shards: attention q heads x head_dim / TP (MLA: heads x (qk_nope + qk_rope) for q_b_proj,
heads x (qk_nope + v_head) for kv_b_proj, heads x v_head into o_proj), KV heads x head_dim / TP
(one head where TP exceeds them), the dense MLP's intermediate_size / TP, DeepSeek's shared
experts moe_intermediate_size x n_shared / TP (vLLM deepseek_v2.py DeepseekV2MLP, TP-sharded),
the routed experts' moe_intermediate_size / (TP / EP). Checked in the order the engines build a
layer: attention, then the MLP (dense layers first where a model has them), routed experts,
shared experts; the first that fails is the engine's message, every failing shard is listed.

SGLang's data-parallel attention, --moe-dense-tp-size and DeepEP build attention, the dense MLP
and the shared experts at other sizes than tp (kvplan.engines.sglang_dp, task h100sgldp): the
shards are taken from `Split`, and which of them the linear check sees depends on the release
(SGLANG_LAYER_GROUP_FROM).

TensorRT-LLM's PyTorch backend (task h100vllmhyb; kvplan.engines.fp8_blocks_trtllm) has no such
check: it pads the scale tensor and fails while it loads the weights instead, on the same
shards, when the layer is split (TP > 1; the experts at MoE TP > 1).

Not read: SGLang's ROCm aiter MoE path (0.5.23 skips the MoE check where its padding equals the
block), and vLLM's sequence-parallel MoE (replicated shared experts).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kvplan.engines.release import read_numbers

if TYPE_CHECKING:
    from kvplan.specs.schema import ModelSpec

VLLM_FIRST = (0, 6, 6)  # Fp8Config reads weight_block_size (0.6.5 does not)
VLLM_LAST_SPARED = (0, 10, 0)  # a merged layer at TP 1 may leave its last partition unaligned
VLLM_MERGED_SKIPPED = (0, 14, 0)  # _maybe_allow_fp8_block_shape_mismatch (0.13.0 lacks it)
SGLANG_FIRST = (0, 4, 1)  # Fp8Config reads weight_block_size (0.4.0.post2 does not)
# the linear check reads the layer's own group size (`tp_group = layer.tp_group`,
# quantization/fp8.py:590-591 in 0.5.23); 0.5.21 and before the whole TP size
# (`get_tensor_model_parallel_world_size()`, fp8.py:254 in 0.5.5)
SGLANG_LAYER_GROUP_FROM = (0, 5, 22)

_VLLM_AT = ("vllm model_executor/layers/quantization/fp8.py Fp8LinearMethod / Fp8MoEMethod "
            "create_weights (:629-649 and utils/fp8_utils.py:1425-1473 in 0.19.1)")
_SGLANG_AT = ("sglang srt/layers/quantization/fp8.py Fp8LinearMethod / Fp8MoEMethod "
              "create_weights (:213-244 and :491-511 in 0.4.6.post1)")


@dataclass(frozen=True)
class Shard:
    """One layer's shard a rank builds: `size` and the block it must be a multiple of."""

    layer: str
    size: int
    of: str  # block_n or block_k
    block: int
    message: str  # the engine's own words

    @property
    def fits(self) -> bool:
        return self.size % self.block == 0

    def arithmetic(self) -> str:
        return f"{self.layer} {self.size:,} % {self.of} {self.block} = {self.size % self.block}"


@dataclass(frozen=True)
class BlockRefusal:
    """Why the engine does not start: `message` its first error, `shards` every failing one."""

    message: str
    shards: tuple[Shard, ...]
    said: str  # "vLLM 0.19.1", "SGLang"
    at: str

    def reason(self, model: str, tp: int, block: list[int]) -> str:
        more = "; ".join(dict.fromkeys(s.arithmetic() for s in self.shards))
        return (f"{self.said} would not start: \"{self.message}\" ({self.at}): {model} is "
                f"block-quantized fp8 ({block[0]} x {block[1]} blocks, config.json "
                f"quantization_config.weight_block_size), and tensor parallel size {tp} splits "
                f"a block: {more}; choose a tensor parallel size whose shards are whole blocks, "
                "or expert parallelism as wide as it where only the experts split")


def _out(layer: str, size: int, bn: int) -> Shard:
    return Shard(layer, size, "block_n", bn, f"Weight output_partition_size = {size} is not "
                 f"divisible by weight quantization block_n = {bn}.")


def _in(layer: str, size: int, bk: int) -> Shard:
    return Shard(layer, size, "block_k", bk, f"Weight input_size_per_partition = {size} is not "
                 f"divisible by weight quantization block_k = {bk}.")


def _merged(layer: str, parts: list[int], split: bool, bn: int, era: str) -> list[Shard]:
    """A merged column layer's checked partitions, by the release's rule (module docstring)."""
    shards = [_out(layer, p, bn) for p in parts]
    if era == "skip" and any(not s.fits for s in shards):
        return []  # vLLM 0.14.0+: the mismatch is allowed, the check skipped
    if era in ("last", "skip") and not split:
        return shards[:-1]
    return shards


def _mlp(layer: str, width: int, tp: int, bn: int, bk: int, era: str,
         checked: bool | None = None) -> list[Shard]:
    """A TP-sharded gated MLP: gate_up_proj (merged column), down_proj (row). `checked`: whether
    the engine's check sees the split (Split.checked; default tp > 1)."""
    seen = tp > 1 if checked is None else checked
    per = width // tp
    out = _merged(f"{layer} gate_up_proj ({width:,} / tp {tp})", [per, per], seen, bn, era)
    if seen:
        out.append(_in(f"{layer} down_proj ({width:,} / tp {tp})", per, bk))
    return out


def _attention(model: ModelSpec, tp: int, bn: int, bk: int, era: str,
               checked: bool | None = None) -> list[Shard]:
    heads = model.num_attention_heads // tp
    att = model.attention
    seen = tp > 1 if checked is None else checked
    out: list[Shard] = []
    if att.mla is not None:
        mla = att.mla
        nope = mla.qk_nope_head_dim or 0
        v = mla.v_head_dim or nope
        if seen:
            q = "q_b_proj" if mla.q_lora_rank else "q_proj"
            out.append(_out(f"{q} ({heads} heads x {nope + mla.qk_rope_head_dim})",
                            heads * (nope + mla.qk_rope_head_dim), bn))
            out.append(_out(f"kv_b_proj ({heads} heads x {nope + v})", heads * (nope + v), bn))
            out.append(_in(f"o_proj ({heads} heads x {v})", heads * v, bk))
        return out
    d = att.head_dim
    kv = max(1, att.num_kv_heads // tp)
    split = seen and att.num_kv_heads >= tp
    out += _merged(f"qkv_proj ({heads} q heads, {kv} kv heads x {d})",
                   [heads * d, kv * d, kv * d], split, bn, era)
    if seen:
        out.append(_in(f"o_proj ({heads} heads x {d})", heads * att.value_head_dim, bk))
    return out


def _experts(model: ModelSpec, tp: int, ep: int | None, bn: int, bk: int,
             era: str = "all") -> list[Shard]:
    moe = model.moe
    if moe is None or moe.moe_intermediate_size is None:
        return []
    moe_tp = max(1, tp // ep) if ep else tp
    if era == "split" and moe_tp == 1:
        return []  # TensorRT-LLM: an expert not split keeps its whole scale rows
    per = moe.moe_intermediate_size // moe_tp
    how = f"{moe.moe_intermediate_size:,} / {moe_tp}" + (f" (tp {tp} / ep {ep})" if ep else "")
    out = [Shard(f"each expert's gate/up ({how})", per, "block_n", bn,
                 f"The output_size of gate's and up's weight = {per} is not divisible by weight "
                 f"quantization block_n = {bn}.")]
    if tp > 1:
        out.append(Shard(f"each expert's down ({how})", per, "block_k", bk,
                         f"The input_size of down's weight = {per} is not divisible by weight "
                         f"quantization block_k = {bk}."))
    return out


@dataclass(frozen=True)
class Split:
    """SGLang's shards other than tp (kvplan.engines.sglang_dp.Layout): attention over attn_tp,
    the dense MLP over dense_tp, the shared experts over shared_tp. `by_layer`: the check reads
    the layer's own group size (0.5.22 on, SGLANG_LAYER_GROUP_FROM), else the whole TP size,
    so a layer split by another size than tp is checked only as a merged layer."""

    attn_tp: int
    dense_tp: int
    shared_tp: int
    by_layer: bool

    def checked(self, split: int, tp: int) -> bool:
        return split > 1 if self.by_layer else tp > 1 and split == tp


def shards(model: ModelSpec, tp: int, ep: int | None, era: str,
           split: Split | None = None) -> list[Shard]:
    """Every block-checked shard a rank builds, in the engines' order (module docstring)."""
    block = model.weight_block_size
    assert block is not None
    bn, bk = block
    sp = split or Split(tp, tp, tp, False)
    out = _attention(model, sp.attn_tp, bn, bk, era, sp.checked(sp.attn_tp, tp))
    moe = model.moe
    dense = model.intermediate_size if moe is None or moe.first_dense_layers else None
    if dense:
        out += _mlp("dense MLP", dense, sp.dense_tp, bn, bk, era, sp.checked(sp.dense_tp, tp))
    out += _experts(model, tp, ep, bn, bk, era)
    if moe is not None and moe.num_shared_experts and moe.moe_intermediate_size:
        out += _mlp("shared experts", moe.moe_intermediate_size * moe.num_shared_experts,
                    sp.shared_tp, bn, bk, era, sp.checked(sp.shared_tp, tp))
    return out


def block_fp8_refusal(engine: str, version: str | None, model: ModelSpec, tp: int,
                      ep: int | None = None, split: Split | None = None) -> BlockRefusal | None:
    """Why `engine` at `version` (None: its newest release kvplan reads) refuses `model` at
    tensor parallel size `tp` with expert parallel size `ep` (SGLang: with the shards `split`
    of data-parallel attention, --moe-dense-tp-size and DeepEP); None where it builds every
    shard, the model is not block-fp8, or the engine's rule was not read (TensorRT-LLM,
    transformers, releases before block fp8 was read)."""
    attn = split.attn_tp if split is not None else tp
    if model.weight_block_size is None or attn < 1 or model.num_attention_heads % attn:
        return None  # a TP that does not divide the heads is refused by the heads rule first
    ver = read_numbers(version) if version else None
    if engine == "vllm":
        if ver is not None and ver < VLLM_FIRST:
            return None
        era = ("all" if ver is not None and ver < VLLM_LAST_SPARED else
               "last" if ver is not None and ver < VLLM_MERGED_SKIPPED else "skip")
        said = f"vLLM {version}" if version else "vLLM"
        at = _VLLM_AT
    elif engine == "trtllm":
        from kvplan.engines.fp8_blocks_trtllm import trtllm_refusal

        return trtllm_refusal(version, model, tp, ep, shards)
    elif engine == "sglang":
        if ver is not None and ver < SGLANG_FIRST:
            return None
        era, at = "all", _SGLANG_AT
        said = f"SGLang {version}" if version else "SGLang"
        if split is not None:
            split = replace(split, by_layer=ver is None or ver >= SGLANG_LAYER_GROUP_FROM)
    else:
        return None
    failing = tuple(s for s in shards(model, tp, ep, era, split if engine == "sglang" else None)
                    if not s.fits)
    if not failing:
        return None
    return BlockRefusal(failing[0].message, failing, said, at)


def block_fp8_reason(engine: str, version: str | None, model: ModelSpec, tp: int,
                     ep: int | None = None, split: Split | None = None) -> str | None:
    """The refusal as one line (BlockRefusal.reason), or None."""
    found = block_fp8_refusal(engine, version, model, tp, ep, split)
    if found is None or model.weight_block_size is None:
        return None
    return found.reason(model.name, tp, model.weight_block_size)


def engine_split(engine: str, model: ModelSpec, tp: int, ep: int | None, attention_dp: int = 1,
                 block: object = None) -> Split | None:
    """SGLang's shards for a deployment (its data-parallel attention `attention_dp` and the
    kvplan/v1 engine block's --moe-dense-tp-size and --moe-a2a-backend,
    kvplan.engines.sglang_dp); None for another engine, or where every layer is split over tp."""
    if engine != "sglang":
        return None
    from kvplan.engines.sglang_dp import block_split, layout_of

    lay = layout_of(model, tp, ep, attention_dp, block)
    if (lay.attn_tp, lay.dense_tp, lay.shared_tp) == (tp, tp, tp):
        return None
    return block_split(lay)


def engine_ep(engine: str, model: ModelSpec, tp: int, ep: int | None, block: object = None,
              ) -> int | None:
    """The expert-parallel size the engine runs: SGLang's DeepEP sets it to tp (server_args.py:
    1427-1434 in 0.5.5), else `ep`."""
    if engine == "sglang" and model.moe is not None and \
            getattr(block, "moe_a2a_backend", None) == "deepep":
        return tp
    return ep
