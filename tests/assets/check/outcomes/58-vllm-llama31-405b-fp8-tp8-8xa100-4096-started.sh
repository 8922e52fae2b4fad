#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/6689, comment by romilbhardwaj, 2024-07-23 (quoted in file
#   56): "`vllm serve meta-llama/Meta-Llama-3.1-405B-Instruct-FP8 --tensor-parallel-size 8 --max-model-len 4096`
#   works well on A100-80GB:8 with v0.5.3.post1": the server started and served, the outcome recorded here.
# The command below is the comment's first one, copied verbatim.
# GPU: "A100-80GB:8" (the comment; SXM or PCIe not stated) -> 58-...kvplan.yaml names a100-80gb.
# Release: vLLM v0.5.3.post1 (the comment); no container, the script names no release.
vllm serve meta-llama/Meta-Llama-3.1-405B-Instruct-FP8 --tensor-parallel-size 8 --max-model-len 4096
