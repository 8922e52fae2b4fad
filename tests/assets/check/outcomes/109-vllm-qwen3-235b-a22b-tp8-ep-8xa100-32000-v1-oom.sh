#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/18446 ("[Bug]: OOM Error with `Qwen/Qwen3-235B-A22B` on V1 Engine,
#   Works on V0 Engine"), description by Zerohertz, 2025-05-21: "When attempting to serve the Qwen/Qwen3-235B-A22B model,
#   an Out of Memory (OOM) error occurs if the V1 engine is used. However, the model serves correctly when using the V0
#   engine. I used `--kwargs` as below (both of V0 and V1): --gpu-memory-utilization 0.90 --tensor-parallel-size=8
#   --enable-expert-parallel --max-model-len 32000 --seed 42 --enable-auto-tool-choice --tool-call-parser hermes".
#   Environment (collect_env): "GPU 0: NVIDIA A100-SXM4-80GB ... GPU 7: NVIDIA A100-SXM4-80GB". This run (V1) did not
#   start, the outcome recorded here.
# RECONSTRUCTED: the post gives the arguments, not the command line; the command below is `vllm serve` of the title's
#   model with the post's arguments in its order, and `VLLM_USE_V1=1`, the engine the post names for this run (the only
#   difference from file 110).
# GPU: collect_env's 8 x "NVIDIA A100-SXM4-80GB" -> 109-...kvplan.yaml names a100-80gb.
# Release: not in the excerpt read (the post is of 2025-05-21, when 0.8.5.post1 was vLLM's newest release, whose
#   default engine is V1); the command pins none.
VLLM_USE_V1=1 vllm serve Qwen/Qwen3-235B-A22B --gpu-memory-utilization 0.90 --tensor-parallel-size=8 --enable-expert-parallel --max-model-len 32000 --seed 42 --enable-auto-tool-choice --tool-call-parser hermes
