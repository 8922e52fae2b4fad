#!/bin/bash
# 0.3.0-0.4.0.post1 take auto, fp8_e5m2 only
docker run --gpus all vllm/vllm-openai:v0.3.0 --model meta-llama/Meta-Llama-3-8B --kv-cache-dtype fp8
