"""gpt-oss's MXFP4 experts in vLLM's Triton (`triton_kernels`) layout on Hopper (sm90).

Which backend runs (read in the vLLM wheels 0.10.1-0.34.0, task h56mxfp4): vLLM takes the
Triton MoE kernels on sm90 where `triton_kernels` imports (0.10.1 `mxfp4.py`
`_should_use_marlin`, 0.10.2-0.18 `get_mxfp4_backend`, 0.19+ the oracle
`fused_moe/oracle/mxfp4.py` `select_mxfp4_moe_backend`, TRITON ahead of FlashInfer-CUTLASS and
Marlin); FlashInfer on sm90 only with `VLLM_USE_FLASHINFER_MOE_MXFP4_BF16=1`, Marlin with
`VLLM_MXFP4_USE_MARLIN=1` (neither modelled). The 0.10.1-0.11.2 wheels neither require nor
ship `triton_kernels` (`has_triton_kernels` = `_has_module("triton_kernels")`), so a pip
install runs Marlin there; from 0.12.0 the wheel vendors it as `vllm/third_party/triton_kernels`
(vllm#28788) and `has_triton_kernels` takes either, so Triton runs. vLLM's container images of
0.10.x-0.11.x were not read.

The bytes, per TP rank (I = ceil(intermediate / TP) rounded up to 64, `mxfp4.py` create_weights
/ `mxfp4_round_up_hidden_size_and_intermediate_size`; hidden H not padded): `_swizzle_mxfp4`
(`quantization/utils/mxfp4_utils.py`) transposes each weight and scale and converts them to
`HopperMXValueLayout` / `HopperMXScaleLayout` (`third_party/triton_kernels/tensor_details/
layout_details/hopper_value.py`, `hopper_scale.py`; torch >= 2.8.1, which every wheel from 0.12
pins):
- values, as (rows, packed bytes): rows padded to 16 and bytes to 32 (the mma tiles: 2 x 4 x 2
  rows, 4 x 2 x 4 bytes); in 0.17.0-0.21.0 the vendored copy first pads both to 64 (`Pre-pad
  both matrix dims to multiples of 64`), which 0.22.0 drops again;
- scales, as (rows, K = columns / 32): rows padded to 2 x num_warps (8) x 2 x 8 = 256, K to 2;
  from 0.26.0 `_swizzle_mxfp4` pads K to 4 first on sm90 ("Patches #47303");
- the loaded (unswizzled) scales stay on the layer beside the swizzled copy in 0.12-0.24 (only
  `layer.w13_weight` / `w2_weight` are deleted); from 0.25.0 they are deleted too (oracle
  "drop the now-dead weight/scale Parameters"; 0.34.0 `store_params_in_triton`);
- the expert biases become float32 (`w13_bias.to(torch.float32)`), w13 (2I) and w2 (H, whole
  on every rank).
The rest (attention, router, embeddings) stays bf16, split over the GPUs.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.capacity.plan import SizeRequest
from kvplan.units import ceil_div

MX_BLOCK = 32  # one e8m0 scale per 32 fp4 weights
INTER_ALIGN = 64  # create_weights' round_up(intermediate_size_per_partition, 64) for Triton
VALUE_ROWS, VALUE_BYTES = 16, 32  # HopperMXValueLayout's pack along rows / packed bytes
SCALE_ROWS = 2 * 8 * 2 * 8  # HopperMXScaleLayout SWIZZLE_ALIGN_M at num_warps 8
BIAS_BYTES = 4  # float32


@dataclass(frozen=True)
class TritonHopperLayout:
    """One release line's Hopper Triton layout of the MXFP4 experts."""

    kernel: str  # the name `explain` shows
    value_prepad: int  # 64 in 0.17-0.21 (both value dims pre-padded), else 1
    scale_k_align: int  # 2 (HopperMXScaleLayout), 4 from 0.26 (#47303 patch)
    keeps_loaded_scales: bool  # 0.12-0.24 keep the loaded scales beside the swizzled ones

    def how(self) -> str:
        pad = (f"values padded to {self.value_prepad} x {self.value_prepad} then "
               if self.value_prepad > 1 else "values ")
        kept = ", the loaded scales kept beside them" if self.keeps_loaded_scales else ""
        return (f"gpt-oss MXFP4 experts in vLLM's Triton layout on Hopper ({pad}16 rows x 32 "
                f"bytes, scales 256 rows x {self.scale_k_align}{kept}; fp32 expert biases) + "
                "bf16 rest")


# (first release, layout), newest last; below the first Triton release the wheel runs Marlin
TRITON_HOPPER = (
    ((0, 12), TritonHopperLayout("triton-sm90", 1, 2, True)),
    ((0, 17), TritonHopperLayout("triton-sm90-pad64", 64, 2, True)),
    ((0, 22), TritonHopperLayout("triton-sm90", 1, 2, True)),
    ((0, 25), TritonHopperLayout("triton-sm90-scales-freed", 1, 2, False)),
    ((0, 26), TritonHopperLayout("triton-sm90-k4", 1, 4, False)),
)
TRITON_HOPPER_FROM = TRITON_HOPPER[0][0]
LAYOUTS = {layout.kernel: layout for _, layout in TRITON_HOPPER}


def triton_hopper_layout(ver: tuple[int, ...]) -> TritonHopperLayout | None:
    """The layout a pip-installed vLLM `ver` gives gpt-oss on sm90; None where it runs Marlin."""
    found = None
    for first, layout in TRITON_HOPPER:
        if ver >= first:
            found = layout
    return found


def _up(x: int, align: int) -> int:
    return ceil_div(x, align) * align


def expert_bytes(hidden: int, inter: int, layout: TritonHopperLayout) -> int:
    """One expert's bytes on one rank: gate_up (2I x H) and down (H x I) in the layout."""
    pre = layout.value_prepad

    def values(rows: int, cols: int) -> int:
        return _up(_up(rows, pre), VALUE_ROWS) * _up(_up(cols // 2, pre), VALUE_BYTES)

    def scales(rows: int, cols: int) -> int:
        return _up(rows, SCALE_ROWS) * _up(ceil_div(cols, MX_BLOCK), layout.scale_k_align)

    total = values(2 * inter, hidden) + values(hidden, inter)
    total += scales(2 * inter, hidden) + scales(hidden, inter)
    if layout.keeps_loaded_scales:
        total += 2 * inter * ceil_div(hidden, MX_BLOCK) + hidden * ceil_div(inter, MX_BLOCK)
    return total + (2 * inter + hidden) * BIAS_BYTES


def triton_hopper_weights_bytes(req: SizeRequest, layout: TritonHopperLayout) -> int:
    """Per-GPU bytes of gpt-oss on Hopper under vLLM's Triton MoE layout: experts as laid out
    (with their fp32 biases), the rest in bf16 over the GPUs."""
    m = req.model
    assert m.moe is not None and m.moe.moe_intermediate_size is not None
    inter_full = m.moe.moe_intermediate_size
    inter = _up(ceil_div(inter_full, req.tp), INTER_ALIGN)
    moe_layers = m.num_layers - m.moe.first_dense_layers
    n_experts = moe_layers * m.moe.num_experts
    experts = n_experts * expert_bytes(m.hidden_size, inter, layout) // req.pp
    expert_params = n_experts * (3 * m.hidden_size * inter_full + 2 * inter_full + m.hidden_size)
    rest = max(0, m.params_total - expert_params) * 2
    return experts + ceil_div(rest, req.gpus_per_replica)
