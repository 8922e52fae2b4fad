"""vLLM V0 0.7.2-0.7.3: the MLA cache row padded to a 256-byte multiple.

Read in the vLLM 0.7.3 wheel (issue #13 task h37mla286), bounded by 0.7.1's, 0.7.2's and
0.8.0's, not fitted to a log. `CacheEngine.get_cache_block_size` (vllm/worker/cache_engine.py),
which sizes each V0 block and so divides the profiled KV memory into blocks, rounds the key entry
(num_kv_heads x head_size; MLA: one head of kv_lora_rank + qk_rope_head_dim) up with
`align_to_256bytes(key_cache_entry, model_config.dtype)` when `CacheEngine._align_cache` holds:
`model_config.use_mla and current_platform.is_cuda() and envs.VLLM_CUDA_MEM_ALIGN_KV_CACHE`
(envs.py, default "1"; envs.py also declares an unused VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE = True).
`align_to_256bytes` (vllm/utils.py) is `round_up(extent, 256 // dtype_size)` in elements of the
model's dtype (2 B: 128 elements), and the block then prices each element at the cache dtype's
size. `_allocate_kv_cache` allocates the padded rows and views them back to the unpadded shape,
so the padding is held memory, not spare capacity. DeepSeek's 512 + 64 = 576-value latent
becomes 640 values: 1,280 B a token and layer in bf16 where the values are 1,152 B (log 286:
21.43 GiB / 294,688 tokens = 61 x 1,280 B).

Range: 0.7.2's cache_engine.py is the same as 0.7.3's; 0.7.1's has no alignment and 0.8.0's
get_cache_block_size has none (vllm-project/vllm pull request #14842). V1 in 0.7.x sizes its own
cache (vllm/v1/worker/gpu_model_runner.py) with no padding. ROCm (current_platform.is_cuda()
false) is not padded: an AMD GPU keeps the 1,152 B row (a GPU of unknown vendor, as
calibration builds from a log's total, is taken to be CUDA). The model dtype is taken as 16
bits (vLLM runs float32 configs in 16 bits on GPUs); an fp8 cache is then priced at 640 x 1 B,
as get_cache_block_size does (the allocation pads it to 768 B, which vLLM does not budget: not
modelled).
"""

from __future__ import annotations

from dataclasses import replace

from kvplan.capacity.plan import SizeRequest
from kvplan.engines.common import LayerShape
from kvplan.engines.interface import parse_version

ALIGN_FROM = (0, 7, 2)  # 0.7.2's cache_engine.py is the first with align_cache
ALIGN_UNTIL = (0, 8, 0)  # removed by pull request #14842, absent from 0.8.0
ALIGN_BYTES = 256  # align_to_256bytes
MODEL_DTYPE_BYTES = 2  # model_config.dtype, the unit align_to_256bytes counts in


def aligned_values(values: int) -> int:
    """`align_to_256bytes(values, model dtype)`: 576 -> 640 (multiples of 256 // 2 = 128)."""
    step = ALIGN_BYTES // MODEL_DTYPE_BYTES
    return -(-values // step) * step


def pads_mla_rows(req: SizeRequest, version: str, v1: bool) -> bool:
    """Whether this run's engine pads the MLA latent row (V0 0.7.2-0.7.3 on CUDA)."""
    ver = parse_version(version) or ()
    return (req.model.attention.mla is not None and not v1
            and ALIGN_FROM <= ver[:3] < ALIGN_UNTIL
            and req.gpu.vendor.lower() != "amd")


def v0_mla_shape(shape: LayerShape, req: SizeRequest, version: str, v1: bool) -> LayerShape:
    """`shape` with the padded MLA row where `pads_mla_rows`; else unchanged."""
    mla = req.model.attention.mla
    if mla is None or not pads_mla_rows(req, version, v1):
        return shape
    values = mla.kv_lora_rank + mla.qk_rope_head_dim
    per_layer = aligned_values(values) * req.kv_dtype.bits // 8
    return replace(shape, bytes_per_token_per_layer=per_layer)


# The absorbed decode matrices V0's MLA backend keeps beside the loaded weights (0.7.1-0.7.3).
# Read in the 0.7.3 wheel, vllm/attention/backends/mla/utils.py MLACommonImpl
# process_weights_after_loading (the same tensors in 0.7.1's and 0.7.2's), which
# model_loader/loader.py _process_weights_after_loading calls inside the DeviceMemoryProfiler
# that measures "model weights take" (worker/model_runner.py load_model; allocated bytes after
# minus before), so the copies are printed as weights. With VLLM_MLA_PERFORM_MATRIX_ABSORPTION
# (default 1) each attention layer keeps, per TP rank (heads = num_attention_heads / TP):
#   W_QR   q_proj's rope columns, .to(act_dtype): q_in x heads x qk_rope_head_dim x 2 B
#          (q_in = q_lora_rank, or hidden_size without one);
#   W_UK/W_UV views of kv_b_proj dequantized to act_dtype (a new tensor when the checkpoint is
#          quantized; the loaded weight itself when it is 16-bit): kv_lora_rank x heads x
#          (qk_nope_head_dim + v_head_dim) x 2 B;
#   W_Q_UK einsum(W_Q, W_UK): q_in x heads x kv_lora_rank, requantized to fp8 with the
#          checkpoint's group shape (VLLM_MLA_DISABLE_REQUANTIZATION default 0) or kept in act_dtype;
#   W_UV_O einsum(W_UV, W_O): heads x kv_lora_rank x hidden_size, the same;
#   fp8 scales: one fp32 per 128 x 128 block (DeepSeek-R1's weight_block_size) of each.
# The loaded q_b_proj, kv_b_proj and o_proj stay (prefill runs on them). 0.8.0's MLA backend
# (attention/backends/mla/common.py) keeps only bf16 W_UV and W_UK_T: not booked here.
ABSORB_FROM = (0, 7, 1)
ABSORB_UNTIL = (0, 8, 0)
ACT_BYTES = 2
FP8_BLOCK = 128
SCALE_BYTES = 4


def _matrix(rows: int, cols: int, fp8: bool) -> int:
    """Bytes of one absorbed matrix: fp8 with fp32 block scales, or 16-bit."""
    if not fp8:
        return rows * cols * ACT_BYTES
    return rows * cols + -(-rows // FP8_BLOCK) * -(-cols // FP8_BLOCK) * SCALE_BYTES


def absorbed_bytes(req: SizeRequest, version: str, v1: bool) -> int:
    """Bytes a GPU holds for V0's absorbed MLA matrices (0 where the release or engine has none).

    DeepSeek-R1 (fp8) at TP 8, a layer: W_QR 1,536 x 16 x 64 x 2 = 3,145,728; kv_b_proj
    dequantized 512 x 16 x 256 x 2 = 4,194,304; W_Q_UK 1,536 x 8,192 + 12 x 64 x 4 = 12,585,984;
    W_UV_O 8,192 x 7,168 + 64 x 56 x 4 = 58,734,592; 78,660,608 B x 61 layers = 4,798,297,088 B.
    """
    mla = req.model.attention.mla
    ver = parse_version(version) or ()
    if (mla is None or v1 or not ABSORB_FROM <= ver[:3] < ABSORB_UNTIL
            or mla.qk_nope_head_dim is None or mla.v_head_dim is None):
        return 0
    model = req.model
    heads = model.num_attention_heads // req.tp
    q_in = mla.q_lora_rank or model.hidden_size
    bits = req.effective_weight_dtype.bits
    fp8 = bits == 8
    w_qr = q_in * heads * mla.qk_rope_head_dim * ACT_BYTES
    kv_b = mla.kv_lora_rank * heads * (mla.qk_nope_head_dim + mla.v_head_dim) * ACT_BYTES if (
        bits < 16) else 0
    w_q_uk = _matrix(q_in, heads * mla.kv_lora_rank, fp8)
    w_uv_o = _matrix(heads * mla.kv_lora_rank, model.hidden_size, fp8)
    return (w_qr + kv_b + w_q_uk + w_uv_o) * model.num_layers
