#!/usr/bin/env bash
# Source: https://github.com/QwenLM/Qwen3-VL/issues/1489, comment by aiiph4, 2025-09-28: "The following code
#   can run smoothly on 8*H800" (after "This will throw an OOM error on 8*H800" about file 38's command).
# The command below is that comment's code block, copied verbatim.
# GPU: 8 x H800 (the comment) -> 39-...kvplan.yaml names h800.
# Release: as file 38 (a vLLM nightly between 0.10.2 and 0.11.0, by date): an inference. No container.
python -m vllm.entrypoints.openai.api_server \
  --model Qwen/Qwen3-VL-235B-A22B-Instruct \
  --served-model-name Qwen/Qwen3-VL-235B-A22B-Instruct \
  --tensor-parallel-size 8 \
  --mm-encoder-tp-mode data \
  --enable-expert-parallel \
  --host 0.0.0.0 \
  --port 8419 \
  --dtype bfloat16 \
  --gpu-memory-utilization 0.9 \
  --max-model-len 41960 \
  --max-num-batched-tokens 128 \
  --distributed-executor-backend mp
