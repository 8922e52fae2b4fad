#!/usr/bin/env bash
# Source: https://github.com/gpustack/gpustack/issues/1800 ("Qwen2.5-VL-7B failed to start with 3090 24GB with
#   V0 engine by default", description by pengjiang80, 2025-04-17): "Tried to deploy Qwen2.5-VL-7B with default
#   config, model failed to start with error as below", the log ending `ValueError: The model's max seq len
#   (8192) is larger than the maximum number of tokens that can be stored in KV cache (2400).`: the server
#   failed at start, the outcome recorded here.
# RECONSTRUCTED from the log, not copied: GPUStack starts `vllm serve` itself; its args line shows
#   model_tag='/var/lib/gpustack/cache/model_scope/Qwen/Qwen2.5-VL-7B-Instruct', host='0.0.0.0', port=40010
#   before the excerpt is cut. The error's "max seq len (8192)" (the model's own is 128,000) is the
#   --max-model-len 8192 GPUStack passes (its log in gpustack/gpustack#2356 shows that flag for the same model
#   family); every other setting is written as vLLM's default.
# GPU: "3090 24GB" (the title) -> 55-...kvplan.yaml names rtx-3090 and the model behind the folder.
# Release: vLLM 0.8.4 (log: "vLLM API server version 0.8.4"), the V0 engine (the title; the traceback runs
#   through vllm/worker/worker.py). No container, the script names no release.
vllm serve /var/lib/gpustack/cache/model_scope/Qwen/Qwen2.5-VL-7B-Instruct --max-model-len 8192 --host 0.0.0.0 --port 40010
