#!/bin/sh
# source: find_string index id 39689115050 (a benchmark README: vLLM 0.10.2 on 2 x NVIDIA L40S,
# `vllm --version` 0.10.2; its log: "GPU KV cache size: 566,016 tokens", "Maximum concurrency
# for 32,768 tokens per request: 17.27x"); the command copied whole from its ```sh block
vllm serve Qwen/Qwen3-30B-A3B-Instruct-2507-FP8 \
    --tensor-parallel-size 2 \
    --enable-expert-parallel \
    --gpu-memory-utilization 0.95 \
    --swap-space 0 \
    --max-model-len 32K
