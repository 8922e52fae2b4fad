#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/14817 ("[Bug]: Gemma-3 models output empty text."), description
#   by gotoolkits, 2025-03-14: "Using the latest main branch self-compiled LLM engine (v0.7.4.dev418+gd47807ba) to run
#   the Gemma-3 model, only the Gemma-3-1b-it model outputs text content normally, while the 4/12/27B models output
#   empty text." with "Command executed: [the command below]" and a streamed completion from the running server
#   (`curl http://localhost:8000/v1/completions ... "model": "google/gemma-3-4b-it"` answered with empty texts). This
#   server started and served (its answers were empty, a correctness bug, not a start-up failure), the outcome
#   recorded here.
# The command below is the post's, copied verbatim (one line).
# GPU: not in the description (Ubuntu 20.04, CUDA 12.0, 16 cores, 64GB); the same user's comment the same day (file 99,
#   the same command without --dtype=half) failed with "Your Tesla T4 GPU has compute capability 7.5", two of them at
#   --tensor-parallel-size 2 -> 98-...kvplan.yaml names t4, an inference.
# Release: v0.7.4.dev418+gd47807ba, a build of main (the post); the command pins none.
vllm serve google/gemma-3-4b-it --tensor-parallel-size 2 --dtype=half --gpu-memory-utilization 0.9 --max-model-len=17370
