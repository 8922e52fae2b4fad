#!/usr/bin/env bash
# Source: https://github.com/QwenLM/Qwen3/issues/1387 (description by lijiayi980130, 2025-05-09,
#   "4*A10 卡部署Qwen3-30B-A3B 报错了").
# TRANSCRIBED: the post gives the command one word group a line, without backslashes:
#   CUDA_VISIBLE_DEVICES=0,1,2,3
#   vllm serve /root/Qwen/Qwen3-30B-A3B
#   --tensor-parallel-size 4
#   --max-model-len 8192
#   --gpu-memory-utilization 0.7
#   --host 0.0.0.0
#   --port 8081
#   //--enable-reasoning --reasoning-parser deepseek_r1
#   --served-model-name Qwen3-30B-A3B-vllm
# joined here into the one command it describes; the `//` line (commented out by its author, not shell)
# is left out, nothing is added.
# GPU: A10 x 4 (the title; the OOM line: "GPU 1 has a total capacity of 21.99 GiB") -> 28-...kvplan.yaml.
# Release: not printed; taken as the 0.8.5 series from the log's "[multiproc_executor.py:470]", the line a
#   vLLM 0.8.5 log prints for the same model on 4 x A10 ten days earlier (vllm-project/vllm#17469 by cpwan,
#   "vLLM API server version 0.8.5"; an inference, flagged in OUTCOMES.md).
CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve /root/Qwen/Qwen3-30B-A3B --tensor-parallel-size 4 --max-model-len 8192 --gpu-memory-utilization 0.7 --host 0.0.0.0 --port 8081 --served-model-name Qwen3-30B-A3B-vllm
