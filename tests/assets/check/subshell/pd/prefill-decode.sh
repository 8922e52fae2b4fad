#!/usr/bin/env bash
# synthetic (task h43scripts): two servers, each started in a subshell from its own folder
cd "$(dirname "$0")"
(cd prefill && CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve meta-llama/Llama-3.1-70B-Instruct --config serve.yaml --port 8100) &
( cd decode && CUDA_VISIBLE_DEVICES=4,5,6,7 vllm serve meta-llama/Llama-3.1-70B-Instruct --config serve.yaml --port 8200 ) &
wait
