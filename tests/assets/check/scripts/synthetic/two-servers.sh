#!/bin/bash
# synthetic (task h41shell): two servers on one machine, started in the background
CUDA_VISIBLE_DEVICES=0 nohup python3 -m sglang.launch_server \
  --model-path Qwen/Qwen2.5-7B-Instruct --context-length 8192 \
  --mem-fraction-static 0.8 --port 30000 > sglang.log 2>&1 &

CUDA_VISIBLE_DEVICES=1,2 vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2 \
  --max-model-len 8192 --port 8000 &
wait
