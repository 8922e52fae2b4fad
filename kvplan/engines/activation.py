"""The activation peak of a profiling forward pass, modelled from shapes and batching limits.

Engines that profile (vLLM, TensorRT-LLM's PyTorch backend) run one dummy batch of
`max_num_batched_tokens` tokens and, on the last pipeline stage, the sampler on `max_num_seqs`
rows of logits; the KV pool gets what is left. The peak is the larger of the two moments:

  forward: tokens x (3 x hidden + max(MLP, attention) elements per token) x 2 bytes
    MLP (dense) = 3 x intermediate / tp       (gate_up output 2I/tp + activation output I/tp)
    MLP (MoE)   = top_k x (3 x moe_intermediate / tp + hidden)   (fused-MoE scratch caches;
                  vLLM from 0.14: top_k x (max(I/tp, hidden) + max(2I/tp, hidden)), the modular
                  kernel's workspaces, kvplan.engines.vllm_moe_workspace)
    attention   = (q + 2 kv + o heads on this rank) x head_dim
    3 x hidden: the residual, the layer input and the layer output alive at the MLP's peak.
  sampler: rows x vocab x bytes per logit. V0 (fp32 logits, sort values and int64 indices for
    top-k / top-p, probabilities, log-probabilities, cumulative sums): 40 B best, 16..48 B.
    V1 before Model Runner V2 (0.8-0.24; MoE models to 0.28): the fp32 logits, the sorted fp32
    values and their int64 indices of apply_top_k_top_p (vllm/v1/sample/ops/topk_topp_sampler.py): 16 B best,
    12..28 B (log 61: 1.89 GiB over 1,024 x 128,256 logits = 15.45 B).

Calibration (real logs, tests/assets/logs): Llama-3.1-8B at 20,000 and 29,000 batched tokens
profiled 2.07 and 2.99 GiB (model: 2.06 and 2.99); Llama-3-8B with 8,192 tokens and 256
sequences 1.26 GiB (sampler model 1.22); Phi-4 with 256 sequences 0.94 GiB (0.96);
Qwen3-235B-A22B at TP 4, 8,192 tokens 0.76 GiB (0.83). Quantized checkpoints (GPTQ, bitsandbytes,
MXFP4) add dequantisation scratch this model does not know; their range is widened.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.capacity.kv import kv_heads_per_gpu
from kvplan.engines.interface import Interval
from kvplan.engines.vllm_moe_workspace import workspace_elements_per_token
from kvplan.specs.schema import ModelSpec
from kvplan.units import GIB, DType, ceil_div

ACT_BYTES = 2  # activations run in bf16/fp16 even for fp8 / int4 weights
# ...but in fp32 when the model is served in fp32 (vLLM `--dtype float32`): the loader builds the
# layers under `set_default_torch_dtype(model_config.dtype)` (vLLM 0.30.0
# model_executor/model_loader/base_loader.py:66), so every matmul output of the forward pass is in
# that dtype, and the profiling runner's buffers take it too (`self.dtype =
# self.model_config.dtype`, v1/worker/gpu/model_runner.py:205 in 0.30.0; gpu_model_runner.py:493
# and its inputs_embeds buffer `dtype=self.dtype` :812 in 0.32.0). Task actwidth.
FP32_ACT_BYTES = 4


def serving_act_bytes(dtype: DType) -> int:
    """Bytes per activation element for a model served with weights in `dtype` (the request's
    effective weight dtype, i.e. `--dtype` or the published one after `--dtype auto`): 4 in
    fp32, else 2 (16-bit, and fp8 / int4 checkpoints, which compute in 16 bits)."""
    return FP32_ACT_BYTES if dtype is DType.fp32 else ACT_BYTES
SAMPLER_BYTES_PER_LOGIT = (16, 40, 48)  # low, best, high
# Model Runner V2 (vLLM 0.22-0.24 the listed architectures, 0.25 on dense models, 0.29 on all:
# kvplan.engines.vllm_series.Flavour.lean_sampler): its profiling sampler skips
# top-k / top-p and logprobs ("NOTE(woosuk): During the initial memory profiling, the sampler may
# skip top_k, top_p, and logprobs", vllm/v1/worker/gpu/model_runner.py _dummy_sampler_run), so
# nothing is sorted: the bf16 logits (2 B) and one fp32 copy (4 B), temperature applied in place
# and Gumbel sampling without a probability tensor. Read in the source, not fitted to a log.
# That fp32 copy is unconditional only through 0.25: `apply_sampling_params` copies at
# `gpu/sample/sampler.py:133` (0.22.0), `:144` (0.23.0), `:157` (0.24.0, 0.25.0, 0.25.1).
LEAN_SAMPLER_BYTES_PER_LOGIT = (4, 6, 12)
# From 0.26 the dummy batch's logits reach the sampler untouched (task h36samp, read in the
# 0.26.0, 0.27.0, 0.27.1, 0.28.0, 0.29.0, 0.30.0, 0.31.0, 0.32.0, 0.33.0 and 0.34.0 wheels):
# 0.26.0 keeps the model dtype and works in place, cloning only when raw logprobs are returned
# (`sampler.py:152-207`, the clone at `:168`); 0.27.0 on copy to fp32 only when a row needs
# processing (`_requires_logits_processing`, `sampler.py:155-156` in 0.27.0/0.27.1; the
# `needs_logits_processing` early return at `:192-193` in 0.28.0, `:218-219` in 0.29.0,
# `:220-221` in 0.30.0, `:235-236` in 0.31.0, `:238-239` in 0.32.0/0.33.0, `:235-236` in
# 0.34.0). The dummy batch registers no request (`InputBatch.make_dummy`), so its rows have
# temperature 0, min-p 0, top-k = vocab, top-p 1, no penalties, bias, bad words or logprobs (the
# states' initial values): nothing is processed, top-k/top-p are None and `gumbel_sample` reads
# the bf16 logits, keeping an int64 and an fp32 value per 1,024-logit block (0.012 B a logit,
# left out). Best and low: the bf16 logits alone, 2 B; high: the fp32 copy the same code makes
# when a row does need processing, 6 B. benchmarks/mrv2_sampler_peak.py measures 2.01 B a logit
# on CPU at 256 x 152,064. Read in the source, not fitted to a log.
UNTOUCHED_SAMPLER_BYTES_PER_LOGIT = (2, 2, 6)
# vLLM 0.33's Model Runner V2 profiles the sampler twice: the lean pass above, then a warm-up
# pass with top-k/top-p/min-p, penalties and logprobs on every row ("warmup_kernels ... pays for
# the fp32 logits pipeline, so the profiled peak must too", gpu/model_runner.py
# _dummy_sampler_run; SamplingParams.for_sampler_warmup). Its peak: the bf16 logits (2 B), their
# fp32 copy (4 B, gpu/sample/sampler.py apply_sampling_params; penalties, temperature and min-p
# in place) and FlashInfer's fused top-k/top-p sampling's fp32 probabilities (4 B); without
# FlashInfer (<= 16 SMs, unsupported GPUs) apply_top_k_top_p sorts them (fp32 values + int64
# indices, 12 B more). Read in the 0.33.0 source, not fitted to a log. Read again for issue #13
# (docs/engines-findings.md, "Model Runner V2's profiled activation"): FlashInfer 0.7.2.post1's
# top_k_first path adds a masked fp32 copy and fp32 probabilities (14 B), and without FlashInfer
# CUDA masks in place with Triton (6 B + SMs x vocab x 4 B); the sort runs only without Triton.
# FlashInfer is the default on CUDA GPUs it supports (the 0.33.0 wheel requires 0.7.2.post1), so
# the best figure is its 14 B (benchmarks/mrv2_sampler_peak.py measures 14.00 B a logit on CPU at
# 256 x 152,064); the Triton path's ~8 B and the sort's 18 B bound the interval. (10 B until
# stop 25, from the first reading, which missed the masked copy.)
WARMUP_SAMPLER_BYTES_PER_LOGIT = (6, 14, 18)
# V1 engine before Model Runner V2 (0.8-0.24; MoE to 0.28): Sampler.forward casts the logits to
# fp32 (4 B) and the PyTorch top-k/top-p path sorts them (fp32 values 4 B + int64 indices 8 B); V0's sampler
# also kept probabilities and log-probabilities for every logit (the 40 B above). Read in the
# source, checked on log 61 (vLLM 0.19, Llama-3.1-8B, H100: 1.89 GiB peak activation for 1,024
# rows x 128,256 vocab = 15.45 B a logit; moved to the fit part for it).
V1_SAMPLER_BYTES_PER_LOGIT = (12, 16, 28)


def model_dtype_logits(per_logit: tuple[int, int, int], act_bytes: int) -> tuple[int, int, int]:
    """Model Runner V2's sampler figures (LEAN_, UNTOUCHED_, WARMUP_SAMPLER_BYTES_PER_LOGIT) with
    their logits at `act_bytes` instead of 2 B: the lm_head writes the logits in the model dtype
    (`head_dtype` defaults to it; model_executor/layers/logits_processor.py:143 in 0.30.0), and
    the copy `torch.empty_like(logits, dtype=torch.float32).copy_(logits)` is made whatever that
    dtype (gpu/sample/sampler.py:157 in 0.25.0, :224 in 0.30.0), so an fp32 model adds 2 B a
    logit to the best and high figures, which count the logits; the low end is a floor and stays.
    The V1 sampler before Model Runner V2 casts to fp32 itself: its figures stay fixed."""
    low, best, high = per_logit
    extra = act_bytes - ACT_BYTES
    return (low, best + extra, high + extra)


FORWARD_SPREAD = (0.85, 1.0, 1.35)  # low, best, high factors on the forward estimate
COMPILE_SLACK = GIB // 4  # torch.compile / workspace scratch added to the high end only


@dataclass(frozen=True)
class ActivationModel:
    """The two candidate peaks and the interval taken from them."""

    forward_bytes: int
    forward_elements_per_token: int
    sampler_bytes: int
    sampler_rows: int
    peak: Interval
    formula: str


def forward_elements_per_token(model: ModelSpec, tp: int, moe_workspace: bool = False) -> int:
    """Elements alive per token at the forward pass's peak, on one tensor-parallel rank.

    `moe_workspace`: vLLM's modular MoE kernel sizes the scratch by its workspace shapes
    (kvplan.engines.vllm_moe_workspace) instead of the three intermediate caches."""
    h = model.hidden_size
    moe = model.moe
    if moe is not None and moe.moe_intermediate_size:
        mlp = (workspace_elements_per_token(model, tp) if moe_workspace else
               moe.experts_per_token * (3 * ceil_div(moe.moe_intermediate_size, tp) + h))
        if model.intermediate_size and moe.first_dense_layers:
            mlp = max(mlp, 3 * ceil_div(model.intermediate_size, tp))
    elif model.intermediate_size:
        mlp = 3 * ceil_div(model.intermediate_size, tp)
    else:
        mlp = 3 * 4 * ceil_div(h, tp)  # no intermediate size published: the classic 4 x hidden
    att = model.attention
    q_heads = ceil_div(model.num_attention_heads, tp)
    kv = kv_heads_per_gpu(att.num_kv_heads, tp)
    attn = q_heads * att.head_dim + 2 * kv * att.head_dim + q_heads * att.value_head_dim
    return 3 * h + max(mlp, attn)


def activation_peak(
    model: ModelSpec, tp: int, batched_tokens: int, sampler_rows: int, quantized: bool = False,
    sampler_bytes: tuple[int, int, int] = SAMPLER_BYTES_PER_LOGIT, moe_workspace: bool = False,
    act_bytes: int = ACT_BYTES,
) -> ActivationModel:
    """The profiled activation peak as an interval (bytes, one GPU).

    `sampler_bytes` is (low, best, high) bytes per logit; `sampler_rows` the rows this GPU
    samples (vLLM 0.29-0.31 shard them over tensor-parallel ranks); `act_bytes` the forward
    pass's element width (serving_act_bytes: 4 for a model served in fp32).
    """
    per_token = forward_elements_per_token(model, tp, moe_workspace)
    forward = batched_tokens * per_token * act_bytes
    sampler = [sampler_rows * model.vocab_size * b for b in sampler_bytes]
    best = max(forward, sampler[1])
    low = max(int(forward * FORWARD_SPREAD[0]), sampler[0])
    high = max(int(forward * FORWARD_SPREAD[2]), sampler[2]) + COMPILE_SLACK
    if quantized:
        high += 2 * GIB
    formula = (
        f"max(forward {batched_tokens:,} tok x {per_token:,} el x {act_bytes} B, "
        f"sampler {sampler_rows:,} rows x vocab {model.vocab_size:,} x "
        f"{sampler_bytes[1]} B)"
    )
    if moe_workspace and model.moe is not None and model.moe.moe_intermediate_size:
        formula += ("; the MoE scratch is vLLM's modular-kernel workspaces, top_k x "
                    "(max(I/tp, hidden) + max(2I/tp, hidden)) a token")
    return ActivationModel(
        forward_bytes=forward,
        forward_elements_per_token=per_token,
        sampler_bytes=sampler[1],
        sampler_rows=sampler_rows,
        peak=Interval(best, min(low, best), max(high, best)),
        formula=formula,
    )
