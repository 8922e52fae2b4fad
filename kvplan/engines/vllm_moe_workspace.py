"""vLLM's fused-MoE scratch from the modular kernel's workspace shapes (read in the source).

Up to 0.12 a tensor-parallel MoE layer without expert parallelism calls `fused_experts`, whose
Triton path allocates three intermediate caches per call: (M, top_k, N), (M x top_k, N / 2) and
(M, top_k, K), N = 2 x moe_intermediate / tp (gate and up), K = hidden (vllm 0.11.0 and 0.12.0
wheels: quantization/fp8.py Fp8MoEMethod.apply, fused_moe/unquantized_fused_moe_method.py
forward_cuda -> fused_moe.py fused_experts_impl). That is kvplan.engines.activation's default
MoE term, top_k x (3 x moe_intermediate / tp + hidden) elements a token.

From the 0.14 series every FP8 and 16-bit MoE layer runs the modular kernel (0.14.0
quantization/fp8.py `self.kernel(...)`, unquantized_fused_moe_method.py forward_cuda
`self.kernel(...)`; 0.19.1 and 0.27.1 `self.moe_kernel.apply`), whose buffers come from
`workspace_shapes` and are taken from the worker's WorkspaceManager (fused_moe/
modular_kernel.py _allocate_buffers -> current_workspace_manager().get_simultaneous; the
buffer grows once and is kept, vllm/v1/worker/workspace.py _ensure_workspace_size). The
Triton experts ask for
    workspace13 = (M, top_k, max(N / 2, K)),  workspace2 = (M, top_k, max(N, K))
(fused_moe.py TritonExperts.workspace_shapes in 0.14.0 and 0.19.1, experts/triton_moe.py in
0.27.1; the CUTLASS FP8 experts the same sizes as (M x top_k, max(N, K)) and
(M x top_k, max(N / 2, K)), experts/cutlass_moe.py), in the activation dtype, and the (M, K)
output reuses workspace13. With K = hidden above N, as in every MoE checkpoint in the catalog
at tensor parallelism, each buffer is hidden-wide, not moe_intermediate-wide: Qwen3-235B-A22B
at TP 4 holds 8 x (4,096 + 4,096) elements a token, where the old caches held
8 x (3 x 384 + 4,096). M is the profiled batch (max_num_batched_tokens; 0.14-0.19 chunk it at
VLLM_FUSED_MOE_CHUNK_SIZE, 16,384 by default, above which this per-token figure overstates).
The buffer persists after the profiling pass, so vLLM books it in "consumed memory" rather than
in the peak's transient headroom (vllm/utils/mem_utils.py, 0.27.1: non_kv_cache_memory =
total_consumed + transient_peak_headroom); either way it is one term of the budget, which is
why kvplan keeps it in the activation peak.

Only the standard-format experts (Triton, CUTLASS, DeepGEMM: 16-bit and FP8 weights without a
GPTQ/AWQ/MXFP4/NVFP4 scheme) are booked this way; Marlin, FlashInfer and gpt-oss's kernels keep
the default term (not read).
"""

from __future__ import annotations

from kvplan.engines.interface import parse_version
from kvplan.specs.schema import ModelSpec
from kvplan.units import DType, ceil_div

# The first series whose TP MoE layers run the modular kernel with WorkspaceManager buffers:
# 0.12.0 calls fused_experts (fp8.py :1315, unquantized_fused_moe_method.py :382), 0.14.0 the
# modular kernel (fp8.py :1062, unquantized_fused_moe_method.py :324).
MODULAR_MOE_FROM = (0, 14)
STANDARD_DTYPES = (DType.bf16, DType.fp16, DType.fp8)


def modular_moe(version: str, v1: bool, model: ModelSpec, weight_dtype: DType) -> bool:
    """Whether this vLLM release sizes the MoE scratch by the modular kernel's workspaces."""
    return (v1 and model.moe is not None and bool(model.moe.moe_intermediate_size)
            and (parse_version(version) or (0,))[:2] >= MODULAR_MOE_FROM
            and model.weight_quant is None and model.nvfp4 is None
            and weight_dtype in STANDARD_DTYPES)


def workspace_elements_per_token(model: ModelSpec, tp: int) -> int:
    """top_k x (max(N / 2, K) + max(N, K)) elements a token (Triton's workspace13 and
    workspace2), N = 2 x moe_intermediate / tp, K = hidden."""
    assert model.moe is not None and model.moe.moe_intermediate_size
    n = 2 * ceil_div(model.moe.moe_intermediate_size, tp)
    k = model.hidden_size
    return model.moe.experts_per_token * (max(n // 2, k) + max(n, k))
