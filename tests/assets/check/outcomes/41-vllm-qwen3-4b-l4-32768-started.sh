#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/pull/49050 ("[Docs] quantized_kvcache: add measured performance
#   section, replace deprecated gated example model", description by robertlangdonn, 2026-07-18), "## Test
#   Plan": "NVIDIA L4 24 GB, vLLM 0.25.1 (pip install), Qwen/Qwen3-4B", then measured decode speed at 2k-32k
#   contexts with this server: it started and served, the outcome recorded here.
# The command below is that block's, copied verbatim without its trailing comment "# ± --kv-cache-dtype fp8"
#   (this file is the run without it; file 42 is the run with it).
# GPU: "NVIDIA L4 24 GB" (the post) -> 41-...kvplan.yaml names l4.
# Release: vLLM 0.25.1 (the post; pip install, no container: the script names no release).
vllm serve Qwen/Qwen3-4B --max-model-len 32768 --max-num-seqs 1 \
  --gpu-memory-utilization 0.90 --no-enable-prefix-caching
