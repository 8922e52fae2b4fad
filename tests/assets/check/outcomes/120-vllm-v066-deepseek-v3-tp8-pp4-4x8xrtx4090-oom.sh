#!/usr/bin/env bash
# Source: https://github.com/deepseek-ai/DeepSeek-V3/issues/205, description by aisensiy, 2025-01-02: 4 nodes x 8 RTX
#   4090, vLLM "latest version (0.6.6)" over Ray; the script below (export + vllm serve) is the post's; log "Loading
#   model weights took 16.9583 GB" (RayWorkerWrapper) then CUDA out of memory: failed, the outcome recorded here.
# RECONSTRUCTED: the pip pin 0.6.6 (the post names the release, not an install line).
# GPU: "4090" -> side file rtx-4090.
pip install vllm==0.6.6
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True"
vllm serve deepseek-ai/DeepSeek-V3 --trust-remote-code --host 0.0.0.0 --port $PORT --gpu-memory-utilization 0.98 --max-model-len 128 --tensor-parallel-size 8 --pipeline-parallel-size 4 --enforce-eager
