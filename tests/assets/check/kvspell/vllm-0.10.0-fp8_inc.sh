#!/bin/bash
# taken by 0.10.0's argparse; Intel Gaudi's: no NVIDIA cache kernel takes it
docker run --gpus all vllm/vllm-openai:v0.10.0 --model meta-llama/Meta-Llama-3-8B --kv-cache-dtype fp8_inc
