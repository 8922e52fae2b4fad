#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/21361 ("[Bug]: OOM Error with Qwen/Qwen3-235B-A22B on Python SDK"),
#   description by lucky0604, 2025-07-22: "When I start the service using the command: [the command below] it runs
#   successfully." Environment: "vllm 0.8.3 ... Hardware: H20 8 x 96G". This server started, the outcome recorded here.
# The command below is the post's, copied verbatim.
# GPU: "H20 8 x 96G" -> 105-...kvplan.yaml names h20.
# Model: the folder /data/model/Qwen/Qwen3-235B-A22B (the title names Qwen/Qwen3-235B-A22B) -> the side file names it.
# Release: vLLM 0.8.3 (the post's environment); the command pins none.
vllm serve /data/model/Qwen/Qwen3-235B-A22B --host 0.0.0.0 --port 4000 --enable-auto-tool-choice --tool-call-parser hermes --tensor-parallel-size 8 --served-model-name Qwen3-235B-A22B --gpu-memory-utilization 0.9 --max-model-len 25000
