#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/16330 ("[Bug]: meta-llama/Llama-4-Scout-17B-16E-Instruct
#   compatibility"), comment by alokkrsahu, 2025-04-09: "I was able to solve that error using the below command.
#   [the command below] Please let me know if this is the best way to deploy it on 4xH100": the server started,
#   the outcome recorded here (the earlier error the comment solved is not quoted in the excerpt read and is not
#   this file).
# The command below is the comment's, copied verbatim (one line, as posted).
# GPU: "4xH100" (the comment; the variant is not stated) -> 64-...kvplan.yaml names h100 (the catalog's SXM 80GB).
# Release: not printed in the excerpt read; the comment's date (2025-04-09, three days after vLLM v0.8.3) and the
#   maintainer's "try rebasing after #16209" point to v0.8.3 or main of early April 2025 (an inference). The
#   script names no release.
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True TORCH_COMPILE_CACHE_DIR=/mnt/ai_container/data/llama4/torch_cache XDG_CACHE_HOME=/mnt/ai_container/data/llama4/torch_cache vllm serve "meta-llama/Llama-4-Scout-17B-16E-Instruct" --tensor-parallel-size 4 --gpu-memory-utilization 0.95 --max-model-len 49152 --block-size 16 --swap-space 16 --enforce-eager --max-num-batched-tokens 8192 --max-num-seqs 256
