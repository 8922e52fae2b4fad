#!/bin/sh
# synthetic (task h41shell): docker run with --gpus '"device=0,1"', the container's env, and
# the options kvplan passes over on purpose (-p, -v, --shm-size, --ipc, --name, -d, --rm)
docker run -d --rm --name qwen \
  --gpus '"device=0,1"' \
  -e VLLM_USE_V1=0 \
  --shm-size 16g --ipc=host -p 8000:8000 -v ~/.cache/huggingface:/root/.cache/huggingface \
  vllm/vllm-openai:v0.8.5 \
  --model Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 8192
