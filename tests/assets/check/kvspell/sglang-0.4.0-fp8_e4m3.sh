#!/bin/bash
# fp8_e4m3 came in SGLang 0.4.1.post6
docker run --gpus all lmsysorg/sglang:v0.4.0 python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B --kv-cache-dtype fp8_e4m3
