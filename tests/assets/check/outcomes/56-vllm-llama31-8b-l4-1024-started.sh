#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/6689 ("[Model] Meta Llama 3.1 Know Issues & FAQ"), comment by
#   romilbhardwaj, 2024-07-23: "Just sharing - `vllm serve meta-llama/Meta-Llama-3.1-405B-Instruct-FP8
#   --tensor-parallel-size 8 --max-model-len 4096` works well on A100-80GB:8 with v0.5.3.post1. I'm also able to
#   run the 8B model on L4:1 with `vllm serve meta-llama/Meta-Llama-3.1-8B-Instruct --tensor-parallel-size 1
#   --max-model-len 1024`.": this server started and served, the outcome recorded here.
# The command below is the comment's second one, copied verbatim (file 58 is the first, file 57 the same 8B
#   server without --max-model-len, which the next comment says failed).
# GPU: "L4:1" (the comment) -> 56-...kvplan.yaml names l4.
# Release: vLLM v0.5.3.post1 (the comment); no container, the script names no release.
vllm serve meta-llama/Meta-Llama-3.1-8B-Instruct --tensor-parallel-size 1 --max-model-len 1024
