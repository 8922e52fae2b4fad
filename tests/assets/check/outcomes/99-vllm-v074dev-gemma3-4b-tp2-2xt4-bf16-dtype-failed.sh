#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/14817 ("[Bug]: Gemma-3 models output empty text."), comment by
#   gotoolkits, 2025-03-14: "# vllm serve google/gemma-3-4b-it --tensor-parallel-size 2 --gpu-memory-utilization 0
#   .9 --max-model-len=17370 --port 8001" then "ERROR 03-14 20:19:53 [engine.py:411] ValueError: Bfloat16 is only
#   supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU has compute capability 7.5. You can
#   use float16 instead by explicitly setting the `dtype` flag in CLI, for example: --dtype=half." and "Worker
#   VllmWorkerProcess pid 17397 died". This server did not start (a dtype the GPU lacks), the outcome recorded here.
# The command below is the comment's, copied verbatim, except that "0\n.9" (the value wrapped onto the next line in the
#   paste) is written 0.9.
# GPU: "Tesla T4" (the error; --tensor-parallel-size 2, two of them) -> 99-...kvplan.yaml names t4.
# Release: v0.7.4.dev418+gd47807ba, the same user's build of main (the description); the command pins none.
vllm serve google/gemma-3-4b-it --tensor-parallel-size 2 --gpu-memory-utilization 0.9 --max-model-len=17370 --port 8001
