#!/bin/bash
# the sparse-MLA row, not modelled
docker run --gpus all vllm/vllm-openai:v0.11.1 --model meta-llama/Meta-Llama-3-8B --kv-cache-dtype fp8_ds_mla
