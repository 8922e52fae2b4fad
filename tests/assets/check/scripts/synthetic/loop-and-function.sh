#!/bin/bash
# synthetic (task h41shell): servers whose words come from a loop and from a function's
# arguments: refused with the reason, never guessed
for m in Qwen/Qwen2.5-7B-Instruct meta-llama/Llama-3.1-8B-Instruct; do
  vllm serve "$m" --port 8000 &
done

start() {
  docker run -d --gpus all vllm/vllm-openai:v0.8.5 --model "$1"
}
start Qwen/Qwen2.5-7B-Instruct
