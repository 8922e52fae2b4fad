#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/14726 ("[Usage]: how can i run deepseek-ai/deepseek-V3 with
#   vllm?"), description by lddlww, 2025-03-13: "i have two nodes，each node has 8 L40 GPU（48GiB per GPU）；we used
#   ray+vllm to run deepseek-ai/deepseek-V3，however it throw error with CUDA out of memory：" then the command below
#   and a traceback through `vllm/attention/backends/mla/utils.py", line 378, in process_weights_after_loading` ->
#   `W_UV_O, W_UV_O_scales = scaled_quantize(` (ERROR 03-12 19:41:13, RayWorkerWrapper on the second node).
# The command below is the post's, copied verbatim (run on the Ray head node; one engine over both nodes' GPUs).
# GPU: "two nodes, each node has 8 L40 GPU (48GiB per GPU)" -> 70-...kvplan.yaml names l40; the model behind the
#   folder /root/.cache/huggingface/deepseek-V3/ (the post: deepseek-ai/deepseek-V3) there.
# Release: not printed in the excerpt read; by date (2025-03-12, after v0.7.3 of 2025-02-20 and before v0.8.0 of
#   2025-03-18) the 0.7.3 series (an inference). The script names no release.
vllm serve /root/.cache/huggingface/deepseek-V3/ --tensor-parallel-size 8 --pipeline-parallel-size 2 --trust-remote-code --gpu-memory-utilization 1 --kv-cache-dtype fp8 --distributed-executor-backend ray --max-num-seqs 1 --dtype half
