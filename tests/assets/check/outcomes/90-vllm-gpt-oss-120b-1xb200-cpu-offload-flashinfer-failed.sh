#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/33572 ("[Bug]: GPT-OSS with CPU KV cache offload break with
#   FlashInfer"), description by cquil11, 2026-02-02 (collect_env: "GPU 0: NVIDIA B200" ... eight B200s, PyTorch
#   2.9.1+cu129): "Serving with this script: [the script below]", then "Note that setting `--attention-backend
#   TRITON_ATTN`, the server runs with the same settings." and the stack trace, whose last lines read
#   "[cpu_gpu.py:248] Allocating 1 CPU tensors...", "[kernel_warmup.py:64] Warming up FlashInfer attention.",
#   "[flashinfer.py:365] Using TRTLLM attention (query is quantized).", "ERROR 02-02 ...". This server failed at start
#   (FlashInfer attention with the CPU KV offload, not memory: the same settings start on Triton attention, file 91),
#   the outcome recorded here.
# The script below is the post's, copied verbatim after the first line (the heredoc and the exports as posted).
# GPU: "NVIDIA B200" (collect_env; --tensor-parallel-size 1, one of them) -> 90-...kvplan.yaml names b200.
# Release: not in the excerpt read (the collect_env excerpt ends before vLLM's version); by date and PyTorch 2.9.1 the
#   0.15 series (an inference). The script names no release.

cat > config.yaml << EOF
kv-cache-dtype: fp8
compilation-config: '{"pass_config":{"fuse_allreduce_rms":true,"eliminate_noops":true}}'
async-scheduling: true
max-cudagraph-capture-size: 2048
max-num-batched-tokens: 8192
EOF

export TORCH_CUDA_ARCH_LIST="10.0"
export VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1
export PYTHONNOUSERSITE=1

vllm serve openai/gpt-oss-120b --host 0.0.0.0 --port 8888 \
--config config.yaml \
--gpu-memory-utilization 0.9 \
--tensor-parallel-size 1 \
--max-num-seqs 512 \
--kv_offloading_backend native \
--kv_offloading_size 200 \
--disable-hybrid-kv-cache-manager
