#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/33155 (description by tonyaw, 2026-01-27): "But the
#   similar command got OOM even with very little max_model_len and max_num_seqs:" (under v0.14.1, the title).
# The command below is that second code block, copied verbatim (`port` and `LOG_FILE` are not set in the post).
# GPU: the same single H100 -> 31-...kvplan.yaml names h100.
# Release: vLLM v0.14.1 (the title; `uv run`, no container, so the script itself names no release).
model_name="openai/gpt-oss-120b"
max_model_len=$((5 * 1024)) 

CUDA_VISIBLE_DEVICES=1 uv run vllm serve \
    $model_name \
    --host 0.0.0.0 --port $port \
    --gpu-memory-utilization 0.97 \
    -O3 \
    --enable-chunked-prefill --enable-prefix-caching \
    --async-scheduling \
    --max_num_seqs 1 \
    --tool-call-parser openai --enable-auto-tool-choice \
    --tensor-parallel-size 1 --max-model-len $max_model_len >> "$LOG_FILE" 2>&1 &
