#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/27508 ("[Bug]: openai/gpt-oss-120b can't run on H100"),
#   comment by matheusfvesco, 2025-10-31: "I tried the provided command (`vllm serve openai/gpt-oss-120b
#   --gpu-memory-utilization 0.95 --max-num-batched-tokens 1024`) and still got the same error about the kv
#   cache, requiring me to decrease the context or increase even more the memory utilization."
# The command below is that comment's, copied verbatim.
# GPU: "NVIDIA H100 80GB HBM3" (nvidia-smi in the description, 2025-10-25, 0MiB / 81559MiB in use)
#   -> 32-...kvplan.yaml names h100.
# Release: not printed in the excerpt read; the conda env (python3.13, `vllm/v1/engine/core.py`) and the
#   date give the 0.11.0 release (0.11.0 was the newest on PyPI from 2025-10-02 to 0.11.1 in mid-November):
#   an inference, flagged in OUTCOMES.md. No container, so the script itself names no release.
vllm serve openai/gpt-oss-120b --gpu-memory-utilization 0.95 --max-num-batched-tokens 1024
