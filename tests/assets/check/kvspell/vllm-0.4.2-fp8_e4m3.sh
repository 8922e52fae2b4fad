#!/bin/bash
# 0.4.1-0.4.2 take auto, fp8 only
docker run --gpus all vllm/vllm-openai:v0.4.2 --model meta-llama/Meta-Llama-3-8B --kv-cache-dtype fp8_e4m3
