#!/bin/bash
# no draft model: moves nothing
docker run --gpus all lmsysorg/sglang:v0.5.18 python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B --speculative-draft-kv-cache-dtype bf16
