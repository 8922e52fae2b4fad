#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/18124 ("[Usage]: A100 vllm部署Qwen2.5-VL-3B-Instruct，load模型之后
#   报错No available memory for the cache blocks", description by qinkongyouyun, 2025-05-14; the same post is
#   QwenLM/Qwen3-VL#1205): "命令：vllm serve Qwen/Qwen2.5-VL-3B-Instruct --gpu-memory-utilization 0.3，80G的显卡
#   --gpu-memory-utilization 0.3是24G" (command: ...; an 80G card, utilization 0.3 is 24G), and the title: after
#   loading the model, "No available memory for the cache blocks": the server failed at start, the outcome here.
# The command below is the post's, copied verbatim.
# GPU: "A100" (title), "80G的显卡" (an 80G card; SXM or PCIe not stated) -> 60-...kvplan.yaml names a100-80gb.
# Release: not printed in the excerpt read (its pip list is cut before vllm); by date (2025-05-14) the 0.8.5
#   series (0.8.5 of 2025-04-28, 0.8.5.post1 of 2025-05-02): an inference, flagged in OUTCOMES.md. pip install,
#   no container: the script names no release.
vllm serve Qwen/Qwen2.5-VL-3B-Instruct --gpu-memory-utilization 0.3
