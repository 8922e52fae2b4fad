"""TensorRT-LLM's PyTorch backend (the default from 1.0): how it sizes the KV pool, from its source.

Read in tensorrt_llm/_torch/pyexecutor/_util.py (KvCacheCreator) as the stored code index holds it
at several stages; the release wheels (pypi.nvidia.com) could not be downloaded here, so the
releases are placed by the features each stored version has, not by tag:
- 0.17-era `estimate_max_kv_cache_tokens` (index id 5657116856): one dummy context request, peak =
  torch peak + non-torch, available = (total - peak) x fraction (0.9 when unset).
- 0.20/0.21-era `cal_max_tokens` (ids 9841842691, 9136361103) and the KvCacheCreator of 0.21/1.0
  (ids 90899134, 2869238873): dummy context requests of min(max_num_tokens, max_seq_len - 1)
  tokens until max_num_tokens are queued, one output token each; the executor runs them on a
  small profiling pool; then
    torch_peak = memory_stats()["allocated_bytes.all.peak"] (reset just before the dummy run),
    empty_cache(); extra = max(used (mem_get_info) - torch allocated now, 0)
    peak = torch_peak + extra                      ("Memory used outside torch (e.g., NCCL
    available = (total - peak + profiling pool bytes) x fraction       and CUDA graphs)")
    max_tokens = floor(available / KV bytes per token), min with kv_cache_config.max_tokens.
  The profiling pool is a C++ (non-torch) allocation, so it sits in `extra` and is added back:
  it cancels. The fraction is kv_cache_config.free_gpu_memory_fraction, 0.9 when unset.
- 1.1-era KvCacheCreator (id 843526953): the same peak; the result is kept as bytes
  (`max_gpu_total_bytes`, "Estimated max memory in KV cache : X GiB", as log 139 prints) and
  max_tokens = floor(bytes / KV bytes per token); a stated max_tokens caps the bytes. Models with
  a vision encoder profile ONE dummy multimodal request (`_create_dummy_mm_context_request`,
  the input processor's get_dummy_prompt), so the tower's activation is in the torch peak; a
  processor without get_dummy_prompt falls back to the text requests.
- the index's newest version (NVIDIA/TensorRT-LLM@0004396, id 54555926407, after 1.3): the
  profiling pool also covers the CUDA-graph warmup (max_seq_len blocks + the largest graph batch)
  and max_batch_size blocks (added back all the same), the encoder is profiled directly and an
  encoder-cache reserve (`encoder_cache_max_bytes`) is added to the peak.

CUDA graphs are captured while the profiling executor is built, before the peak is reset (log 26,
1.1.0rc3: "Creating CUDA graph instances for 11 batch sizes" precedes "Memory used after loading
model weights ... in memory usage profiling"), so their pools and static outputs are in `extra`.
The sampler's vocabulary-wide buffers (TorchSampler's penalty counts, max_num_sequences x vocab)
are allocated lazily, on the first request that uses a penalty (sampler.py as stored, ids
58203638285, 57452865006), so not during the dummy run.

What kvplan models: free = total - weights - forward activation over max_num_tokens - non-torch,
x fraction. `NON_TORCH_PYTORCH` is the `extra` term (CUDA context, CUDA-graph pools, cuBLAS/
TRT-LLM workspaces) plus whatever the forward model misses of the torch peak: fitted on one fit
log (19, 1.2.1 on an H100), as kvplan cannot read those pieces from a model's shapes. It dominates
the modelled non-KV memory of small models. Not modelled: the vision tower's profiled activation
(1.1 on), the encoder-cache reserve (after 1.3), MoE workspaces (the profiled forward of a MoE
model is the dense proxy of kvplan.engines.activation; the DeepGEMM MoE backend's, read by task
h39trt12, needs a MoE-backend setting kvplan lacks: docs/engines-calibration.md). A DeepSeek-V3-type
model's weights held whole on every TP rank are booked in kvplan.engines.trtllm_mla.
"""

from __future__ import annotations

from kvplan.specs.schema import ModelSpec
from kvplan.units import GIB, MIB

# The PyTorch backend's non-torch memory at the profiled peak (low, best, high). Best fitted on
# tests/assets/logs/19 (fit part; FITTED.tsv): Qwen3-0.6B, 1.2.1, H100 80 GB, defaults:
# 79.20 GiB - 1.11 GiB weights - 192 MiB modelled forward - 643,136 x 114,688 B / 0.9 = 1.580 GiB.
# The low and high ends are the engine path's (400 MiB, 2 GiB).
NON_TORCH_PYTORCH = (1617 * MIB, 400 * MIB, 2 * GIB)
# What the step says the term holds (the source's own words for `extra`).
NON_TORCH_PYTORCH_WHAT = ("outside torch at the profiled peak (CUDA context, CUDA graphs, "
                          "workspaces; fitted on log 19)")

# Qwen2-VL / Qwen2.5-VL (mrope) on the PyTorch backend keep a float32 cos/sin table of
# max_position_embeddings x head_dim values on the GPU from start-up, before the profiled peak:
# RopeEmbeddingUtils.create_sinusoidal_positions_for_attention_plugin(num_pos=
# max_position_embeddings, dim=hidden_size / num_attention_heads, scale_type=mrope) (numpy,
# dtype float32 by default), `torch.from_numpy(...).to(device)`, reshaped to (num_pos, dim / 2,
# 2). The 0.2x copies of tensorrt_llm/_torch/models/modeling_qwen2vl.py in the stored index
# (ids 1702674843, 6548974990) build it in the input processor's `_post_init_` on 'cuda', beside
# the vision tower (`self.visual = model.visual.to('cuda')`, the same bytes kvplan counts in the
# weights), in the LLM API's process, which the worker's mem_get_info sees as used memory; the
# July 2025 change NVIDIA/TensorRT-LLM#6004 ("This tensor size is 64MB") moved it into the worker
# (`init_rotary_cos_sin_ori`, ids 2426355095, 13492196929), where it is torch-allocated at the
# peak. Either way it is in the peak. The newest stored copy (id 55160869554) keeps an
# MRotaryEmbedding and a max_num_tokens workspace instead, of another size; not modelled.
# Booked before 1.0 only, the releases every stored 0.2x copy places it in. The dummy requests
# of those releases are text-only (KvCacheCreator above), so the vision tower does not run in the
# profile: its activation is not in the peak.
MROPE_TYPES = ("qwen2_vl", "qwen2_5_vl")
MROPE_TABLE_BEFORE = (1, 0)
MROPE_TABLE_BYTES_PER_VALUE = 4  # float32


def mrope_table_bytes(model: ModelSpec, version: tuple[int, ...]) -> int:
    """The mrope cos/sin table the PyTorch backend holds for a Qwen2-VL model (0 otherwise)."""
    if model.model_type not in MROPE_TYPES or version >= MROPE_TABLE_BEFORE:
        return 0
    head_dim = model.hidden_size // model.num_attention_heads
    return model.max_context_tokens * head_dim * MROPE_TABLE_BYTES_PER_VALUE


# trtllm-serve --backend / the LLM API's backend: which executor sizes the pool. kvplan models
# "pytorch" (KvCacheCreator above) and "tensorrt" (a TensorRT engine: kvCacheManager.cpp
# calculateMaxNumBlocks after the engine's execution context, kvplan.engines.trtllm). Unstated,
# the backend is the release's default: pytorch from 1.0, a TensorRT engine before.
BACKENDS = ("pytorch", "tensorrt")
DEFAULT_FROM = (1, 0)
# The oldest PyTorch-backend sizing kvplan has read: the 0.17-era estimate_max_kv_cache_tokens
# (index id 5657116856); an older release is refused with the backend stated.
FIRST_READ = (0, 17)


def uses_pytorch(version: tuple[int, ...], backend: str | None) -> bool:
    """Whether the PyTorch backend sizes the pool (`version` parsed; backend as stated)."""
    return version >= DEFAULT_FROM if backend is None else backend == "pytorch"


def backend_refusal(version: tuple[int, ...], backend: str | None) -> str | None:
    """Why a stated backend does not apply to the release (None: it does)."""
    if backend is not None and backend not in BACKENDS:
        return f"expected one of {', '.join(BACKENDS)}, got {backend!r}"
    if backend == "pytorch" and version < FIRST_READ:
        shown = ".".join(str(p) for p in version)
        return (f"TensorRT-LLM {shown} predates the PyTorch backend sizing kvplan has read "
                "(0.17 on, tensorrt_llm/_torch/pyexecutor); state 0.17 or later, or drop it")
    return None
