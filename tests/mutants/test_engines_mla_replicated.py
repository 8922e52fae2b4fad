"""Mutation tests of kvplan/engines/mla_replicated.py (task h80mut): the whole down-projections
a rank holds beyond the even split, total // pp - total // (tp x pp) with total = params x bits
// 8 (vLLM 0.7.3 and 0.33.0 models/deepseek_v2.py, as the module cites). A one-parameter
projection shows the edges: hidden 1, one layer, kv_lora_rank 1, no q_lora_rank, no rope
dims: 1 x (0 + 1 + 0) x 1 = 1 parameter, 2 B in bf16."""

from __future__ import annotations

from dataclasses import replace

from kvplan.capacity import SizeRequest
from kvplan.engines.mla_replicated import projection_params, replicated_extra_bytes
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType


def _tiny(tp: int) -> SizeRequest:
    lite = load_model("deepseek-v2-lite")
    assert lite.attention.mla is not None
    mla = lite.attention.mla.model_copy(update={"q_lora_rank": None, "kv_lora_rank": 1,
                                                "qk_rope_head_dim": 0})
    tiny = lite.model_copy(update={"hidden_size": 1, "num_layers": 1,
                                   "attention": lite.attention.model_copy(update={"mla": mla})})
    return SizeRequest(model=tiny, gpu=load_hardware("h200"), context_tokens=4096,
                       kv_dtype=DType.bf16, weight_dtype=DType.bf16, tp=tp)


def test_a_one_parameter_projection() -> None:
    """2 B whole at TP 2: 2 // 1 - 2 // 2 = 1 B beyond the split; at TP 2 x PP 4 the stage's
    share and the rank's both floor to 0: 0."""
    req = _tiny(2)
    assert projection_params(req.model) == 1
    assert replicated_extra_bytes(req, "0.9.2") == 1
    assert replicated_extra_bytes(replace(req, pp=4), "0.9.2") == 0


def test_whole_bytes() -> None:
    """Bytes are whole numbers (floor division throughout): DeepSeek-V2-Lite at TP 2 x PP 2,
    2,048 x (512 + 64) x 27 = 31,850,496 params x 2 B = 63,700,992 B; 31,850,496 // 1 -
    63,700,992 // 4 = 15,925,248 B, an int."""
    lite = load_model("deepseek-v2-lite")
    req = SizeRequest(model=lite, gpu=load_hardware("h200"), context_tokens=4096,
                      kv_dtype=DType.bf16, tp=2, pp=2)
    got = replicated_extra_bytes(req, "0.9.2")
    assert got == 63_700_992 // 2 - 63_700_992 // 4 == 15_925_248
    assert type(got) is int
