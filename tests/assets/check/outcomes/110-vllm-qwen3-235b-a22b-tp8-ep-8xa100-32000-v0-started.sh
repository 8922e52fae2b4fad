#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/18446 ("[Bug]: OOM Error with `Qwen/Qwen3-235B-A22B` on V1 Engine,
#   Works on V0 Engine"), description by Zerohertz, 2025-05-21: "... the model serves correctly when using the V0
#   engine. I used `--kwargs` as below (both of V0 and V1): --gpu-memory-utilization 0.90 --tensor-parallel-size=8
#   --enable-expert-parallel --max-model-len 32000 --seed 42 --enable-auto-tool-choice --tool-call-parser hermes".
#   Environment (collect_env): 8 x "NVIDIA A100-SXM4-80GB". This run (V0) started and served, the outcome recorded here.
# RECONSTRUCTED: the post gives the arguments, not the command line; the command below is `vllm serve` of the title's
#   model with the post's arguments in its order, and `VLLM_USE_V1=0`, the engine the post names for this run (the only
#   difference from file 109).
# GPU: collect_env's 8 x "NVIDIA A100-SXM4-80GB" -> 110-...kvplan.yaml names a100-80gb.
# Release: not in the excerpt read (2025-05-21: 0.8.5.post1 was the newest release); the command pins none.
VLLM_USE_V1=0 vllm serve Qwen/Qwen3-235B-A22B --gpu-memory-utilization 0.90 --tensor-parallel-size=8 --enable-expert-parallel --max-model-len 32000 --seed 42 --enable-auto-tool-choice --tool-call-parser hermes
