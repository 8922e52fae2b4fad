"""vLLM's MoE scratch from the modular kernel's workspace shapes (kvplan.engines.vllm_moe_workspace).

Hand arithmetic from the source: TritonExperts.workspace_shapes asks for
workspace13 = (M, top_k, max(N / 2, K)) and workspace2 = (M, top_k, max(N, K)), N = 2 x
moe_intermediate / tp, K = hidden (vllm 0.14.0 / 0.19.1 fused_moe.py, 0.27.1
experts/triton_moe.py); up to 0.13 fused_experts_impl's caches are (M, top_k, N),
(M x top_k, N / 2) and (M, top_k, K).
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.activation import activation_peak, forward_elements_per_token
from kvplan.engines.vllm_moe_workspace import modular_moe, workspace_elements_per_token
from kvplan.specs import load_model
from kvplan.units import DType


def test_qwen3_235b_tp4_workspaces_are_hidden_wide() -> None:
    m = load_model("qwen3-235b-a22b-fp8")
    # N = 2 x 1536 / 4 = 768 < K = 4096: both buffers are 4,096 wide, 8 experts a token
    assert workspace_elements_per_token(m, 4) == 8 * (4096 + 4096) == 65_536
    # the old caches: 8 x (768 + 384 + 4096)
    assert forward_elements_per_token(m, 4) == 3 * 4096 + 8 * (3 * 384 + 4096) == 54_272
    assert forward_elements_per_token(m, 4, moe_workspace=True) == 3 * 4096 + 65_536 == 77_824
    # 8,192 batched tokens (the profiled batch) x 77,824 elements x 2 B
    peak = activation_peak(m, 4, 8192, 32, moe_workspace=True)
    assert peak.forward_bytes == 1_275_068_416
    assert peak.peak.best == 1_275_068_416  # the sampler, 32 x 151,936 x 16 B, is smaller
    assert activation_peak(m, 4, 8192, 32).forward_bytes == 889_192_448


def test_intermediate_wider_than_hidden_keeps_the_intermediate() -> None:
    m = load_model("mixtral-8x7b")
    # TP 2: N = 2 x 14336 / 2 = 14,336 > K = 4096: workspace13 7,168, workspace2 14,336 wide
    assert workspace_elements_per_token(m, 2) == 2 * (7168 + 14336) == 43_008
    # the old caches held the (M, top_k, K) output besides: 2 x (3 x 7168 + 4096)
    assert forward_elements_per_token(m, 2) == 3 * 4096 + 51_200


def test_modular_kernel_from_0_14_for_standard_formats_only() -> None:
    fp8 = load_model("qwen3-235b-a22b-fp8")
    assert not modular_moe("0.13.0", True, fp8, DType.fp8)  # fused_experts (fp8.py :1283)
    assert modular_moe("0.14.0", True, fp8, DType.fp8)
    assert modular_moe("0.27.1", True, fp8, DType.fp8)
    assert not modular_moe("0.27.1", False, fp8, DType.fp8)  # V0
    assert not modular_moe("0.27.1", True, load_model("llama-3.1-8b"), DType.bf16)  # dense
    # gpt-oss's MXFP4 experts run other kernels (Marlin, FlashInfer, triton_kernels)
    assert not modular_moe("0.27.1", True, load_model("gpt-oss-20b"), DType.int4)


def _activation(version: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, [
        "explain", "qwen3-235b-a22b-fp8", "--gpu", "rtx-pro-6000-server", "--tp", "4",
        "--engine", "vllm", "--engine-version", version, "--context", "32768",
        "--max-num-seqs", "32", "--kv-dtype", "bf16", "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    [step] = [s for s in row["steps"] if s["label"] == "activation peak"]
    return int(step["value"]), str(step["formula"])


def test_explain_books_the_workspaces_at_tp4() -> None:
    value, formula = _activation("0.27.1")
    assert value == 8192 * 77_824 * 2
    assert "modular-kernel workspaces" in formula
    value, formula = _activation("0.13.0")
    assert value == 8192 * 54_272 * 2
    assert "modular-kernel" not in formula
