"""The 0.2x PyTorch backend's Qwen2-VL mrope cos/sin table (kvplan/engines/trtllm_pytorch.py).

The 0.2x copies of tensorrt_llm/_torch/models/modeling_qwen2vl.py build, on the GPU before the
profiled peak, RopeEmbeddingUtils.create_sinusoidal_positions_for_attention_plugin(num_pos=
max_position_embeddings, dim=hidden_size / num_attention_heads, scale_type=mrope): float32 cos
and sin, num_pos x dim values. Qwen2.5-VL-7B: 128,000 x (3,584 / 28 = 128) x 4 B = 65,536,000 B
(NVIDIA/TensorRT-LLM#6004: "This tensor size is 64MB"). Booked before 1.0 only.
"""

from __future__ import annotations

from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.trtllm_pytorch import mrope_table_bytes
from kvplan.specs import load_model

ARGS = ("--gpu", "l20", "--engine", "trtllm", "--free-gpu-memory-fraction", "0.6",
        "--max-batch-size", "1", "--max-num-tokens", "1700", "--max-seq-len", "1800")


def _explain(model: str, *extra: str) -> str:
    res = CliRunner().invoke(app, ["explain", model, *ARGS, *extra])
    assert res.exit_code == 0, res.output
    return res.output


def test_the_table_by_hand():
    vl = load_model("qwen2.5-vl-7b")
    assert mrope_table_bytes(vl, (0, 21, 0)) == 128_000 * 128 * 4 == 65_536_000
    assert mrope_table_bytes(vl, (0, 99)) == 65_536_000
    assert mrope_table_bytes(vl, (1, 0, 0)) == 0  # from 1.0 not booked
    assert mrope_table_bytes(load_model("qwen2.5-7b"), (0, 21, 0)) == 0  # no mrope
    # Qwen2.5-VL-3B: 128,000 positions x (2,048 / 16 = 128) x 4 B
    assert mrope_table_bytes(load_model("qwen2.5-vl-3b"), (0, 21, 0)) == 65_536_000


def test_explain_books_it_on_the_pytorch_backend_before_1_0_only():
    out = _explain("qwen2.5-vl-7b", "--engine-version", "0.21.0", "--trtllm-backend", "pytorch")
    assert "mrope cos/sin table" in out and "65,536,000 B" in out
    for extra in (("--engine-version", "0.21.0", "--trtllm-backend", "tensorrt"),
                  ("--engine-version", "1.0.0")):
        assert "mrope" not in _explain("qwen2.5-vl-7b", *extra)
    assert "mrope" not in _explain("qwen2.5-7b", "--engine-version", "0.21.0",
                                   "--trtllm-backend", "pytorch")
