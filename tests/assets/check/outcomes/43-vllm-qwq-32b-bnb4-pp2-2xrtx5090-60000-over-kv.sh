#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/14452 ("[Doc]: Steps to run vLLM on your RTX5080 or
#   5090!"), comment by JiapengLi, 2025-04-23: "failed to serve QwQ-32B-unsloth-bnb-4bit with
#   `--max-model-len` set to 60000", log: "ValueError: The model's max seq len (60000) is larger than the
#   maximum number of tokens that can be stored in KV cache (58384)." ("I have 2 RTX5090").
# The command below is the one the comment ran (after the `root@470dedf7290d:/models#` prompt), verbatim.
# GPU: 2 x RTX 5090 ("I have 2 RTX5090"; --pipeline-parallel-size 2) -> 43-...kvplan.yaml names rtx-5090 and
#   the model behind the folder (an unsloth bitsandbytes 4-bit export of QwQ-32B).
# Release: vLLM 0.8.5.dev169+gce17db808.d20250423 (the log: "vLLM API server version ..."), a source build.
python3 -m vllm.entrypoints.openai.api_server   --model /models/QwQ-32B-unsloth-bnb-4bit   --pipeline-parallel-size 2   --trust-remote-code   --gpu-memory-utilization 0.85   --max-model-len 60000   --enable-reasoning   --reasoning-parser deepseek_r1   --device cuda
