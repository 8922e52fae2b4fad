#!/usr/bin/env bash
# Source: https://github.com/gpustack/gpustack/issues/2259 (description by Finenyaco, log of 2025-06-19,
#   "The auto-scheduling results do not meet the requirement of being divisible by the number of attention
#   heads"; Environment: "GPUStack version: v0.6.2 ... GPU: RTX 3090 * 4").
# GPUStack starts the server itself; its log line "gpustack.worker.backends.vllm - DEBUG - Run vllm with
#   arguments: serve /root/workspace/.../gemma-3-27b-it --max-model-len 8192 --tensor-parallel-size 3
#   --host 0.0.0.0 --port 40059 --served-model-name gemma-3-27b-it" is copied below verbatim, after the
#   `vllm` program it is given to (the log's next lines: "vLLM API server version 0.8.5.post1").
# GPU: RTX 3090 (the issue), 3 of the 4 used (tensor parallel 3) -> 27-...kvplan.yaml names rtx-3090, and
#   the model: the folder is ModelScope's LLM-Research/gemma-3-27b-it, a mirror of google/gemma-3-27b-it.
vllm serve /root/workspace/d19ndanhri0c73dr6i5g/cache/model_scope/LLM-Research/gemma-3-27b-it --max-model-len 8192 --tensor-parallel-size 3 --host 0.0.0.0 --port 40059 --served-model-name gemma-3-27b-it
