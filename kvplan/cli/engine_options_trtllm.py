"""TensorRT-LLM's engine options of size, fleet and explain (its own settings, and its names for
the shared ones), split out of kvplan.cli.engine_options, which re-exports them (task
h91fp8block: that module passed 150 lines). Each sets one field of the record
(kvplan.plan.fields)."""

from __future__ import annotations

from typing import Annotated

from kvplan.cli import sections as s
from kvplan.cli.options import _opt, _util

MaxBatchSize = Annotated[int | None, _opt(
    "--max-batch-size", metavar="N", rich_help_panel=s.TRTLLM, min=1,
    help="TensorRT-LLM: sequences at once (engine.max_num_seqs)")]
MaxNumTokens = Annotated[int | None, _opt(
    "--max-num-tokens", metavar="TOKENS", rich_help_panel=s.TRTLLM, min=1,
    help="TensorRT-LLM: tokens per batch (engine.max_num_batched_tokens) [default: 8,192]")]
MaxSeqLen = Annotated[int | None, _opt(
    "--max-seq-len", metavar="TOKENS", rich_help_panel=s.TRTLLM, min=1,
    help="TensorRT-LLM: the longest sequence (engine.max_model_len)")]
TokensPerBlock = Annotated[int | None, _opt(
    "--tokens-per-block", metavar="TOKENS", rich_help_panel=s.TRTLLM, min=1,
    help="TensorRT-LLM: tokens per KV block (engine.block_size) [default: 32]")]
FreeGpuFraction = Annotated[float | None, _opt(
    "--free-gpu-memory-fraction", metavar="SHARE", rich_help_panel=s.TRTLLM, callback=_util,
    help="TensorRT-LLM: share of the free memory for the cache "
    "(engine.gpu_memory_utilization) [default: 0.9]")]
MaxTokensPaged = Annotated[int | None, _opt(
    "--max-tokens-in-paged-kv-cache", metavar="TOKENS", rich_help_panel=s.TRTLLM, min=1,
    help="TensorRT-LLM: caps the pool (the smaller of this and the fraction's)")]
TrtActivationBytes = Annotated[int | None, _opt(
    "--trt-activation-bytes", metavar="BYTES", rich_help_panel=s.TRTLLM, min=1,
    help="TensorRT-LLM: the TensorRT engine's execution-context memory (trtllm-build's "
    "\"Total Activation Memory\"), instead of the forward-pass estimate")]
TrtllmBackend = Annotated[str | None, _opt(
    "--trtllm-backend", metavar="NAME", rich_help_panel=s.TRTLLM,
    help="TensorRT-LLM: trtllm-serve's --backend, pytorch or tensorrt (a TensorRT engine) "
    "[default: pytorch from 1.0, tensorrt before]")]
TrtllmConfig = Annotated[str | None, _opt(
    "--trtllm-config", metavar="FILE", rich_help_panel=s.TRTLLM,
    help="TensorRT-LLM: an --extra_llm_api_options YAML or an engine's config.json; its "
    "limits (max_batch_size, max_num_tokens, max_seq_len, tokens_per_block, ...), cache dtype, "
    "parallel layout and backend are read")]
