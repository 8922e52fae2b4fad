#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/17327 ("[Usage] Qwen3 Usage Guide"), comment by
#   Silencezjl, 2025-04-30: "我的环境是Ubuntu 22.04 & vLLM v0.8.5 & pytorch 2.6.0+cu124 & 4 * H20 96GB ...
#   我使用默认的 `vllm serve ./Qwen3-235B-A22B --tensor-parallel-size 4` 来运行，会出现OOM的情况
#   （尝试过--gpu-memory-utilization 参数没法解决）。默认参数使用8*H20可以成功运行".
# The command below is the comment's, copied verbatim.
# GPU: 4 x H20 96GB (the comment) -> 29-...kvplan.yaml names h20; the model is a folder, named there by
#   the Hugging Face id its name gives (Qwen/Qwen3-235B-A22B).
# Release: vLLM v0.8.5 (the comment; started outside a container, so the script itself names no release).
vllm serve ./Qwen3-235B-A22B --tensor-parallel-size 4
