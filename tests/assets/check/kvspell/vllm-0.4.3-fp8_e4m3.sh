#!/bin/bash
# taken from 0.4.3: planned as 1-byte fp8
docker run --gpus all vllm/vllm-openai:v0.4.3 --model meta-llama/Meta-Llama-3-8B --kv-cache-dtype fp8_e4m3
