#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/16414 ("Llama4 Scout fails on H200"), description by jjk-g,
#   2025-04-10: container `command: python3 -m vllm.entrypoints.openai.api_server`, args `--model=meta-llama/Llama-4-
#   Scout-17B-16E-Instruct --disable-log-requests --gpu-memory-utilization=0.95 --max-model-len=3600000
#   --tensor-parallel-size=8`; log "vLLM API server version 0.8.3"; "observed ~1000 successful requests" before a hang
#   under load: the server started, the outcome recorded here.
# RECONSTRUCTED: the manifest's command and args are joined into one line; the pip pin writes the release the log names.
# GPU: the title's H200 (8, TP 8) -> side file h200.
pip install vllm==0.8.3
python3 -m vllm.entrypoints.openai.api_server --model=meta-llama/Llama-4-Scout-17B-16E-Instruct --disable-log-requests --gpu-memory-utilization=0.95 --max-model-len=3600000 --tensor-parallel-size=8
