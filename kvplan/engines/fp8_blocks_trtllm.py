"""TensorRT-LLM's PyTorch backend and block-fp8 checkpoints at a tensor-parallel size that
splits a 128-wide block (task h100vllmhyb; kvplan.engines.fp8_blocks has SGLang's and vLLM's
start-up checks).

Read in NVIDIA/TensorRT-LLM's PyTorch backend as the code index stores it (the release wheels
are on pypi.nvidia.com, which does not answer here, so no release is pinned and no line is
numbered; each function is named at the stored commit, in two layouts: the single-file
`_torch/modules/fused_moe.py` of the first DeepSeek-V3 releases and the later
`_torch/modules/fused_moe/quantization.py`, the same in both):

- no check refuses the shard: `FP8BlockScalesLinearMethod.create_weights`
  (`_torch/modules/linear.py` at NVIDIA/TensorRT-LLM@00bbf71e) makes the weight
  (out, in) and its scales (ceil(out / 128), ceil(in / 128)), a block of 128 hard-coded, never
  the checkpoint's weight_block_size; `DeepSeekFP8BlockScalesFusedMoEMethod.create_weights`
  likewise (ceil(intermediate per partition / 128) x 2 rows for w3/w1, cell_div(..., 128));
- the scales are then split like the weights: `load_weight_shard` cuts a tensor of `width`
  rows (or columns) into slices of ceil(width / TP) (`slice_width = math.ceil(width /
  tensor_parallel_size)`), so the checkpoint's width / 128 scale rows go ceil(blocks / TP) to a
  rank and fewer (none) to the last ranks whenever TP does not divide the blocks, which is
  exactly when a rank's shard is not a whole number of blocks; `copy_weight` (dst.data.copy_)
  and the MoE's `dst_w3_w1_weight_scale[slot].copy_(...)` /
  `load_expert_all_weight_scale_fp8_block_scale` then meet a slice whose rows differ from the
  padded parameter's, which torch refuses ("The size of tensor a ... must match the size of
  tensor b ..."): the engine stops while loading the weights, after the memory planning kvplan
  does, not with a check of its own;
- MoE TP is the TP unless expert parallelism is stated (`Mapping`: moe_tp_size = TP //
  moe_cluster_size, moe_ep_size 1 when neither is set), so the routed experts split as the
  other engines' do; with --ep_size as wide as the TP they stay whole.

Applied where kvplan plans the PyTorch backend by default (1.0 on; kvplan.engines.trtllm_pytorch
DEFAULT_FROM); a TensorRT engine (before 1.0) converts the checkpoint offline and is not read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kvplan.engines.release import read_numbers

if TYPE_CHECKING:
    from kvplan.engines.fp8_blocks import BlockRefusal, Shard
    from kvplan.specs.schema import ModelSpec

TRTLLM_BLOCK = 128  # FP8BlockScalesLinearMethod / DeepSeekFP8BlockScalesFusedMoEMethod
PYTORCH_FROM = (1, 0)  # the PyTorch backend the default (kvplan.engines.trtllm_pytorch)
AT = ("tensorrt_llm/_torch/modules/linear.py FP8BlockScalesLinearMethod.create_weights and "
      "load_weight_shard, fused_moe DeepSeekFP8BlockScalesFusedMoEMethod.create_weights and "
      "load_expert_all_weight_scale_fp8_block_scale, as stored at NVIDIA/TensorRT-LLM@00bbf71e")


def trtllm_refusal(version: str | None, model: ModelSpec, tp: int, ep: int | None,
                   shards: Callable[[ModelSpec, int, int | None, str], list[Shard]],
                   ) -> BlockRefusal | None:
    """Why TensorRT-LLM's PyTorch backend stops loading `model` at TP `tp` (module docstring),
    or None: TP 1, every split shard whole 128-blocks, or a release before 1.0."""
    from kvplan.engines.fp8_blocks import BlockRefusal, Shard

    ver = read_numbers(version) if version else None
    if tp == 1 or (ver is not None and ver < PYTORCH_FROM):
        return None
    failing = tuple(
        Shard(s.layer, s.size, s.of, TRTLLM_BLOCK,
              f"{s.layer}: a rank's scale tensor holds ceil({s.size} / {TRTLLM_BLOCK}) = "
              f"{-(-s.size // TRTLLM_BLOCK)} padded block(s), while load_weight_shard gives the "
              "last ranks fewer scale rows (ceil(blocks / TP) a rank), which torch's copy_ "
              "refuses")
        for s in shards(model, tp, ep, "split") if s.size % TRTLLM_BLOCK)
    if not failing:
        return None
    said = f"TensorRT-LLM {version} (PyTorch backend)" if version else \
        "TensorRT-LLM (PyTorch backend)"
    return BlockRefusal(failing[0].message, failing, said, AT)


__all__ = ["AT", "PYTORCH_FROM", "TRTLLM_BLOCK", "trtllm_refusal"]
