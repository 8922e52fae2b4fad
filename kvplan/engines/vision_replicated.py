"""The parts of a vision tower vLLM holds whole on every tensor-parallel rank (Kimi-K2.5).

kvplan splits `params_encoder` over TP with the rest of `params_total`. vLLM's Kimi-K2.5 MoonViT
(vllm/model_executor/models/kimi_k25_vit.py, read in the 0.15.0, 0.16.0, 0.19.1, 0.20.0-0.25.0,
0.27.1, 0.28.0, 0.30.0 and 0.32.0-0.34.0 wheels, task mmenc) shards only the blocks' wqkv
(QKVParallelLinear), wo (RowParallelLinear), fc0 (ColumnParallelLinear) and fc1
(RowParallelLinear); these are whole on every rank in the default --mm-encoder-tp-mode weights:
- the patch embedding, a plain Conv2d with bias (0.15.0 :206, 0.34.0 :193 `Conv2dLayer`);
- the learnable position table, `nn.Parameter(torch.empty(height, width, dim))` (0.15.0 :142,
  0.34.0 :121);
- each block's two LayerNorms (norm0/norm1, 0.15.0 :360, 0.34.0 :381) and the final LayerNorm
  (0.15.0 :484, 0.34.0 :543);
- the biases of the row-parallel wo and fc1: `RowParallelLinear` keeps its bias whole,
  `Parameter(torch.empty(self.output_size))` (layers/linear.py:1386 in 0.15.0);
- the projector (KimiK25MultiModalProjector, patchmerger): pre_norm LayerNorm and two
  `ReplicatedLinear`s with biases, mm_hidden x 4 -> mm_hidden x 4 -> text hidden (0.15.0
  :658-665, 0.34.0 :912-920; from 0.27.1 a patchmergerv2 branch comes first, :891-898 in
  0.34.0, not Kimi-K2.5's config).
The tower is built on every pipeline stage (kimi_k25.py checks get_pp_group only for lm_head,
0.15.0 :351), so a GPU holds 1/tp of the sharded part and the whole of the rest.

Counted for the checkpoint read (tests/assets/hf_configs/kimi-k2.5.json vision_config: vt_hidden
1,152, vt_intermediate 4,304, 27 layers, patch 14, pos table 64 x 64, merge 2 x 2, mm_hidden 1,152,
text hidden 7,168), matched by its encoder count (kvplan.specs.params_multimodal moonvit_vision):
the spec carries no vision shapes for kimi_k25, so another MoonViT (another params_encoder) keeps
the even split. Not booked: the fp32 temporal sincos buffer (4 x 1,152 x 4 B = 18,432 B), a
non-persistent buffer; the lazily built 2D rope buffer (kvplan.engines.encoder_cache).
"""

from __future__ import annotations

from kvplan.capacity.plan import SizeRequest
from kvplan.engines.interface import parse_version
from kvplan.engines.mla_replicated import attention_bits
from kvplan.engines.vllm_model_releases import first_release


def _kimi_k25_whole() -> tuple[int, int]:
    """(params_encoder, parameters held whole) of Kimi-K2.5's MoonViT and projector."""
    dim, inter, layers, patch, pos, text = 1_152, 4_304, 27, 14, 64, 7_168
    merged = dim * 2 * 2
    embed = 3 * patch * patch * dim + dim
    positions = pos * pos * dim
    sharded_block = (dim * 3 * dim + 3 * dim) + dim * dim + (dim * inter + inter) + inter * dim
    whole_block = 2 * 2 * dim + dim + dim  # norm0/norm1 weight and bias; wo and fc1 biases
    projector = 2 * dim + (merged * merged + merged) + (merged * text + text)
    whole = embed + positions + layers * whole_block + 2 * dim + projector
    return whole + layers * sharded_block, whole


# model_type -> (params_encoder of the checkpoint read, parameters vLLM holds whole)
WHOLE = {"kimi_k25": _kimi_k25_whole()}


def whole_params(req: SizeRequest, version: str) -> int:
    """Parameters of the tower held whole on every rank, 0 where not read or not applicable."""
    m = req.model
    read = WHOLE.get(m.model_type)
    if read is None or m.params_encoder != read[0]:
        return 0
    if (parse_version(version) or ())[:3] < (first_release(m.model_type) or ()):  # its model file
        return 0
    return read[1]


def tower_extra_bytes(req: SizeRequest, version: str) -> int:
    """Bytes a GPU holds beyond the even split of params_encoder over tp x pp: 1/tp of the
    sharded part and the whole of the replicated part, at the width the checkpoint stores the
    tower in (both Kimi-K2.5 checkpoints leave it unquantized: attention_bits).

    Kimi-K2.5 bf16 at TP 8: sharded 411,279,984 x 2 // 8 = 102,819,996 B, whole 59,863,936 x 2 =
    119,727,872 B, booked 471,143,920 x 2 // 8 = 117,785,980 B: 104,761,888 B more a GPU."""
    whole = whole_params(req, version)
    if not whole or req.tp * req.pp <= 1:
        return 0
    bits, encoder = attention_bits(req), req.model.params_encoder or 0
    held = (encoder - whole) * bits // 8 // req.tp + whole * bits // 8
    return max(held - encoder * bits // 8 // (req.tp * req.pp), 0)
