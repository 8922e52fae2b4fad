#!/usr/bin/env bash
# Source: https://github.com/vllm-project/recipes/pull/12 (description by Abirdcfly, 2025-08-04): the
#   post's second block, the same server with --gpu-memory-utilization 0.95, copied verbatim without its
#   "# " root prompt.
# GPU: H20 x 8 (the post; -dp=8) -> 26-...kvplan.yaml names h20. Release: vLLM 0.10.1.dev101 (the post).
vllm serve /tmp/model/Qwen3-Coder-480B-A35B-Instruct-FP8 --served-model-name Qwen3-Coder-480B-A35B-FP8 -dp=8  --enable-expert-parallel --enable-auto-tool-choice --tool-call-parser qwen3_coder --gpu-memory-utilization 0.95
