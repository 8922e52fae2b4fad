"""The engine options of size, fleet and explain: the engine, its version, and the settings
that move its pool (docs/engines.md). Each sets one field of the record (kvplan.plan.fields).
TensorRT-LLM's own settings live in kvplan.cli.engine_options_trtllm, re-exported here."""

from __future__ import annotations

from typing import Annotated

from kvplan.cli import sections as s
from kvplan.cli.engine_options_trtllm import (  # noqa: F401 - re-exported (TensorRT-LLM's own)
    FreeGpuFraction,
    MaxBatchSize,
    MaxNumTokens,
    MaxSeqLen,
    MaxTokensPaged,
    TokensPerBlock,
    TrtActivationBytes,
    TrtllmBackend,
    TrtllmConfig,
)
from kvplan.cli.options import _opt
from kvplan.cli.values import mm_count, non_negative

Engine = Annotated[str | None, _opt(
    "--engine", "-e", metavar="NAME", rich_help_panel=s.ENGINE,
    help="account as this engine does: ideal, vllm, sglang, trtllm, transformers [default: "
    "ideal: utilization x memory - weights - --reserve-gib, no engine's own terms]")]
EngineVersion = Annotated[str | None, _opt(
    "--engine-version", metavar="VERSION", rich_help_panel=s.ENGINE,
    help="the engine's release, for example 0.10.2 for vLLM or 0.4.6.post5 for SGLang "
    "(transformers: dynamic or static cache) [default: the newest release modelled, named on "
    "the output's Engine line; docs/engines.md lists them]")]
MaxBatched = Annotated[int | None, _opt(
    "--max-num-batched-tokens", metavar="TOKENS", rich_help_panel=s.ENGINE, min=1,
    help="tokens in one profiling/prefill batch [default: the engine's]")]
MaxSeqs = Annotated[int | None, _opt("--max-num-seqs", metavar="N", rich_help_panel=s.ENGINE, min=1,
                                     help="sequences per batch [default: the engine's]")]
# vLLM's own settings
EnforceEager = Annotated[bool | None, _opt(
    "--enforce-eager", metavar="", rich_help_panel=s.VLLM,
    help="vLLM: no CUDA graphs (none subtracted before sizing)")]
KvCacheMemoryBytes = Annotated[int | None, _opt(
    "--kv-cache-memory-bytes", metavar="BYTES", rich_help_panel=s.VLLM, min=1,
    help="vLLM: the KV pool per GPU, no profiling subtraction")]
CpuOffloadGb = Annotated[float | None, _opt(
    "--cpu-offload-gb", metavar="GIB", rich_help_panel=s.VLLM, callback=non_negative,
    help="vLLM: weight GiB per GPU kept in host memory")]
LimitMm = Annotated[int | None, _opt(
    "--limit-mm-per-prompt", metavar="ITEMS", rich_help_panel=s.VLLM, parser=mm_count,
    help="vLLM: multimodal items per prompt, summed over modalities: 2, image=2,video=1 or "
    "'{\"image\": 2}' (multimodal models only)")]
SpeculativeModel = Annotated[str | None, _opt(
    "--speculative-model", metavar="MODEL", rich_help_panel=s.VLLM,
    help="vLLM (and SGLang's --speculative-draft-model-path): the speculative-decoding draft "
    "model (catalog name, hf_id or spec file); its weights and KV cache join the target's")]
SpeculativeConfig = Annotated[str | None, _opt(
    "--speculative-config", metavar="JSON", rich_help_panel=s.VLLM,
    help='vLLM\'s form: \'{"model": DRAFT, "num_speculative_tokens": N}\' (a draft model)')]
NumSpeculativeTokens = Annotated[int | None, _opt(
    "--num-speculative-tokens", metavar="N", rich_help_panel=s.VLLM, min=1,
    help="vLLM: tokens the draft proposes per step (with --speculative-model)")]
TpTransport = Annotated[str | None, _opt(
    "--tp-transport", metavar="nvlink|pcie-p2p|host", rich_help_panel=s.VLLM,
    help="vLLM: how the tensor-parallel GPUs talk, which sets the TP non-torch term: nvlink "
    "(SXM/HGX boards), pcie-p2p (one node, P2P over PCIe), host (no P2P, or nodes without "
    "GPUDirect RDMA: NCCL's buffers in host memory) [default: by the GPU label]")]
DisableCustomAllReduce = Annotated[bool | None, _opt(
    "--disable-custom-all-reduce", metavar="", rich_help_panel=s.VLLM,
    help="vLLM: no custom all-reduce (its 16 MiB of IPC buffers off the TP term)")]
DisableHybridKvCacheManager = Annotated[bool | None, _opt(
    "--disable-hybrid-kv-cache-manager/--no-disable-hybrid-kv-cache-manager", metavar="",
    rich_help_panel=s.VLLM,
    help="vLLM 0.9.1+: cache every sliding-window layer as full attention when the model has "
    "full-attention layers too (its hybrid KV cache manager off); --no-... is the default")]
ChunkedLocalHybrid = Annotated[bool | None, _opt(
    "--chunked-local-hybrid/--no-chunked-local-hybrid", metavar="", rich_help_panel=s.VLLM,
    help="vLLM 0.10.1+: VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1, Llama 4's "
    "chunked layers kept in the hybrid KV cache manager; unset, vLLM turns it off and caches "
    "them as full attention")]
ExtensibleKvCache = Annotated[bool | None, _opt(
    "--enable-extensible-kv-cache/--no-enable-extensible-kv-cache", metavar="", rich_help_panel=s.VLLM,
    help="vLLM 0.34: size the pool after warm-up (on, the default) or, with --no-..., from the "
    "profiling estimate as 0.33 did, with gpu_memory_utilization 0.92 unless given "
    "(refused before 0.34)")]
TopkToppSampler = Annotated[str | None, _opt(
    "--topk-topp-sampler", metavar="native|flashinfer", rich_help_panel=s.VLLM,
    help="vLLM 0.8-0.16: the profiling sampler's top-k/top-p path: native (PyTorch's sort, "
    "38 B a logit) or flashinfer (16 B; FlashInfer installed, as in the vllm/vllm-openai image, "
    "and from 0.12 VLLM_USE_FLASHINFER_SAMPLER=1) [default: native, as pip installs 0.8-0.11 "
    "and 0.12-0.16 run]")]
Entrypoint = Annotated[str | None, _opt(
    "--entrypoint", metavar="serve|offline", rich_help_panel=s.VLLM,
    help="vLLM: how the engine is started: serve (`vllm serve`) or offline (the LLM(...) class, "
    "whose defaults profile 8,192 batched tokens where serve's are 2,048, 16,384 where 8,192) "
    "[default: serve]")]
CudagraphCaptureSizes = Annotated[str | None, _opt(
    "--cudagraph-capture-sizes", metavar="SIZES", rich_help_panel=s.VLLM,
    help="vLLM: the CUDA-graph capture sizes, comma-separated (1,2,4); those above "
    "max_num_batched_tokens are dropped, as vLLM drops them [default: the release's sizes]")]
MaxCudagraphCaptureSize = Annotated[int | None, _opt(
    "--max-cudagraph-capture-size", metavar="TOKENS", rich_help_panel=s.VLLM, min=1,
    help="vLLM: the largest CUDA-graph capture size [default: 2 x max_num_seqs, at most 512]")]
CudagraphMode = Annotated[str | None, _opt(
    "--cudagraph-mode", metavar="MODE", rich_help_panel=s.VLLM,
    help="vLLM compilation_config cudagraph_mode: NONE, PIECEWISE, FULL, FULL_DECODE_ONLY or "
    "FULL_AND_PIECEWISE [default: FULL_AND_PIECEWISE]")]
# SGLang's own settings and names
PageSize = Annotated[int | None, _opt(
    "--page-size", metavar="TOKENS", rich_help_panel=s.SGLANG, min=1,
    help="SGLang (and TensorRT-LLM): tokens per page (engine.block_size) [default: 1; "
    "TensorRT-LLM 32]")]
ChunkedPrefill = Annotated[int | None, _opt(
    "--chunked-prefill-size", metavar="TOKENS", rich_help_panel=s.SGLANG, min=1,
    help="SGLang: prefill chunk (engine.max_num_batched_tokens) [default: by GPU memory]")]
CudaGraphMaxBs = Annotated[int | None, _opt(
    "--cuda-graph-max-bs", metavar="N", rich_help_panel=s.SGLANG, min=1,
    help="SGLang: largest CUDA-graph batch [default: by GPU memory and TP]")]
MaxRunning = Annotated[int | None, _opt(
    "--max-running-requests", metavar="N", rich_help_panel=s.SGLANG, min=1,
    help="SGLang: sequences at once (engine.max_num_seqs)")]
MaxTotalTokens = Annotated[int | None, _opt(
    "--max-total-tokens", metavar="TOKENS", rich_help_panel=s.SGLANG, min=1,
    help="SGLang: caps the token pool")]
AttentionBackend = Annotated[str | None, _opt(
    "--attention-backend", metavar="NAME", rich_help_panel=s.SGLANG,
    help="SGLang: its --attention-backend (triton, flashinfer, fa3, aiter, ...); aiter (ROCm "
    "only) scales mem_fraction_static by 0.85 above 8,192 tokens [default: unstated]")]
MmFeatureTransport = Annotated[str | None, _opt(
    "--mm-feature-transport", metavar="NAME", rich_help_panel=s.SGLANG,
    help="SGLang: cpu, cuda_ipc or cuda_vmm; from 0.5.18 a multimodal model's KV budget leaves "
    "out 100 MiB of embedding cache, and 1,024 MiB more for a GPU transport [default: cpu; "
    "cuda_ipc for Qwen3-VL on a large Hopper GPU from 0.5.20]")]

Ep = Annotated[int | None, _opt(
    "--ep", metavar="RANKS", rich_help_panel=s.GPU, min=1,
    help="expert-parallel ranks (MoE only; must divide the experts): vLLM's is tp x dp, "
    "SGLang's and TensorRT-LLM's divide tp")]
