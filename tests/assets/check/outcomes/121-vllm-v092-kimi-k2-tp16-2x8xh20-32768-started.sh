#!/usr/bin/env bash
# Source: https://github.com/MoonshotAI/Kimi-K2/issues/51, description by shisunniupi-ops, 2025-07-23:
#   "使用H20x16 (96x16)、vllm==0.9.2 tp16部署时max-model-len32k可部署成功，但是128k、64k报错cuda out of menory"
#   (16 H20 96 GB, vllm 0.9.2, TP 16: 32k deploys, 128k and 64k fail with CUDA out of memory).
# RECONSTRUCTED: the command (the post gives none): ray start + vllm serve of moonshotai/Kimi-K2-Instruct over Ray at
#   TP 16 with the max-model-len the post names, pip pin 0.9.2. GPU: H20 -> side file h20.
pip install vllm==0.9.2
ray start --head --port=6379 && \
    vllm serve moonshotai/Kimi-K2-Instruct --trust-remote-code --tensor-parallel-size 16 --distributed-executor-backend ray --max-model-len 32768
