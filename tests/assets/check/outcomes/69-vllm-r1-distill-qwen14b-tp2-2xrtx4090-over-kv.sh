#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/13061 ("[Usage]: KV Cache not make use of two 4090's gpu"),
#   description by stg609, 2025-02-11: "I want to run inference of a deepseek-ai/DeepSeek-R1-Distill-Qwen-14B on two
#   4090s. ... [the command below] vllm throws an exception: `ValueError: The model's max seq len (131072) is larger
#   than the maximum number of tokens that can be stored in KV cache (81536). Try increasing
#   `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.`" and "the model weights
#   only tooks 13.9476 GB, non_torch_memory takes 0.25GiB; PyTorch activation peak memory takes 0.19GiB; ... the
#   rest of the memory reserved for KV Cache is only 8.69GiB"; "I know I can use max_model_len to fix the issue".
# The command below is the post's, copied verbatim (the post fences it as ```python).
# GPU: "two 4090s" (RTX 4090 24 GB; TP 2) -> 69-...kvplan.yaml names rtx-4090; the model behind the folder there.
# Release: not printed in the excerpt read; the log's tags (`model_runner.py:1115] Loading model weights took`,
#   `multiproc_worker_utils.py:124`) are the V0 engine's, and the date (2025-02-11) is the 0.7.2 series (an
#   inference). The script names no release.
vllm serve --trust-remote-code --tensor_parallel_size 2 --gpu_memory_utilization=0.98  /root/autodl-tmp/deepseek-ai/DeepSeek-R1-Distill-Qwen-14B
