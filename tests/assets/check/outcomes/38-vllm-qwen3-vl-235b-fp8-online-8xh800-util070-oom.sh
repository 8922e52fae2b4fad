#!/usr/bin/env bash
# Source: https://github.com/QwenLM/Qwen3-VL/issues/1489 ("8*A100 (80G) deploy Qwen3vl 235B-A22B-Instruct
#   cuda OOM"). The command below is the "example launch command" a maintainer (wulipc, 2025-09-24) posted,
#   copied verbatim (including its `Instruct\` with no space before the line continuation); the outcome
#   is a later comment that quotes it (aiiph4, 2025-09-28): "This will throw an OOM error on 8*H800."
# GPU: 8 x H800 (aiiph4's comment) -> 38-...kvplan.yaml names h800.
# Release: not stated; Qwen3-VL needed a vLLM nightly then (the maintainers: "install the newest vllm",
#   #1477), by date between 0.10.2 and 0.11.0: an inference, flagged in OUTCOMES.md. No container.
python -m vllm.entrypoints.openai.api_server \
  --model Qwen/Qwen3-VL-235B-A22B-Instruct\
  --served-model-name Qwen/Qwen3-VL-235B-A22B-Instruct \
  --tensor-parallel-size 8 \
  --mm-encoder-tp-mode data \
  --enable-expert-parallel \
  --host 0.0.0.0 \
  --port 22002 \
  --dtype bfloat16 \
  --gpu-memory-utilization 0.70 \
  --quantization fp8 \
  --distributed-executor-backend mp
