#!/usr/bin/env bash
# Source: https://github.com/vllm-project/recipes/pull/12 (description by Abirdcfly, 2025-08-04,
#   "[Qwen3-Coder-480B-A35B] update max-model-len for fp8": "In my H20 8 nodes, I am unable to run the
#   models's max seq len (262144 = 256k) vllm version: `v0.10.1.dev101+gbda9d0535`").
# The command is the post's first block, copied verbatim without its "# " root prompt.
# GPU: H20 (the post); the count is the command's -dp=8 (one data-parallel rank a GPU) -> 25-...kvplan.yaml
#   names h20. Release: vLLM 0.10.1.dev101 (the post); started outside a container.
vllm serve /tmp/model/Qwen3-Coder-480B-A35B-Instruct-FP8 --served-model-name Qwen3-Coder-480B-A35B-FP8 -dp=8  --enable-expert-parallel --enable-auto-tool-choice --tool-call-parser qwen3_coder
