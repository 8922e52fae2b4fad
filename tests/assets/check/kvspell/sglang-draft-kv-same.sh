#!/bin/bash
# the draft at the target's cache dtype: applied
docker run --gpus all lmsysorg/sglang:v0.5.18 python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B --kv-cache-dtype fp8_e4m3 --speculative-algorithm EAGLE --speculative-draft-model-path llama-3.2-1b --speculative-draft-kv-cache-dtype fp8_e4m3
