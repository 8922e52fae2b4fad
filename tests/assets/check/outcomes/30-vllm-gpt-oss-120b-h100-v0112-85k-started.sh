#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/33155 ("[Bug]: gptoss120B is OOM on one H100 after
#   upgrading from v0.11.2 to v0.14.1", description by tonyaw, 2026-01-27): "When to use v0.11.2, I can run
#   gpt-oss-120B on single H100 with 85K context length by following comand:".
# The command below is that first code block, copied verbatim (its variables `port` and `LOG_FILE` are not
#   set in the post).
# GPU: "single H100" (the post; CUDA_VISIBLE_DEVICES=1) -> 30-...kvplan.yaml names h100 (the variant, SXM,
#   PCIe or NVL, is not stated).
# Release: vLLM v0.11.2 (the post; run with `uv run`, no container, so the script itself names no release).
model_name="openai/gpt-oss-120b"
max_model_len=$((85 * 1024))

VLLM_LOGGING_LEVEL=DEBUG CUDA_VISIBLE_DEVICES=1 uv run vllm serve \
    $model_name \
    --host 0.0.0.0 --port $port \
    --gpu-memory-utilization 0.97 \
    -O3 \
    --enable-chunked-prefill --enable-prefix-caching \
    --async-scheduling \
    --max_num_seqs 100 \
    --tool-call-parser openai --enable-auto-tool-choice \
    --tensor-parallel-size 1 --max-model-len $max_model_len >> "$LOG_FILE" 2>&1 &
