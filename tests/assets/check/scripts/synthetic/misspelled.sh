#!/bin/bash
# synthetic (task h41shell): an option no vLLM release knows, under an image that names 0.8.5
docker run --gpus 1 vllm/vllm-openai:v0.8.5 \
  --model Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilisation 0.8
