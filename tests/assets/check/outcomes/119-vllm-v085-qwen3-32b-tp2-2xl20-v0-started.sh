#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/17462 ("0.8.4/0.85 V1 engine serve Qwen3-32B USE L20*2 CUDA out of
#   memory but V0 no problem"), description by rainmaple, 2025-04-30: `vllm serve  Qwen3-32B --tensor-parallel-size 2`;
#   log "GPU KV cache size: 67,856 tokens", "Maximum concurrency for 16,384 tokens per request: 4.14x", then
#   "CUDA out of memory" after the compile (V1). The title says V0 has "no problem".
# Ambiguity: 16,384 tokens a request is not Qwen3-32B's 40,960 positions; the thread does not say why.
# GPU: "L20*2" -> side file l20. Model: the folder Qwen3-32B -> Qwen/Qwen3-32B.
# RECONSTRUCTED: the whole run: the title's "V0 no problem" written as VLLM_USE_V1=0 on the same command, pip pin 0.8.5.
pip install vllm==0.8.5
VLLM_USE_V1=0 vllm serve  Qwen3-32B --tensor-parallel-size 2
