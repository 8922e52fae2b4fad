#!/bin/bash
# synthetic (task h41shell): alternatives are refused, a guarded start is read (noted), and a
# one-line function body is a function body
case "$1" in
  small) vllm serve Qwen/Qwen2.5-7B-Instruct ;;
  large) vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2 ;;
esac

if [ -n "$SGLANG" ]; then
  python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct
else
  vllm serve Qwen/Qwen2.5-7B-Instruct
fi

serve() { vllm serve "$1" --port 8000; }

if [ -d /data ]; then
  vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192
fi
