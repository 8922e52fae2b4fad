#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/pull/49050 (description by robertlangdonn, 2026-07-18), "## Test
#   Plan": the same server as file 41 run "± --kv-cache-dtype fp8" (the block's trailing comment); the post
#   measured both ("KV cache capacity doubles exactly at the same reservation"): it started and served.
# The command below is that block's with the comment's `--kv-cache-dtype fp8` appended (the one word the
#   comment adds; nothing else changed).
# GPU: "NVIDIA L4 24 GB" -> 42-...kvplan.yaml names l4.
# Release: vLLM 0.25.1 (the post; pip install, no container).
vllm serve Qwen/Qwen3-4B --max-model-len 32768 --max-num-seqs 1 \
  --gpu-memory-utilization 0.90 --no-enable-prefix-caching --kv-cache-dtype fp8
