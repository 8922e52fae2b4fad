#!/usr/bin/env bash
# Source: https://github.com/QwenLM/Qwen3-VL/issues/1493 ("Qwen3-VL-235B-A22B-Instruct raise OOM with
#   vLLM，while I use 8 × H20（96G）", Pig255), comment of 2025-09-25: "I have already run this command, also
#   OOM" after `uv pip install -U vllm ... --extra-index-url https://wheels.vllm.ai/nightly`.
# The command below is that comment's, copied verbatim (including `--enable-expert-paralle`, a prefix of
#   --enable-expert-parallel that argparse accepts).
# GPU: "8 × H20（96G）" (the title) -> 40-...kvplan.yaml names h20 and the model (a folder here).
# Release: a vLLM nightly wheel of 2025-09-25 (between 0.10.2 and 0.11.0): from the comment's install line.
#   No container.
python3 -m vllm.entrypoints.openai.api_server --model /data/models/Qwen3-VL-235B-A22B-Instruct --host 0.0.0.0 --port=80 --disable-log-requests --seed 0 --tensor_parallel_size=8 --trust-remote-code --gpu-memory-utilization 0.70 --mm-encoder-tp-mode data --enable-expert-paralle --distributed-executor-backend mp --dtype bfloat16 --quantization fp8 --max_model_len 8192
