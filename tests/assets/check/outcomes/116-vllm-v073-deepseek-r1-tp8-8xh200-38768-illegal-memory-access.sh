#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/14965 ("[Bug]: An illegal memory access was encountered with
#   DeepSeek-R1 on 8xH200"), description by eldarkurtic, 2025-03-17: "Installed vllm with `uv pip install vllm` - Tried to
#   serve the model with [the command below] - Error: `RuntimeError: Triton Error [CUDA]: an illegal memory access was
#   encountered`"; its log: "vLLM API server version 0.7.3". This server did not start (a kernel error, not an
#   out-of-memory), the outcome recorded here.
# The command below is the post's, copied verbatim.
# GPU: the title's "8xH200" -> 116-...kvplan.yaml names h200.
# Release: vLLM 0.7.3 (the log; `uv pip install vllm`, unpinned, in March 2025); the command pins none.
vllm serve "deepseek-ai/DeepSeek-R1" -tp 8 --max-model-len 38768 --max-num-batched-tokens 38768 --gpu-memory-utilization 0.9 --trust-remote-code --port 1234
