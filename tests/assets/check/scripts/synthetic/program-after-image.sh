#!/bin/bash
# synthetic (task h41shell): `vllm serve` written after vllm/vllm-openai, whose entrypoint is it
docker run --gpus all vllm/vllm-openai:v0.9.0 vllm serve Qwen/Qwen2.5-7B-Instruct
