#!/bin/bash
# fp8_inc came in vLLM 0.10.0: 0.9.2's argparse refuses it
docker run --gpus all vllm/vllm-openai:v0.9.2 --model meta-llama/Meta-Llama-3-8B --kv-cache-dtype fp8_inc
